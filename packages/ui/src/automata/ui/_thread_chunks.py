"""A durable thread's turn written as UI message chunks, from its `ThreadDiff`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

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
from automata.ui._vercel_chunks import usage_data

if TYPE_CHECKING:
    from automata.threads import ThreadView

__all__ = ["ThreadChunkWriter"]

Chunk = dict[str, Any]


class ThreadChunkWriter:
    """Writes what is new in each view of the turn `diff` follows as chunks (**U3**):
    steps, text and reasoning runs, calls' inputs and outcomes, an approval request
    per parked call, a `data-question` part per question; `finish` at the end."""

    def __init__(self, diff: ThreadDiff) -> None:
        self.diff = diff
        self._open: tuple[str, str] | None = None  # (part id, "text" | "reasoning")
        self._in_step = False

    def write(self, view: ThreadView) -> Iterator[Chunk]:
        for change in self.diff.changes(view):
            if isinstance(change, StepStarted):
                yield from self._finish_step()
                self._in_step = True
                yield {"type": "start-step"}
            elif isinstance(change, TextGrew):
                kind = "reasoning" if change.reasoning else "text"
                if self._open != (change.item_id, kind):
                    yield from self._close()
                    self._open = (change.item_id, kind)
                    yield {"type": f"{kind}-start", "id": change.item_id}
                yield {"type": f"{kind}-delta", "id": change.item_id, "delta": change.delta}
            elif isinstance(change, CallStarted):
                yield from self._close()
                yield {
                    "type": "tool-input-start",
                    "toolCallId": change.call_id,
                    "toolName": change.name,
                }
            elif isinstance(change, ArgumentsGrew):
                yield {
                    "type": "tool-input-delta",
                    "toolCallId": change.call_id,
                    "inputTextDelta": change.delta,
                }
            elif isinstance(change, CallInput):
                yield {
                    "type": "tool-input-available",
                    "toolCallId": change.call_id,
                    "toolName": change.name,
                    "input": change.input,
                }
            elif isinstance(change, CallOutcome):
                yield _outcome(change)
            elif isinstance(change, ApprovalAsked):
                yield {
                    "type": "tool-approval-request",
                    "approvalId": change.interaction_id,
                    "toolCallId": change.call_id,
                }
            elif isinstance(change, QuestionAsked):
                yield {
                    "type": "data-question",
                    "id": change.interaction_id,
                    "data": {"interactionId": change.interaction_id, "question": change.question},
                }

    def finish(self, view: ThreadView) -> Iterator[Chunk]:
        yield from self._finish_step()
        yield {"type": "data-usage", "data": usage_data(view.usage), "transient": True}
        if view.status == "failed":
            yield {"type": "error", "errorText": f"the turn failed: {view.error or ''}"}
            return
        reason = "tool-calls" if view.status == "waiting" else "stop"
        yield {"type": "finish", "finishReason": reason}

    def _finish_step(self) -> Iterator[Chunk]:
        yield from self._close()
        if self._in_step:
            self._in_step = False
            yield {"type": "finish-step"}

    def _close(self) -> Iterator[Chunk]:
        if self._open is not None:
            part, kind = self._open
            self._open = None
            yield {"type": f"{kind}-end", "id": part}


def _outcome(change: CallOutcome) -> Chunk:
    if change.denied:
        return {"type": "tool-output-denied", "toolCallId": change.call_id}
    if change.error:
        return {
            "type": "tool-output-error",
            "toolCallId": change.call_id,
            "errorText": change.result,
        }
    return {"type": "tool-output-available", "toolCallId": change.call_id, "output": change.result}
