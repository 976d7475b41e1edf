"""An OpenAI-compatible model for the local wire server: the demo's three scripted
roles behind the Chat Completions API.

`answer(body)` is a `WireServer` responder. It reads the request's OpenAI messages
back into core `Message`s (tool calls with their arguments, tool results with the
`error: ` prefix the OpenAI provider puts before a failed one read back as an error),
picks the role by the system prompt, lets the demo's function for that role reply, and
writes the reply as a `chat.completion` body (a streaming request is refused: the eval
engine's runs ask for whole replies).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from automata_wire_testing import Reply
from deep_research import demo
from deep_research.team import (
    ORCHESTRATOR,
    ORCHESTRATOR_PROMPT,
    RESEARCHER,
    RESEARCHER_PROMPT,
    WRITER,
    WRITER_PROMPT,
)

from automata.core import (
    Message,
    ModelRequest,
    ModelResponse,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)

__all__ = ["ROLES", "answer", "role_of"]

ERROR_PREFIX = "error: "

ROLES: Mapping[str, tuple[str, Callable[[ModelRequest], ModelResponse]]] = {
    ORCHESTRATOR_PROMPT: (ORCHESTRATOR, demo._orchestrator),
    RESEARCHER_PROMPT: (RESEARCHER, demo._researcher),
    WRITER_PROMPT: (WRITER, demo._writer),
}
"""System prompt -> (role name, the demo's function for it)."""


def _text(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")


def role_of(body: Mapping[str, Any]) -> str:
    """The role a request is for, by its system prompt (KeyError for an unknown one)."""
    system = _text(body["messages"][0]["content"])
    return ROLES[system][0]


def to_request(body: Mapping[str, Any]) -> ModelRequest:
    """The core request behind a Chat Completions request body."""
    messages: list[Message] = []
    for wire in body["messages"]:
        role = wire["role"]
        if role in ("system", "developer"):
            messages.append(Message.system(_text(wire["content"])))
        elif role == "user":
            messages.append(Message.user(_text(wire["content"])))
        elif role == "assistant":
            blocks: list[TextBlock | ToolUseBlock] = []
            if text := _text(wire.get("content")):
                blocks.append(TextBlock(text=text))
            for call in wire.get("tool_calls") or []:
                function = call["function"]
                arguments = json.loads(function["arguments"] or "{}")
                blocks.append(ToolUseBlock(id=call["id"], name=function["name"], input=arguments))
            messages.append(Message.assistant(blocks))
        elif role == "tool":
            text = _text(wire["content"])
            failed = text.startswith(ERROR_PREFIX)
            result = ToolResultBlock(
                tool_use_id=wire["tool_call_id"],
                content=(TextBlock(text=text.removeprefix(ERROR_PREFIX)),),
                is_error=failed,
            )
            # one core tool message carries every result of a turn
            if messages and messages[-1].role == "tool":
                messages[-1] = Message(role="tool", content=(*messages[-1].content, result))
            else:
                messages.append(Message(role="tool", content=(result,)))
        else:
            raise ValueError(f"unexpected message role {role!r}")
    tools = tuple(
        ToolSpec(
            name=spec["function"]["name"],
            description=spec["function"].get("description", ""),
            input_schema=spec["function"].get("parameters", {}),
        )
        for spec in body.get("tools") or []
    )
    return ModelRequest(messages=tuple(messages), tools=tools)


def to_completion(response: ModelResponse, model: str) -> dict[str, Any]:
    """A `chat.completion` body for a core response."""
    message = response.message
    wire: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    calls = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.input)},
        }
        for call in message.tool_calls
    ]
    if calls:
        wire["tool_calls"] = calls
    usage = response.usage
    prompt = usage.input_tokens if usage is not None else 0
    completion = usage.output_tokens if usage is not None else 0
    return {
        "id": "chatcmpl-deep-research",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [
            {"index": 0, "message": wire, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def answer(body: dict[str, Any]) -> Reply:
    """The reply of the role the request's system prompt names."""
    request = to_request(body)
    _, model = ROLES[request.system_prompt or ""]
    if body.get("stream"):  # `Agent.run` without listeners asks for whole replies
        error = {"message": "this test server does not stream", "type": "invalid_request_error"}
        return Reply(status=400, json_body={"error": error})
    return Reply(json_body=to_completion(model(request), body["model"]))
