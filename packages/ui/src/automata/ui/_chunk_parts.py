"""The pieces both UI message stream writers (an agent run's, `_vercel_chunks`, and a
durable thread's, `_thread_chunks`) are made of: the chunks themselves, the text or
reasoning part being written, the step being run, and their server-sent-event
framing.

Every chunk is a JSON object in one `data:` line; what the model or a tool wrote is
only ever a JSON string value, so no text of theirs can become markup or a frame."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from automata.core import Usage
from automata.ui._wire_values import usage_data

__all__ = [
    "DONE_FRAME",
    "UI_MESSAGE_STREAM_HEADERS",
    "Chunk",
    "ChunkSteps",
    "TextParts",
    "approval_request",
    "call_outcome",
    "input_available",
    "input_delta",
    "input_start",
    "sse_frame",
    "usage_chunk",
]

UI_MESSAGE_STREAM_HEADERS: Mapping[str, str] = {"x-vercel-ai-ui-message-stream": "v1"}
"""The header the AI SDK's client requires to read a response as a UI message stream."""

DONE_FRAME = "data: [DONE]\n\n"
"""The frame that ends a UI message stream."""

Chunk = dict[str, Any]


def sse_frame(chunk: Chunk) -> str:
    """One chunk as one server-sent event (JSON escapes every line break)."""
    return f"data: {json.dumps(chunk, ensure_ascii=False, separators=(',', ':'))}\n\n"


class TextParts:
    """The one text or reasoning part open at a time: `delta` opens part `part_id` of
    `kind` (`text` or `reasoning`), ending the one open before when it is another,
    and writes to it; `close` ends it."""

    def __init__(self) -> None:
        self.open: tuple[str, str] | None = None  # (part id, kind)

    def delta(self, part_id: str, kind: str, delta: str) -> Iterator[Chunk]:
        if self.open != (part_id, kind):
            yield from self.close()
            self.open = (part_id, kind)
            yield {"type": f"{kind}-start", "id": part_id}
        yield {"type": f"{kind}-delta", "id": part_id, "delta": delta}

    def close(self) -> Iterator[Chunk]:
        if self.open is not None:
            part, kind = self.open
            self.open = None
            yield {"type": f"{kind}-end", "id": part}


class ChunkSteps:
    """Whether a step is open: `start` opens one unless one is; `finish` ends it."""

    def __init__(self) -> None:
        self.open = False

    def start(self) -> Iterator[Chunk]:
        if not self.open:
            self.open = True
            yield {"type": "start-step"}

    def finish(self) -> Iterator[Chunk]:
        if self.open:
            self.open = False
            yield {"type": "finish-step"}


def input_start(call_id: str, name: str) -> Chunk:
    return {"type": "tool-input-start", "toolCallId": call_id, "toolName": name}


def input_delta(call_id: str, delta: str) -> Chunk:
    return {"type": "tool-input-delta", "toolCallId": call_id, "inputTextDelta": delta}


def input_available(call_id: str, name: str, arguments: Mapping[str, Any]) -> Chunk:
    return {
        "type": "tool-input-available",
        "toolCallId": call_id,
        "toolName": name,
        "input": dict(arguments),
    }


def call_outcome(call_id: str, result: str, *, error: bool, denied: bool) -> Chunk:
    """A call's outcome: `tool-output-denied` when a person refused it, else
    `tool-output-error` or `tool-output-available`."""
    if denied:
        return {"type": "tool-output-denied", "toolCallId": call_id}
    if error:
        return {"type": "tool-output-error", "toolCallId": call_id, "errorText": result}
    return {"type": "tool-output-available", "toolCallId": call_id, "output": result}


def approval_request(approval_id: str, call_id: str) -> Chunk:
    return {"type": "tool-approval-request", "approvalId": approval_id, "toolCallId": call_id}


def usage_chunk(usage: Usage) -> Chunk:
    """A transient `data-usage` part."""
    return {"type": "data-usage", "data": usage_data(usage), "transient": True}
