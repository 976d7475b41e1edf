"""The Vercel AI SDK's UI message stream: its chunks (the parts a `useChat` front end
folds into a `UIMessage`) written from an agent run's events and steps, and their
server-sent-event framing.

Every chunk is a JSON object in one `data:` line; what the model or a tool wrote is
only ever a JSON string value, so no text of theirs can become markup or a frame."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from automata.core import (
    AutomataError,
    ModelStep,
    TextEvent,
    ThinkingEvent,
    ToolCallDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolStep,
    ToolUseBlock,
    Usage,
    UsageEvent,
)
from automata.ui._driver import Deferred, Failed, Finished, RunItem

__all__ = [
    "DONE_FRAME",
    "UI_MESSAGE_STREAM_HEADERS",
    "UIChunkWriter",
    "error_text",
    "sse_frame",
    "usage_data",
]

UI_MESSAGE_STREAM_HEADERS: Mapping[str, str] = {"x-vercel-ai-ui-message-stream": "v1"}
"""The header the AI SDK's client requires to read a response as a UI message stream."""

DONE_FRAME = "data: [DONE]\n\n"
"""The frame that ends a UI message stream."""

Chunk = dict[str, Any]


def sse_frame(chunk: Chunk) -> str:
    """One chunk as one server-sent event (JSON escapes every line break)."""
    return f"data: {json.dumps(chunk, ensure_ascii=False, separators=(',', ':'))}\n\n"


def error_text(error: BaseException) -> str:
    """What a stream says of a failed run: the message of the library's own errors,
    only the kind of anything else (whose text may hold server details)."""
    if isinstance(error, AutomataError):
        return f"{type(error).__name__}: {error}"
    return f"{type(error).__name__}: the run failed"


def usage_data(usage: Usage) -> dict[str, int]:
    """A `Usage` as the payload of a `data-usage` part."""
    return {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "cacheReadTokens": usage.cache_read_tokens,
        "cacheWriteTokens": usage.cache_write_tokens,
    }


class UIChunkWriter:
    """Turns one run's items into UI message chunks, in order: `start-step` before a
    model turn's first part and `finish-step` after its tool results; text and
    reasoning as `*-start`/`*-delta`/`*-end` runs; a call as `tool-input-start`,
    `tool-input-delta`s (when the provider streams arguments), `tool-input-available`,
    then `tool-output-available`, `tool-output-error` or `tool-output-denied`; a call
    waiting for the front end's decision as `tool-approval-request`; each turn's usage
    as a `data-usage` part. Only the top-level agent's events are written (depth 0):
    a sub-agent's work shows as its call's input and output."""

    def __init__(self, *, message_id: str, denied: Collection[str] = ()) -> None:
        self._message_id = message_id
        self._denied = frozenset(denied)
        self._open: tuple[str, str] | None = None  # ("text" | "reasoning", part id)
        self._parts = 0
        self._in_step = False
        self._inputs_started: set[str] = set()
        self._inputs_available: set[str] = set()

    def start(self) -> Iterator[Chunk]:
        yield {"type": "start", "messageId": self._message_id}

    def continue_calls(self, calls: tuple[ToolUseBlock, ...]) -> None:
        """Take up the step whose calls a continued run runs first: they were announced
        by an earlier response (whose message this one continues), so only their
        outputs follow, then the step's `finish-step`."""
        if calls:
            self._in_step = True
            self._inputs_started.update(call.id for call in calls)
            self._inputs_available.update(call.id for call in calls)

    def write(self, item: RunItem) -> Iterator[Chunk]:
        if isinstance(item, TextEvent | ThinkingEvent):
            if item.depth == 0 and item.text:
                yield from self._delta(
                    "text" if isinstance(item, TextEvent) else "reasoning", item.text
                )
        elif isinstance(item, ToolCallDeltaEvent):
            if item.depth == 0:
                yield from self._close_text()
                yield from self._input_start(item.call_id, item.name)
                yield {
                    "type": "tool-input-delta",
                    "toolCallId": item.call_id,
                    "inputTextDelta": item.delta,
                }
        elif isinstance(item, ToolCallEvent):
            if item.depth == 0:
                yield from self._available(item.call)
        elif isinstance(item, ToolResultEvent):
            if item.depth == 0:
                yield from self._output(item)
        elif isinstance(item, UsageEvent):
            if item.depth == 0:
                yield {"type": "data-usage", "data": usage_data(item.usage), "transient": True}
        elif isinstance(item, ModelStep):
            yield from self._start_step()
            yield from self._close_text()
            for call in item.tool_calls:
                yield from self._available(call)
            if not item.tool_calls:
                yield from self._finish_step()
        elif isinstance(item, ToolStep):
            yield from self._finish_step()
        elif isinstance(item, Deferred):
            for call in item.approvals:
                yield {
                    "type": "tool-approval-request",
                    "approvalId": approval_id(call.id),
                    "toolCallId": call.id,
                }
            yield from self._finish_step()
            yield {"type": "finish", "finishReason": "tool-calls"}
        elif isinstance(item, Finished):
            yield from self._finish_step()
            yield {"type": "finish", "finishReason": "stop"}
        elif isinstance(item, Failed):
            yield from self._close_text()
            yield {"type": "error", "errorText": error_text(item.error)}

    def _start_step(self) -> Iterator[Chunk]:
        if not self._in_step:
            self._in_step = True
            yield {"type": "start-step"}

    def _finish_step(self) -> Iterator[Chunk]:
        yield from self._close_text()
        if self._in_step:
            self._in_step = False
            yield {"type": "finish-step"}

    def _delta(self, kind: str, text: str) -> Iterator[Chunk]:
        yield from self._start_step()
        if self._open is None or self._open[0] != kind:
            yield from self._close_text()
            self._parts += 1
            self._open = (kind, f"{self._message_id}-{self._parts}")
            yield {"type": f"{kind}-start", "id": self._open[1]}
        yield {"type": f"{kind}-delta", "id": self._open[1], "delta": text}

    def _close_text(self) -> Iterator[Chunk]:
        if self._open is not None:
            kind, part = self._open
            self._open = None
            yield {"type": f"{kind}-end", "id": part}

    def _input_start(self, call_id: str, name: str) -> Iterator[Chunk]:
        yield from self._start_step()
        if call_id not in self._inputs_started:
            self._inputs_started.add(call_id)
            yield {"type": "tool-input-start", "toolCallId": call_id, "toolName": name}

    def _available(self, call: ToolUseBlock) -> Iterator[Chunk]:
        if call.id in self._inputs_available:
            return
        yield from self._close_text()
        yield from self._input_start(call.id, call.name)
        self._inputs_available.add(call.id)
        yield {
            "type": "tool-input-available",
            "toolCallId": call.id,
            "toolName": call.name,
            "input": dict(call.input),
        }

    def _output(self, event: ToolResultEvent) -> Iterator[Chunk]:
        yield from self._available(event.call)
        if event.call.id in self._denied:
            yield {"type": "tool-output-denied", "toolCallId": event.call.id}
        elif event.is_error:
            yield {
                "type": "tool-output-error",
                "toolCallId": event.call.id,
                "errorText": event.result,
            }
        else:
            yield {
                "type": "tool-output-available",
                "toolCallId": event.call.id,
                "output": event.result,
            }


def approval_id(call_id: str) -> str:
    """The approval id a stream gives the call `call_id`'s approval request."""
    return f"approval-{call_id}"
