"""AG-UI events (the official `ag-ui-protocol` types) written from an agent run's
events and steps: one assistant message per model turn, its text as
TEXT_MESSAGE_START/CONTENT/END, reasoning as REASONING_*, each call as
TOOL_CALL_START/ARGS/END and its outcome as TOOL_CALL_RESULT, a running call's
activity as ACTIVITY_SNAPSHOT (`_activity_parts`), each model turn and
tool batch between STEP_STARTED and STEP_FINISHED, and the run's usage as a
STATE_DELTA."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from automata.core import Activity, ModelStep, ToolResultEvent, ToolStep, ToolUseBlock, Usage
from automata.ui._activity_parts import activity_event
from automata.ui._agui_parts import APPROVAL_REASON, Steps, TextRuns, call_result, usage_delta
from automata.ui._driver import Deferred, Failed, Finished
from automata.ui._run_items import RunItemWriter
from automata.ui._wire_values import approval_id, error_text

__all__ = ["APPROVAL_REASON", "AGUIEventWriter"]


class AGUIEventWriter(RunItemWriter[BaseEvent]):
    """Writes one run's items as AG-UI events (RUN_STARTED and the first
    STATE_SNAPSHOT are the caller's; `write` is `RunItemWriter`'s). Only the
    top-level agent's events are written."""

    def __init__(self, *, thread_id: str, run_id: str) -> None:
        self._thread = thread_id
        self._run = run_id
        self._turn = 0
        self._message: str | None = None
        self._text = TextRuns()
        self._steps = Steps()
        self._started: set[str] = set()
        self._ended: set[str] = set()
        self._usage = Usage()

    def continue_calls(self, calls: tuple[ToolUseBlock, ...]) -> Iterator[BaseEvent]:
        """The calls a continued run runs first were announced by an earlier run."""
        self._started.update(call.id for call in calls)
        self._ended.update(call.id for call in calls)
        if calls:
            yield from self._step("tools")

    def text(self, reasoning: bool, delta: str) -> Iterator[BaseEvent]:
        yield from self._model_step()
        message = self._message
        assert message is not None
        part = f"{message}-reasoning" if reasoning else message
        yield from self._text.delta(part, reasoning, delta)

    def arguments(self, call_id: str, name: str, delta: str) -> Iterator[BaseEvent]:
        yield from self._text.close()
        yield from self._call_start(call_id, name)
        yield ToolCallArgsEvent(tool_call_id=call_id, delta=delta)

    def call(self, call: ToolUseBlock) -> Iterator[BaseEvent]:
        yield from self._call_end(call)

    def result(self, event: ToolResultEvent) -> Iterator[BaseEvent]:
        yield from self._call_end(event.call)
        yield call_result(self._run, event.call.id, event.result)

    def activity(self, call_id: str, name: str, activity: Activity) -> Iterator[BaseEvent]:
        yield from self._text.close()
        yield activity_event(call_id, name, activity)

    def usage(self, usage: Usage) -> Iterator[BaseEvent]:
        self._usage = self._usage + usage  # sent once, as the run ends
        yield from ()

    def model_step(self, step: ModelStep) -> Iterator[BaseEvent]:
        yield from self._model_step()
        yield from self._text.close()
        for call in step.tool_calls:
            yield from self._call_end(call)
        yield from self._end_step()
        self._message = None
        if step.tool_calls:
            yield from self._step("tools")

    def tool_step(self, step: ToolStep) -> Iterator[BaseEvent]:
        yield from self._end_step()

    def deferred(self, stopped: Deferred) -> Iterator[BaseEvent]:
        yield from self._end_step()
        yield usage_delta(self._usage)
        outcome: Any
        if stopped.approvals:
            outcome = RunFinishedInterruptOutcome(
                interrupts=[
                    Interrupt(
                        id=approval_id(call.id),
                        reason=APPROVAL_REASON,
                        message=f"Allow {call.name}?",
                        tool_call_id=call.id,
                    )
                    for call in stopped.approvals
                ]
            )
        else:
            outcome = RunFinishedSuccessOutcome(
                pending_tool_call_ids=[call.id for call in stopped.client_calls]
            )
        yield RunFinishedEvent(thread_id=self._thread, run_id=self._run, outcome=outcome)

    def finished(self, done: Finished) -> Iterator[BaseEvent]:
        yield from self._end_step()
        yield usage_delta(self._usage)
        output = done.result.output  # a text answer; a typed one stays in the messages
        yield RunFinishedEvent(
            thread_id=self._thread,
            run_id=self._run,
            result=output if isinstance(output, str) else None,
        )

    def failed(self, failure: Failed) -> Iterator[BaseEvent]:
        yield from self._text.close()
        yield RunErrorEvent(message=error_text(failure.error))

    def _step(self, kind: str) -> Iterator[BaseEvent]:
        yield from self._steps.start(f"{kind}-{self._turn}")

    def _end_step(self) -> Iterator[BaseEvent]:
        yield from self._text.close()
        yield from self._steps.finish()

    def _model_step(self) -> Iterator[BaseEvent]:
        if self._message is None:
            yield from self._end_step()
            self._turn += 1
            self._message = f"{self._run}-{self._turn}"
            yield from self._step("model")

    def _call_start(self, call_id: str, name: str) -> Iterator[BaseEvent]:
        yield from self._model_step()
        if call_id not in self._started:
            self._started.add(call_id)
            yield ToolCallStartEvent(
                tool_call_id=call_id, tool_call_name=name, parent_message_id=self._message
            )

    def _call_end(self, call: ToolUseBlock) -> Iterator[BaseEvent]:
        if call.id in self._ended:
            return
        yield from self._text.close()
        streamed = call.id in self._started
        yield from self._call_start(call.id, call.name)
        if not streamed:
            yield ToolCallArgsEvent(
                tool_call_id=call.id, delta=json.dumps(dict(call.input), ensure_ascii=False)
            )
        self._ended.add(call.id)
        yield ToolCallEndEvent(tool_call_id=call.id)
