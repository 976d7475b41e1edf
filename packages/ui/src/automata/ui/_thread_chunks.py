"""A durable thread's turn written as UI message chunks, from its `ThreadDiff` (the
chunks and their framing are `_chunk_parts`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

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
from automata.ui._thread_diff import (
    ApprovalAsked,
    ArgumentsGrew,
    CallInput,
    CallOutcome,
    CallStarted,
    QuestionAsked,
    StepStarted,
    TextGrew,
    ThreadDiff,
)

if TYPE_CHECKING:
    from automata.threads import ThreadView

__all__ = ["ThreadChunkWriter"]


class ThreadChunkWriter:
    """Writes what is new in each view of the turn `diff` follows as chunks (**U3**):
    steps, text and reasoning runs, calls' inputs and outcomes, an approval request
    per parked call, a `data-question` part per question; `finish` at the end."""

    def __init__(self, diff: ThreadDiff) -> None:
        self.diff = diff
        self._text = TextParts()
        self._steps = ChunkSteps()

    def write(self, view: ThreadView) -> Iterator[Chunk]:
        for change in self.diff.changes(view):
            if isinstance(change, StepStarted):
                yield from self._finish_step()
                yield from self._steps.start()
            elif isinstance(change, TextGrew):
                kind = "reasoning" if change.reasoning else "text"
                yield from self._text.delta(change.item_id, kind, change.delta)
            elif isinstance(change, CallStarted):
                yield from self._text.close()
                yield input_start(change.call_id, change.name)
            elif isinstance(change, ArgumentsGrew):
                yield input_delta(change.call_id, change.delta)
            elif isinstance(change, CallInput):
                yield input_available(change.call_id, change.name, change.input)
            elif isinstance(change, CallOutcome):
                yield call_outcome(
                    change.call_id, change.result, error=change.error, denied=change.denied
                )
            elif isinstance(change, ApprovalAsked):
                yield approval_request(change.interaction_id, change.call_id)
            elif isinstance(change, QuestionAsked):
                yield {
                    "type": "data-question",
                    "id": change.interaction_id,
                    "data": {"interactionId": change.interaction_id, "question": change.question},
                }

    def finish(self, view: ThreadView) -> Iterator[Chunk]:
        yield from self._finish_step()
        yield usage_chunk(view.usage)
        if view.status == "failed":
            yield {"type": "error", "errorText": f"the turn failed: {view.error or ''}"}
            return
        reason = "tool-calls" if view.status == "waiting" else "stop"
        yield {"type": "finish", "finishReason": reason}

    def _finish_step(self) -> Iterator[Chunk]:
        yield from self._text.close()
        yield from self._steps.finish()
