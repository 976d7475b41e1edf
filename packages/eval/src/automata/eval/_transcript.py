"""Reading a run's transcript: the tool calls it made, and a few-line summary."""

from __future__ import annotations

import json
from collections.abc import Sequence

from automata.core import STRUCTURED_OUTPUT_TOOL, Message, ToolResultBlock, ToolUseBlock
from automata.eval._model import ToolCallRecord

__all__ = ["summarize", "tool_call_records"]

_TASK_CHARS = 200
_ARG_CHARS = 60
_FINAL_CHARS = 300
_MAX_CALL_LINES = 12


def _short(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def tool_call_records(messages: Sequence[Message]) -> tuple[ToolCallRecord, ...]:
    """The tool calls of a transcript in order, each marked `is_error` when its result
    was an error. The structured-output tool (how typed answers are given) is not a
    tool call of the agent and is left out."""
    errors = {
        block.tool_use_id: block.is_error
        for message in messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    }
    return tuple(
        ToolCallRecord(
            name=block.name, arguments=dict(block.input), is_error=errors.get(block.id, False)
        )
        for message in messages
        if message.role == "assistant"
        for block in message.content
        if isinstance(block, ToolUseBlock) and block.name != STRUCTURED_OUTPUT_TOOL
    )


def _arguments(arguments: dict[str, object]) -> str:
    parts = [
        f"{key}={_short(json.dumps(value, default=str), _ARG_CHARS)}"
        for key, value in arguments.items()
    ]
    return ", ".join(parts)


def summarize(
    task: str, calls: Sequence[ToolCallRecord], output: str, error: str | None
) -> tuple[str, ...]:
    """A transcript in a few lines: the user task, each tool call with short arguments
    (at most twelve, then a count of the rest), and the final text or the error, each
    line truncated."""
    lines = [f"user: {_short(task, _TASK_CHARS)}"]
    for call in calls[:_MAX_CALL_LINES]:
        mark = " -> error" if call.is_error else ""
        lines.append(f"call: {call.name}({_arguments(call.arguments)}){mark}")
    if len(calls) > _MAX_CALL_LINES:
        lines.append(f"... {len(calls) - _MAX_CALL_LINES} more calls")
    if output:
        lines.append(f"final: {_short(output, _FINAL_CHARS)}")
    if error:
        lines.append(f"error: {_short(error, _FINAL_CHARS)}")
    return tuple(lines)
