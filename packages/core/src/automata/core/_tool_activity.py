"""`ToolActivity`: how a tool call sets what it shows a person (`ToolContext.activity`).

Each change builds a new `Activity` from the last one (label, rows, status and
operation accumulate) and, when the run streams, emits an `ActivityEvent` carrying the
whole activity so far, so a UI, a `StreamAccumulator` and a durable thread all hold
the latest one. A handle belongs to one call; it is not shared between calls.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace

from automata.core._activity import Activity, ActivityRow, RowKind, SubAgentOperation
from automata.core._blocks import ToolUseBlock
from automata.core._events import ActivityEvent
from automata.core._scope import EventSink

__all__ = ["ToolActivity"]


class ToolActivity:
    """The display facts of one tool call (see the module). Safe to call from the
    sync-tool thread a function tool runs on."""

    def __init__(
        self,
        call: ToolUseBlock,
        *,
        agent: str = "",
        invocation_id: str = "",
        depth: int = 0,
        emit: EventSink | None = None,
    ) -> None:
        self._call = call
        self._agent = agent
        self._invocation_id = invocation_id
        self._depth = depth
        self._emit = emit
        self._lock = threading.Lock()
        self._current = Activity()

    @property
    def current(self) -> Activity:
        """Everything the call shows so far."""
        return self._current

    def label(self, text: str) -> Activity:
        """Set the call's one-line label (sanitized, at most `MAX_LABEL_CHARS`)."""
        return self._change(lambda a: a.with_label(text))

    def row(self, text: str, *, kind: RowKind = "text", language: str | None = None) -> Activity:
        """Add a row of text, markdown or code (the latest `MAX_ACTIVITY_ROWS` stay)."""
        row = ActivityRow.of(text, kind, language)
        return self._change(lambda a: a.with_row(row))

    def status(self, text: str) -> Activity:
        """Set the call's short status text (e.g. `downloading`, `3/5`)."""
        return self._change(lambda a: a.with_status(text))

    def operation(self, action: str, targets: Sequence[str]) -> Activity:
        """Record a sub-agent management action (`start`, `wait`, `stop`) and the
        child threads it names, in order."""
        done = SubAgentOperation.of(action, list(targets))
        return self._change(lambda a: replace(a, operation=done))

    def _change(self, change: Callable[[Activity], Activity]) -> Activity:
        with self._lock:
            self._current = updated = change(self._current)
        if self._emit is not None:
            self._emit(
                ActivityEvent(
                    agent=self._agent,
                    invocation_id=self._invocation_id,
                    depth=self._depth,
                    call_id=self._call.id,
                    name=self._call.name,
                    activity=updated,
                )
            )
        return updated
