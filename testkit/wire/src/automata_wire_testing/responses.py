"""The OpenAI Responses wire (`POST /v1/responses`), for the local server: whole
`response` objects and the SSE event streams the API sends for them.

Build a reply's output items (`message`, `refusal`, `reasoning`, `function_call`),
wrap them in `response(...)`, and answer with `reply(body)`: JSON, or the named SSE
events of a real stream when the request asks to stream (`response.created`,
`response.in_progress`, per item `response.output_item.added`, its content events
with every text in two deltas (and its annotations as
`response.output_text.annotation.added`), `response.output_item.done`, then
`response.completed`, or `response.incomplete` for an incomplete response). Every
event carries its `sequence_number`, and the shapes are those of the `openai` SDK's
types under `openai.types.responses`. Failures: `error_event` (an `error` event
inside a stream) and `failed_events` (a stream ending in `response.failed`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from automata_wire_testing._server import Reply, Responder
from automata_wire_testing._sse import halves, sse_event

__all__ = [
    "USAGE",
    "error_event",
    "failed_events",
    "function_call",
    "message",
    "reasoning",
    "refusal",
    "reply",
    "response",
    "stream_events",
    "usage",
]


def usage(
    input_tokens: int, output_tokens: int, *, cached: int = 0, reasoning_tokens: int = 0
) -> dict[str, Any]:
    """A `usage` object: `input_tokens` counts cached tokens too, `output_tokens`
    reasoning tokens too, as the API reports them."""
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": input_tokens + output_tokens,
    }


USAGE = usage(20, 7, cached=5, reasoning_tokens=3)


def message(
    text: str, *, item_id: str = "msg_1", annotations: Sequence[Any] = ()
) -> dict[str, Any]:
    """An assistant `message` item with one `output_text` part."""
    part = {"type": "output_text", "text": text, "annotations": list(annotations), "logprobs": []}
    return {
        "id": item_id,
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [part],
    }


def refusal(text: str, *, item_id: str = "msg_1") -> dict[str, Any]:
    """An assistant `message` item whose one part is a `refusal`."""
    return {
        "id": item_id,
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "refusal", "refusal": text}],
    }


def reasoning(
    *summary: str, item_id: str = "rs_1", encrypted_content: str | None = None
) -> dict[str, Any]:
    """A `reasoning` item with these summary texts (and `encrypted_content` when
    given, as a stateless request asks for)."""
    item: dict[str, Any] = {
        "id": item_id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": text} for text in summary],
    }
    if encrypted_content is not None:
        item["encrypted_content"] = encrypted_content
    return item


def function_call(
    call_id: str, name: str, arguments: dict[str, Any] | str, *, item_id: str | None = None
) -> dict[str, Any]:
    """A `function_call` item (`arguments` as JSON text, like the API)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "id": item_id or f"fc_{call_id}",
        "type": "function_call",
        "status": "completed",
        "call_id": call_id,
        "name": name,
        "arguments": text,
    }


def response(
    *output: dict[str, Any],
    usage: dict[str, Any] | None = USAGE,
    status: str = "completed",
    incomplete_reason: str | None = None,
    model: str = "gpt-test",
    response_id: str = "resp_1",
    error: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A whole `response` object with these output items."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": 1.0,
        "status": status,
        "error": error,
        "incomplete_details": (
            {"reason": incomplete_reason} if incomplete_reason is not None else None
        ),
        "instructions": None,
        "metadata": {},
        "model": model,
        "output": list(output),
        "parallel_tool_calls": True,
        "temperature": 1.0,
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "usage": usage,
    }


Pieces = Callable[[str], list[str]]
"""How a text is split into deltas (`halves` unless told)."""


class _Events:
    """Numbers events in order, as the API's `sequence_number`s; `pieces` splits
    texts into deltas."""

    def __init__(self, pieces: Pieces = halves) -> None:
        self.sent: list[bytes] = []
        self.pieces = pieces

    def __call__(self, kind: str, **fields: Any) -> None:
        data = {"type": kind, **fields, "sequence_number": len(self.sent)}
        self.sent.append(sse_event(kind, data))


def _opening(item: dict[str, Any]) -> dict[str, Any]:
    """An item as `response.output_item.added` shows it: no content yet."""
    opened = {**item, "status": "in_progress"}
    if item["type"] == "message":
        opened["content"] = []
    elif item["type"] == "reasoning":
        opened["summary"] = []
        opened.pop("status")
    elif item["type"] == "function_call":
        opened["arguments"] = ""
    return opened


def _message_events(emit: _Events, item: dict[str, Any], index: int) -> None:
    for part_index, part in enumerate(item["content"]):
        where = {"item_id": item["id"], "output_index": index, "content_index": part_index}
        if part["type"] == "output_text":
            empty: dict[str, Any] = {**part, "text": ""}
            emit("response.content_part.added", **where, part=empty)
            for piece in emit.pieces(part["text"]):
                emit("response.output_text.delta", **where, delta=piece, logprobs=[])
            for number, annotation in enumerate(part.get("annotations") or ()):
                emit(
                    "response.output_text.annotation.added",
                    **where,
                    annotation_index=number,
                    annotation=annotation,
                )
            emit("response.output_text.done", **where, text=part["text"], logprobs=[])
        else:
            emit("response.content_part.added", **where, part={**part, "refusal": ""})
            for piece in emit.pieces(part["refusal"]):
                emit("response.refusal.delta", **where, delta=piece)
            emit("response.refusal.done", **where, refusal=part["refusal"])
        emit("response.content_part.done", **where, part=part)


def _reasoning_events(emit: _Events, item: dict[str, Any], index: int) -> None:
    for summary_index, summary in enumerate(item["summary"]):
        where = {"item_id": item["id"], "output_index": index, "summary_index": summary_index}
        emit("response.reasoning_summary_part.added", **where, part={**summary, "text": ""})
        for piece in emit.pieces(summary["text"]):
            emit("response.reasoning_summary_text.delta", **where, delta=piece)
        emit("response.reasoning_summary_text.done", **where, text=summary["text"])
        emit("response.reasoning_summary_part.done", **where, part=summary)


def _item_events(emit: _Events, item: dict[str, Any], index: int) -> None:
    emit("response.output_item.added", output_index=index, item=_opening(item))
    if item["type"] == "message":
        _message_events(emit, item, index)
    elif item["type"] == "reasoning":
        _reasoning_events(emit, item, index)
    elif item["type"] == "function_call":
        where = {"item_id": item["id"], "output_index": index}
        for piece in emit.pieces(item["arguments"]):
            emit("response.function_call_arguments.delta", **where, delta=piece)
        emit("response.function_call_arguments.done", **where, arguments=item["arguments"])
    emit("response.output_item.done", output_index=index, item=item)


def _started(body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    pending = {**body, "status": "in_progress", "output": [], "usage": None}
    yield "response.created", pending
    yield "response.in_progress", pending


def stream_events(
    body: dict[str, Any], *, pieces: Pieces = halves, ending: dict[str, Any] | None = None
) -> list[bytes]:
    """The SSE events a real stream sends for the response `body`: it opens, streams
    each output item (every text and arguments in the deltas `pieces` gives, two by
    default; a text's annotations as `response.output_text.annotation.added` after
    its deltas), and ends with `response.completed` (or `response.incomplete`)
    carrying the whole response, or `ending` when given (a server whose final
    response says less than its events)."""
    emit = _Events(pieces)
    for kind, pending in _started(body):
        emit(kind, response=copy.deepcopy(pending))
    for index, item in enumerate(body["output"]):
        _item_events(emit, item, index)
    last = "response.incomplete" if body["status"] == "incomplete" else "response.completed"
    emit(last, response=body if ending is None else ending)
    return emit.sent


def failed_events(code: str, text: str, *, body: dict[str, Any] | None = None) -> list[bytes]:
    """A stream that opens and then fails: `response.failed` carrying `error`."""
    emit = _Events()
    base = body or response(usage=None)
    for kind, pending in _started(base):
        emit(kind, response=pending)
    failed = {**base, "status": "failed", "error": {"code": code, "message": text}}
    emit("response.failed", response=failed)
    return emit.sent


def error_event(code: str, text: str, *, sequence_number: int = 99) -> bytes:
    """An `error` event inside a stream."""
    data = {
        "type": "error",
        "code": code,
        "message": text,
        "param": None,
        "sequence_number": sequence_number,
    }
    return sse_event("error", data)


def reply(body: dict[str, Any], *, headers: dict[str, str] | None = None) -> Responder:
    """A responder answering with the response `body` as JSON, or as its SSE events
    when the request streams."""

    def respond(request: dict[str, Any]) -> Reply:
        if request.get("stream"):
            return Reply(events=stream_events(body), headers=headers or {})
        return Reply(json_body=body, headers=headers or {})

    return respond
