"""Provider calls, tool results and deps as JSON text, the way they cross between the
workflow and the activities: `load_*(dump_*(x))` gives back an equal value, so a
recorded history replays to the same objects."""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter
from pydantic_core import to_jsonable_python

from automata.core import (
    CallOptions,
    Message,
    ModelRequest,
    ModelResponse,
    OutputSchema,
    StopReason,
    ToolResult,
    ToolSpec,
    Usage,
    dump_messages,
    load_messages,
)

__all__ = [
    "dump_deps",
    "dump_request",
    "dump_response",
    "dump_result",
    "load_deps",
    "load_request",
    "load_response",
    "load_result",
]


def dump_request(request: ModelRequest) -> str:
    """A provider call as JSON: its messages (`dump_messages`), tools, options and
    output schema."""
    schema = request.output_schema
    return json.dumps(
        {
            "messages": dump_messages(request.messages),
            "tools": [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema}
                for t in request.tools
            ],
            "options": request.options.model_dump(mode="json", exclude_none=True),
            "output_schema": None
            if schema is None
            else {
                "name": schema.name,
                "schema": schema.schema,
                "strict_compatible": schema.strict_compatible,
            },
        }
    )


def load_request(text: str) -> ModelRequest:
    """The `ModelRequest` that `dump_request` wrote."""
    data = json.loads(text)
    schema = data["output_schema"]
    return ModelRequest(
        messages=tuple(load_messages(data["messages"])),
        tools=tuple(ToolSpec(**tool) for tool in data["tools"]),
        options=CallOptions.model_validate(data["options"]),
        output_schema=None if schema is None else OutputSchema(**schema),
    )


def dump_response(response: ModelResponse) -> str:
    """A provider's reply as JSON: the message, stop reasons, usage, model and the
    provider that answered."""
    usage = response.usage
    return json.dumps(
        {
            "message": dump_messages([response.message]),
            "stop_reason": response.stop_reason.value,
            "raw_stop_reason": response.raw_stop_reason,
            "usage": None if usage is None else usage.model_dump(),
            "model": response.model,
            "provider": response.provider,
        }
    )


def load_response(text: str) -> ModelResponse:
    """The `ModelResponse` that `dump_response` wrote."""
    data = json.loads(text)
    (message,) = load_messages(data["message"])
    usage = data["usage"]
    return ModelResponse(
        message=message,
        stop_reason=StopReason(data["stop_reason"]),
        usage=None if usage is None else Usage.model_validate(usage),
        raw_stop_reason=data["raw_stop_reason"],
        model=data["model"],
        provider=data.get("provider", ""),  # absent from replies recorded before it was kept
    )


def dump_result(result: ToolResult) -> str:
    """A tool's result (its blocks and error flag) as JSON."""
    content = dump_messages([Message(role="tool", content=result.content)])
    return json.dumps({"content": content, "is_error": result.is_error})


def load_result(text: str) -> ToolResult:
    """The `ToolResult` that `dump_result` wrote."""
    data = json.loads(text)
    (message,) = load_messages(data["content"])
    return ToolResult(content=message.content, is_error=data["is_error"])


def dump_deps(deps: object) -> Any:
    """A run's deps as plain JSON values (pydantic's rules: dataclasses, models, dates),
    for the workflow's input."""
    return to_jsonable_python(deps)


def load_deps(value: Any, deps_type: type[Any] | None) -> Any:
    """The deps `dump_deps` wrote, validated as the agent's `deps_type` (as they are
    when it declares none)."""
    if value is None or deps_type is None:
        return value
    return TypeAdapter(deps_type).validate_python(value)
