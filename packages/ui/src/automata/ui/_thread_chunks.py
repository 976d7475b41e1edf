"""A durable thread's turn, as it shows in successive `ThreadView`s, written as UI
message chunks: each view is compared with what was sent, and only what is new goes
out (text as deltas, a call's input once, its outcome once, an approval request once).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from automata.ui._vercel_chunks import usage_data

if TYPE_CHECKING:
    from automata.threads import ThreadView, ViewItem

__all__ = ["ThreadChunkWriter"]

Chunk = dict[str, Any]


def _reply_number(item: ViewItem) -> str:
    parts = item.id.split(".")
    return parts[1] if len(parts) == 3 else item.id


class ThreadChunkWriter:
    """Writes the items of turn `turn_id` that come after ordinal `after`; items at
    or before it were shown by an earlier response. With `earlier_outcomes` (this
    response continues that response's message) their calls' outcomes still go out
    when they arrive; without, a new message is written and they do not.
    `done(view)` says when the turn stopped for now."""

    def __init__(
        self, *, turn_id: str, after: int, first: ThreadView, earlier_outcomes: bool = True
    ) -> None:
        self._turn = turn_id
        self._after = after
        self._text: dict[str, int] = {}
        self._inputs: set[str] = set()
        self._available: set[str] = set()
        self._outcomes: set[str] = set()
        self._requests: set[str] = set()
        self._open: tuple[str, str] | None = None  # (item id, "text" | "reasoning")
        self._step: str | None = None
        for item in first.items:
            if item.turn_id == turn_id and item.ordinal <= after:
                self._text[item.id] = len(item.text)
                if item.call_id is not None:
                    self._inputs.add(item.call_id)
                    self._available.add(item.call_id)
                    if item.status in ("done", "error") or not earlier_outcomes:
                        self._outcomes.add(item.call_id)
                if item.interaction_id is not None:
                    self._requests.add(item.interaction_id)

    def done(self, view: ThreadView) -> bool:
        """The turn ran as far as it can without the front end: it ended, or it
        waits for a person, and is no longer queued."""
        if any(queued.turn_id == self._turn for queued in view.queue):
            return False
        return view.status != "running" or view.current_turn != self._turn

    def write(self, view: ThreadView) -> Iterator[Chunk]:
        last_call: str | None = None
        for item in view.items:
            if item.turn_id != self._turn:
                continue
            if item.kind == "tool_call" and item.call_id is not None:
                last_call = item.call_id
                yield from self._call(item)
            elif item.ordinal <= self._after:
                continue
            elif item.kind in ("assistant", "thinking"):
                yield from self._text_item(item)
            elif item.kind == "interaction" and item.interaction_id is not None:
                yield from self._interaction(item, item.call_id or last_call)

    def finish(self, view: ThreadView) -> Iterator[Chunk]:
        yield from self._close()
        if self._step is not None:
            yield {"type": "finish-step"}
        yield {"type": "data-usage", "data": usage_data(view.usage), "transient": True}
        if view.status == "failed":
            yield {"type": "error", "errorText": f"the turn failed: {view.error or ''}"}
            return
        reason = "tool-calls" if view.status == "waiting" else "stop"
        yield {"type": "finish", "finishReason": reason}

    def _enter_step(self, item: ViewItem) -> Iterator[Chunk]:
        number = _reply_number(item)
        if number != self._step:
            yield from self._close()
            if self._step is not None:
                yield {"type": "finish-step"}
            self._step = number
            yield {"type": "start-step"}

    def _close(self) -> Iterator[Chunk]:
        if self._open is not None:
            part, kind = self._open
            self._open = None
            yield {"type": f"{kind}-end", "id": part}

    def _text_item(self, item: ViewItem) -> Iterator[Chunk]:
        sent = self._text.get(item.id, 0)
        if len(item.text) <= sent:
            return
        yield from self._enter_step(item)
        kind = "reasoning" if item.kind == "thinking" else "text"
        if self._open is None or self._open[0] != item.id:
            yield from self._close()
            self._open = (item.id, kind)
            yield {"type": f"{kind}-start", "id": item.id}
        self._text[item.id] = len(item.text)
        yield {"type": f"{kind}-delta", "id": item.id, "delta": item.text[sent:]}

    def _call(self, item: ViewItem) -> Iterator[Chunk]:
        call = item.call_id
        assert call is not None
        if call not in self._inputs:
            yield from self._enter_step(item)
            yield from self._close()
            self._inputs.add(call)
            yield {"type": "tool-input-start", "toolCallId": call, "toolName": item.tool_name}
        if call not in self._available:
            partial = item.partial_input or ""
            sent = self._text.get(item.id, 0)
            if len(partial) > sent:
                self._text[item.id] = len(partial)
                yield {
                    "type": "tool-input-delta",
                    "toolCallId": call,
                    "inputTextDelta": partial[sent:],
                }
            if item.tool_input is not None and not item.live:
                self._available.add(call)
                yield {
                    "type": "tool-input-available",
                    "toolCallId": call,
                    "toolName": item.tool_name,
                    "input": item.tool_input,
                }
        if call in self._available and call not in self._outcomes:
            result = item.result or ""
            if item.status == "done":
                self._outcomes.add(call)
                yield {"type": "tool-output-available", "toolCallId": call, "output": result}
            elif item.status == "error":
                self._outcomes.add(call)
                if result.startswith("denied:"):
                    yield {"type": "tool-output-denied", "toolCallId": call}
                else:
                    yield {"type": "tool-output-error", "toolCallId": call, "errorText": result}

    def _interaction(self, item: ViewItem, call: str | None) -> Iterator[Chunk]:
        interaction = item.interaction_id
        if interaction is None or interaction in self._requests or item.status != "pending":
            return
        self._requests.add(interaction)
        if item.interaction_kind == "approval" and call is not None:
            yield {"type": "tool-approval-request", "approvalId": interaction, "toolCallId": call}
        else:
            yield {
                "type": "data-question",
                "id": interaction,
                "data": {"interactionId": interaction, "question": item.text},
            }
