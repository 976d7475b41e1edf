"""A durable thread's turn written as UI message chunks, from its `ThreadDiff` (the
chunks and their framing are `_chunk_parts`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from automata.ui import _chunk_parts as chunks
from automata.ui import _thread_diff as changes
from automata.ui._activity_parts import activity_chunk
from automata.ui._change_writer import ChangeWriter
from automata.ui._chunk_parts import Chunk, ChunkSteps, TextParts

if TYPE_CHECKING:
    from automata.threads import ThreadView

__all__ = ["ThreadChunkWriter"]


class ThreadChunkWriter(ChangeWriter[Chunk]):
    """Writes what is new in each view of the turn `diff` follows as chunks (**U3**):
    steps, text and reasoning runs, calls' inputs, activity (`data-activity`) and
    outcomes, an approval request
    per parked call, a `data-question` part per question; `finish` at the end."""

    def __init__(self, diff: changes.ThreadDiff) -> None:
        super().__init__(diff)
        self._text = TextParts()
        self._steps = ChunkSteps()

    def step_started(self, change: changes.StepStarted) -> Iterator[Chunk]:
        yield from self._finish_step()
        yield from self._steps.start()

    def text_grew(self, change: changes.TextGrew) -> Iterator[Chunk]:
        kind = "reasoning" if change.reasoning else "text"
        yield from self._text.delta(change.item_id, kind, change.delta)

    def call_started(self, change: changes.CallStarted) -> Iterator[Chunk]:
        yield from self._text.close()
        yield chunks.input_start(change.call_id, change.name)

    def arguments_grew(self, change: changes.ArgumentsGrew) -> Iterator[Chunk]:
        yield chunks.input_delta(change.call_id, change.delta)

    def call_input(self, change: changes.CallInput) -> Iterator[Chunk]:
        yield chunks.input_available(change.call_id, change.name, change.input)

    def call_outcome(self, change: changes.CallOutcome) -> Iterator[Chunk]:
        yield chunks.call_outcome(
            change.call_id, change.result, error=change.error, denied=change.denied
        )

    def activity_shown(self, change: changes.ActivityShown) -> Iterator[Chunk]:
        yield from self._text.close()
        yield activity_chunk(change.call_id, change.name, change.activity)

    def approval_asked(self, change: changes.ApprovalAsked) -> Iterator[Chunk]:
        yield chunks.approval_request(change.interaction_id, change.call_id)

    def question_asked(self, change: changes.QuestionAsked) -> Iterator[Chunk]:
        yield {
            "type": "data-question",
            "id": change.interaction_id,
            "data": {"interactionId": change.interaction_id, "question": change.question},
        }

    def finish(self, view: ThreadView) -> Iterator[Chunk]:
        yield from self._finish_step()
        yield chunks.usage_chunk(view.usage)
        if view.status == "failed":
            yield {"type": "error", "errorText": f"the turn failed: {view.error or ''}"}
            return
        reason = "tool-calls" if view.status == "waiting" else "stop"
        yield {"type": "finish", "finishReason": reason}

    def _finish_step(self) -> Iterator[Chunk]:
        yield from self._text.close()
        yield from self._steps.finish()
