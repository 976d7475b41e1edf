"""Build OpenAI Chat Completions replies (JSON and SSE chunks) for the local test server."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from automata_wire_testing import Reply, Responder, halves, sse_data

USAGE = {
    "prompt_tokens": 20,
    "completion_tokens": 7,
    "total_tokens": 27,
    "prompt_tokens_details": {"cached_tokens": 5, "audio_tokens": 0},
}


def tool_call(call_id: str, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def completion(
    content: str | None = None,
    *,
    tool_calls: Sequence[dict[str, Any]] = (),
    finish_reason: str | None = "stop",
    usage: dict[str, Any] | None = None,
    model: str = "gpt-test",
    refusal: str | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A chat.completion body with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if tool_calls:
        message["tool_calls"] = list(tool_calls)
    message.update(extra or {})
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": dict(USAGE if usage is None else usage),
    }


def _chunk(body: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> bytes:
    return sse_data(
        {
            "id": body["id"],
            "object": "chat.completion.chunk",
            "created": 1,
            "model": body["model"],
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


def stream_events(body: dict[str, Any], *, include_usage: bool = True) -> list[bytes]:
    """The SSE chunks a real stream would send for the completion `body`."""
    message = body["choices"][0]["message"]
    events = [_chunk(body, {"role": "assistant", "content": ""})]
    for key in ("reasoning_content", "reasoning"):
        if message.get(key):
            events.extend(_chunk(body, {key: part}) for part in halves(message[key]))
    for part in halves(message.get("content") or ""):
        events.append(_chunk(body, {"content": part}))
    if message.get("annotations"):
        # Sent on a delta of their own once the text that cites them is out.
        events.append(_chunk(body, {"annotations": message["annotations"]}))
    for part in halves(message.get("refusal") or ""):
        events.append(_chunk(body, {"refusal": part}))
    for index, call in enumerate(message.get("tool_calls") or []):
        head = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        events.append(_chunk(body, {"tool_calls": [head]}))
        for part in halves(call["function"]["arguments"]):
            fragment = {"index": index, "function": {"arguments": part}}
            events.append(_chunk(body, {"tool_calls": [fragment]}))
    events.append(_chunk(body, {}, body["choices"][0]["finish_reason"]))
    if include_usage:
        events.append(
            sse_data(
                {
                    "id": body["id"],
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": body["model"],
                    "choices": [],
                    "usage": body["usage"],
                }
            )
        )
    events.append(b"data: [DONE]\n\n")
    return events


def reply(body: dict[str, Any], *, headers: dict[str, str] | None = None) -> Responder:
    """A responder answering with `body` as JSON, or as SSE when the request streams."""

    def respond(request: dict[str, Any]) -> Reply:
        if request.get("stream"):
            usage = bool((request.get("stream_options") or {}).get("include_usage"))
            return Reply(events=stream_events(body, include_usage=usage), headers=headers or {})
        return Reply(json_body=body, headers=headers or {})

    return respond


def error(
    status: int,
    code: str | None,
    text: str,
    *,
    kind: str = "invalid_request_error",
    headers: dict[str, str] | None = None,
) -> Reply:
    """An OpenAI error response."""
    return Reply(
        status=status,
        json_body={"error": {"message": text, "type": kind, "param": None, "code": code}},
        headers=headers or {},
    )


def error_chunk(code: str, text: str) -> bytes:
    """An error sent inside a stream."""
    return sse_data({"error": {"message": text, "type": code, "param": None, "code": code}})
