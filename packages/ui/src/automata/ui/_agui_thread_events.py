"""A durable thread's turn written as AG-UI events, from its `ThreadDiff`: each model
reply a step and an assistant message, calls as TOOL_CALL_*, a parked call or a
question as an interrupt of RUN_FINISHED."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    StateDeltaEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from automata.ui._agui_events import APPROVAL_REASON
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

__all__ = ["QUESTION_REASON", "ThreadEventWriter"]

QUESTION_REASON = "question"
"""The `reason` of the interrupt a thread's question (`ask_user`) ends a run with."""


class ThreadEventWriter:
    """Writes what is new in each view of the turn `diff` follows as AG-UI events
    (**U8**); `finish` ends the run, with an interrupt per pending approval or
    question (**U10**)."""

    def __init__(self, diff: ThreadDiff, *, thread_id: str, run_id: str) -> None:
        self.diff = diff
        self._thread = thread_id
        self._run = run_id
        self._step: str | None = None
        self._open: tuple[str, bool] | None = None  # (message id, reasoning)
        self._parent: str | None = None
        self._streamed: set[str] = set()
        self._interrupts: list[Interrupt] = []

    def write(self, view: ThreadView) -> Iterator[BaseEvent]:
        for change in self.diff.changes(view):
            if isinstance(change, StepStarted):
                yield from self._end_step()
                self._step = f"reply-{change.step}"
                self._parent = f"{self.diff.turn_id}.{change.step}"
                yield StepStartedEvent(step_name=self._step)
            elif isinstance(change, TextGrew):
                yield from self._text(change)
            elif isinstance(change, CallStarted):
                yield from self._close()
                yield ToolCallStartEvent(
                    tool_call_id=change.call_id,
                    tool_call_name=change.name,
                    parent_message_id=self._parent,
                )
            elif isinstance(change, ArgumentsGrew):
                self._streamed.add(change.call_id)
                yield ToolCallArgsEvent(tool_call_id=change.call_id, delta=change.delta)
            elif isinstance(change, CallInput):
                if change.call_id not in self._streamed:
                    arguments = json.dumps(change.input, ensure_ascii=False)
                    yield ToolCallArgsEvent(tool_call_id=change.call_id, delta=arguments)
                yield ToolCallEndEvent(tool_call_id=change.call_id)
            elif isinstance(change, CallOutcome):
                yield from self._close()
                yield ToolCallResultEvent(
                    message_id=f"{self._run}-result-{change.call_id}",
                    tool_call_id=change.call_id,
                    content=change.result,
                    role="tool",
                )
            elif isinstance(change, ApprovalAsked):
                self._interrupts.append(
                    Interrupt(
                        id=change.interaction_id,
                        reason=APPROVAL_REASON,
                        tool_call_id=change.call_id,
                    )
                )
            elif isinstance(change, QuestionAsked):
                self._interrupts.append(
                    Interrupt(
                        id=change.interaction_id, reason=QUESTION_REASON, message=change.question
                    )
                )

    def finish(self, view: ThreadView) -> Iterator[BaseEvent]:
        yield from self._end_step()
        patch: list[dict[str, Any]] = [
            {"op": "add", "path": "/usage", "value": usage_data(view.usage)}
        ]
        yield StateDeltaEvent.model_validate({"delta": patch})
        if view.status == "failed":
            yield RunErrorEvent(message=f"the turn failed: {view.error or ''}")
            return
        outcome = (
            RunFinishedInterruptOutcome(interrupts=self._interrupts) if self._interrupts else None
        )
        yield RunFinishedEvent(thread_id=self._thread, run_id=self._run, outcome=outcome)

    def _text(self, change: TextGrew) -> Iterator[BaseEvent]:
        if self._open != (change.item_id, change.reasoning):
            yield from self._close()
            self._open = (change.item_id, change.reasoning)
            if change.reasoning:
                yield ReasoningStartEvent(message_id=change.item_id)
                yield ReasoningMessageStartEvent(message_id=change.item_id, role="reasoning")
            else:
                self._parent = change.item_id  # this reply's calls join its message
                yield TextMessageStartEvent(message_id=change.item_id, role="assistant")
        if change.reasoning:
            yield ReasoningMessageContentEvent(message_id=change.item_id, delta=change.delta)
        else:
            yield TextMessageContentEvent(message_id=change.item_id, delta=change.delta)

    def _close(self) -> Iterator[BaseEvent]:
        if self._open is not None:
            message, reasoning = self._open
            self._open = None
            if reasoning:
                yield ReasoningMessageEndEvent(message_id=message)
                yield ReasoningEndEvent(message_id=message)
            else:
                yield TextMessageEndEvent(message_id=message)

    def _end_step(self) -> Iterator[BaseEvent]:
        yield from self._close()
        if self._step is not None:
            name, self._step = self._step, None
            yield StepFinishedEvent(step_name=name)
