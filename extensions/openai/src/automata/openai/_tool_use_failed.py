"""A server's refusal of the tool call the model wrote, read as that call.

Groq answers a turn whose tool call it could not parse with a 400 (in a stream, an
error event) `{"code": "tool_use_failed", "failed_generation": "<what the model
wrote>"}`. The request was fine; the model's answer was not. `answer_for_tool_use_failed`
reads that error as the turn it stands for: one `ToolUseBlock` with `input_error` set,
named after the tool the generation names (when it names one), its text kept as the
call's arguments. The loop answers it `invalid args: ...`, as it answers any call
whose arguments could not be read, and the model writes the call again, within the
run's `max_steps`. The next request carries the call and that result back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

import openai
from automata.core.providers import (
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    ToolUseBlock,
)
from automata.core.providers.reading import clip
from automata.openai._reply import PROVIDER, new_call_id

__all__ = ["answer_for_tool_use_failed"]

TOOL_USE_FAILED: Final = "tool_use_failed"

_NAMES: Final = re.compile(r"<function=([\w.-]+)|\"name\"\s*:\s*\"([\w.-]+)\"")
"""Where a generation names its tool: Llama's `<function=name...` or a JSON `"name"`."""


def _named_tool(generation: str, request: ModelRequest) -> str:
    """The tool `generation` names: the first name it gives that the request offers,
    else the first name it gives, else the request's only tool, else ""."""
    offered = {spec.name for spec in request.tools}
    named: list[str] = [first or second for first, second in _NAMES.findall(generation)]
    for name in named:
        if name in offered:
            return name
    if named:
        return named[0]
    return next(iter(offered)) if len(offered) == 1 else ""


def answer_for_tool_use_failed(error: Exception, request: ModelRequest) -> ModelResponse | None:
    """The tool turn a `tool_use_failed` error stands for (a whole JSON error or one
    sent in a stream, on either path: both raise the SDK's `APIError` with the error
    object as its body); None for any other error."""
    if not isinstance(error, openai.APIError):
        return None
    body = error.body
    if not isinstance(body, Mapping) or body.get("code") != TOOL_USE_FAILED:
        return None
    generation = body.get("failed_generation")
    written = generation if isinstance(generation, str) else ""
    message = body.get("message")
    why = message if isinstance(message, str) and message else "the server could not read it"
    call = ToolUseBlock(
        id=new_call_id(),
        name=_named_tool(written, request),
        input={},
        input_error=f"the server refused the tool call as written ({why}): {clip(written)}",
        extra={PROVIDER: {"arguments": written}},
    )
    return ModelResponse(
        message=Message(role="assistant", content=(call,)),
        stop_reason=StopReason.TOOL_USE,
        raw_stop_reason=TOOL_USE_FAILED,
    )
