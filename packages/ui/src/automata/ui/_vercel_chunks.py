"""The Vercel AI SDK's UI message stream: its chunks (the parts a `useChat` front end
folds into a `UIMessage`) written from an agent run's events and steps (the chunks
and their framing are `_chunk_parts`)."""

from __future__ import annotations

from collections.abc import Collection, Iterator

from automata.core import Activity, ModelStep, ToolResultEvent, ToolStep, ToolUseBlock, Usage
from automata.ui._activity_parts import activity_chunk
from automata.ui._chunk_parts import (
    Chunk,
    ChunkSteps,
    TextParts,
    approval_request,
    call_outcome,
    input_available,
    input_delta,
    input_start,
    usage_chunk,
)
from automata.ui._driver import Deferred, Failed, Finished
from automata.ui._run_items import RunItemWriter
from automata.ui._wire_values import approval_id, error_text

__all__ = ["UIChunkWriter"]


class UIChunkWriter(RunItemWriter[Chunk]):
    """Turns one run's items into UI message chunks, in order: `start-step` before a
    model turn's first part and `finish-step` after its tool results; text and
    reasoning as `*-start`/`*-delta`/`*-end` runs; a call as `tool-input-start`,
    `tool-input-delta`s (when the provider streams arguments), `tool-input-available`,
    then `tool-output-available`, `tool-output-error` or `tool-output-denied`; a call
    waiting for the front end's decision as `tool-approval-request`; a running call's
    activity as a `data-activity` part (`_activity_parts`); each turn's usage
    as a `data-usage` part. Only the top-level agent's events are written (depth 0):
    a sub-agent's work shows as its call's input and output."""

    def __init__(self, *, message_id: str, denied: Collection[str] = ()) -> None:
        self._message_id = message_id
        self._denied = frozenset(denied)
        self._text = TextParts()
        self._parts = 0
        self._steps = ChunkSteps()
        self._inputs_started: set[str] = set()
        self._inputs_available: set[str] = set()

    def start(self) -> Iterator[Chunk]:
        yield {"type": "start", "messageId": self._message_id}

    def continue_calls(self, calls: tuple[ToolUseBlock, ...]) -> None:
        """Take up the step whose calls a continued run runs first: they were announced
        by an earlier response (whose message this one continues), so only their
        outputs follow, then the step's `finish-step`."""
        if calls:
            self._steps.open = True
            self._inputs_started.update(call.id for call in calls)
            self._inputs_available.update(call.id for call in calls)

    def text(self, reasoning: bool, delta: str) -> Iterator[Chunk]:
        kind = "reasoning" if reasoning else "text"
        yield from self._steps.start()
        open_part = self._text.open
        if open_part is not None and open_part[1] == kind:
            part = open_part[0]
        else:  # a new run of text (or reasoning) gets the message's next part id
            self._parts += 1
            part = f"{self._message_id}-{self._parts}"
        yield from self._text.delta(part, kind, delta)

    def arguments(self, call_id: str, name: str, delta: str) -> Iterator[Chunk]:
        yield from self._text.close()
        yield from self._input_start(call_id, name)
        yield input_delta(call_id, delta)

    def call(self, call: ToolUseBlock) -> Iterator[Chunk]:
        yield from self._available(call)

    def result(self, event: ToolResultEvent) -> Iterator[Chunk]:
        yield from self._available(event.call)
        denied = event.call.id in self._denied
        yield call_outcome(event.call.id, event.result, error=event.is_error, denied=denied)

    def activity(self, call_id: str, name: str, activity: Activity) -> Iterator[Chunk]:
        yield from self._text.close()
        yield activity_chunk(call_id, name, activity)

    def usage(self, usage: Usage) -> Iterator[Chunk]:
        yield usage_chunk(usage)

    def model_step(self, step: ModelStep) -> Iterator[Chunk]:
        yield from self._steps.start()
        yield from self._text.close()
        for call in step.tool_calls:
            yield from self._available(call)
        if not step.tool_calls:
            yield from self._finish_step()

    def tool_step(self, step: ToolStep) -> Iterator[Chunk]:
        yield from self._finish_step()

    def deferred(self, stopped: Deferred) -> Iterator[Chunk]:
        for call in stopped.approvals:
            yield approval_request(approval_id(call.id), call.id)
        yield from self._finish_step()
        yield {"type": "finish", "finishReason": "tool-calls"}

    def finished(self, done: Finished) -> Iterator[Chunk]:
        yield from self._finish_step()
        yield {"type": "finish", "finishReason": "stop"}

    def failed(self, failure: Failed) -> Iterator[Chunk]:
        yield from self._text.close()
        yield {"type": "error", "errorText": error_text(failure.error)}

    def _finish_step(self) -> Iterator[Chunk]:
        yield from self._text.close()
        yield from self._steps.finish()

    def _input_start(self, call_id: str, name: str) -> Iterator[Chunk]:
        yield from self._steps.start()
        if call_id not in self._inputs_started:
            self._inputs_started.add(call_id)
            yield input_start(call_id, name)

    def _available(self, call: ToolUseBlock) -> Iterator[Chunk]:
        if call.id in self._inputs_available:
            return
        yield from self._text.close()
        yield from self._input_start(call.id, call.name)
        self._inputs_available.add(call.id)
        yield input_available(call.id, call.name, call.input)
