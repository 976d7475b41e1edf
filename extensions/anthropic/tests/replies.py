"""Build Anthropic Messages API replies (JSON and SSE) for the local test server."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from automata_wire_testing import Reply, Responder, halves, sse_event

USAGE = {
    "input_tokens": 12,
    "output_tokens": 7,
    "cache_creation_input_tokens": 3,
    "cache_read_input_tokens": 5,
}


def message(
    content: Sequence[dict[str, Any]],
    *,
    stop_reason: str | None = "end_turn",
    usage: dict[str, Any] | None = None,
    model: str = "claude-test",
) -> dict[str, Any]:
    """A Messages API response body."""
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(content),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": dict(USAGE if usage is None else usage),
    }


def stream_events(body: dict[str, Any]) -> list[bytes]:
    """The SSE events a real stream would send for the response `body`."""
    usage = body["usage"]
    start_usage = {**usage, "output_tokens": 1}
    start = {**body, "content": [], "stop_reason": None, "usage": start_usage}
    end = {"stop_reason": body["stop_reason"], "stop_sequence": None}
    if "container" in body:  # as the API streams it: named at the end, not the start
        start["container"] = None
        end["container"] = body["container"]
    events = [sse_event("message_start", {"type": "message_start", "message": start})]
    events.append(sse_event("ping", {"type": "ping"}))
    for index, block in enumerate(body["content"]):
        kind = block["type"]
        if kind == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": t} for t in halves(block["text"])]
            if "citations" in block:
                # The API opens a cited block with no citations and sends each one as a
                # citations_delta ahead of the text.
                opening["citations"] = []
                cited = [{"type": "citations_delta", "citation": c} for c in block["citations"]]
                deltas = cited + deltas
        elif kind == "thinking":
            opening = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": t} for t in halves(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind in ("tool_use", "server_tool_use"):
            opening = {**block, "input": {}}
            arguments = json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in halves(arguments)]
        else:
            opening, deltas = block, []
        events.append(
            sse_event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        for delta in deltas:
            events.append(
                sse_event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(
            sse_event("content_block_stop", {"type": "content_block_stop", "index": index})
        )
    events.append(
        sse_event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": end,
                "usage": usage,
            },
        )
    )
    events.append(sse_event("message_stop", {"type": "message_stop"}))
    return events


def reply(body: dict[str, Any], *, headers: dict[str, str] | None = None) -> Responder:
    """A responder answering with `body` as JSON, or as SSE when the request streams."""

    def respond(request: dict[str, Any]) -> Reply:
        if request.get("stream"):
            return Reply(events=stream_events(body), headers=headers or {})
        return Reply(json_body=body, headers=headers or {})

    return respond


def error(status: int, kind: str, text: str, *, headers: dict[str, str] | None = None) -> Reply:
    """An Anthropic error response."""
    return Reply(
        status=status,
        json_body={"type": "error", "error": {"type": kind, "message": text}},
        headers=headers or {},
    )


def error_event(kind: str, text: str) -> bytes:
    """An `error` event inside a stream."""
    return sse_event("error", {"type": "error", "error": {"type": kind, "message": text}})
