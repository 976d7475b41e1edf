"""A durable thread's turn written as AG-UI events, from its `ThreadDiff`: each model
reply a step and an assistant message, calls as TOOL_CALL_*, their activity as
ACTIVITY_SNAPSHOT, a parked call or a
question as an interrupt of RUN_FINISHED."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from automata.ui import _thread_diff as changes
from automata.ui._activity_parts import activity_event
from automata.ui._agui_parts import APPROVAL_REASON, Steps, TextRuns, call_result, usage_delta
from automata.ui._change_writer import ChangeWriter

if TYPE_CHECKING:
    from automata.threads import ThreadView

__all__ = ["QUESTION_REASON", "ThreadEventWriter"]

QUESTION_REASON = "question"
"""The `reason` of the interrupt a thread's question (`ask_user`) ends a run with."""


class ThreadEventWriter(ChangeWriter[BaseEvent]):
    """Writes what is new in each view of the turn `diff` follows as AG-UI events
    (**U8**); `finish` ends the run, with an interrupt per pending approval or
    question (**U10**)."""

    def __init__(self, diff: changes.ThreadDiff, *, thread_id: str, run_id: str) -> None:
        super().__init__(diff)
        self._thread = thread_id
        self._run = run_id
        self._steps = Steps()
        self._text = TextRuns()
        self._parent: str | None = None
        self._streamed: set[str] = set()
        self._interrupts: list[Interrupt] = []

    def step_started(self, change: changes.StepStarted) -> Iterator[BaseEvent]:
        yield from self._text.close()
        self._parent = f"{self.diff.turn_id}.{change.step}"
        yield from self._steps.start(f"reply-{change.step}")

    def text_grew(self, change: changes.TextGrew) -> Iterator[BaseEvent]:
        if not change.reasoning:
            self._parent = change.item_id  # this reply's calls join its message
        yield from self._text.delta(change.item_id, change.reasoning, change.delta)

    def call_started(self, change: changes.CallStarted) -> Iterator[BaseEvent]:
        yield from self._text.close()
        yield ToolCallStartEvent(
            tool_call_id=change.call_id, tool_call_name=change.name, parent_message_id=self._parent
        )

    def arguments_grew(self, change: changes.ArgumentsGrew) -> Iterator[BaseEvent]:
        self._streamed.add(change.call_id)
        yield ToolCallArgsEvent(tool_call_id=change.call_id, delta=change.delta)

    def call_input(self, change: changes.CallInput) -> Iterator[BaseEvent]:
        if change.call_id not in self._streamed:
            arguments = json.dumps(change.input, ensure_ascii=False)
            yield ToolCallArgsEvent(tool_call_id=change.call_id, delta=arguments)
        yield ToolCallEndEvent(tool_call_id=change.call_id)

    def call_outcome(self, change: changes.CallOutcome) -> Iterator[BaseEvent]:
        yield from self._text.close()
        yield call_result(self._run, change.call_id, change.result)

    def activity_shown(self, change: changes.ActivityShown) -> Iterator[BaseEvent]:
        yield from self._text.close()
        yield activity_event(change.call_id, change.name, change.activity)

    def approval_asked(self, change: changes.ApprovalAsked) -> Iterator[BaseEvent]:
        self._interrupts.append(
            Interrupt(id=change.interaction_id, reason=APPROVAL_REASON, tool_call_id=change.call_id)
        )
        yield from ()

    def question_asked(self, change: changes.QuestionAsked) -> Iterator[BaseEvent]:
        self._interrupts.append(
            Interrupt(id=change.interaction_id, reason=QUESTION_REASON, message=change.question)
        )
        yield from ()

    def finish(self, view: ThreadView) -> Iterator[BaseEvent]:
        yield from self._text.close()
        yield from self._steps.finish()
        yield usage_delta(view.usage)
        if view.status == "failed":
            yield RunErrorEvent(message=f"the turn failed: {view.error or ''}")
            return
        outcome = (
            RunFinishedInterruptOutcome(interrupts=self._interrupts) if self._interrupts else None
        )
        yield RunFinishedEvent(thread_id=self._thread, run_id=self._run, outcome=outcome)
