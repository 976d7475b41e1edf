"""AG-UI events (the official `ag-ui-protocol` types) written from an agent run's
events and steps: one assistant message per model turn, its text as
TEXT_MESSAGE_START/CONTENT/END, reasoning as REASONING_*, each call as
TOOL_CALL_START/ARGS/END and its outcome as TOOL_CALL_RESULT, each model turn and
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

from automata.core import (
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
from automata.ui._agui_parts import APPROVAL_REASON, Steps, TextRuns, call_result, usage_delta
from automata.ui._driver import Deferred, Failed, Finished, RunItem
from automata.ui._wire_values import approval_id, error_text

__all__ = ["APPROVAL_REASON", "AGUIEventWriter"]


class AGUIEventWriter:
    """Writes one run's items as AG-UI events (RUN_STARTED and the first
    STATE_SNAPSHOT are the caller's). Only the top-level agent's events are written."""

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

    def write(self, item: RunItem) -> Iterator[BaseEvent]:
        if isinstance(item, TextEvent | ThinkingEvent):
            if item.depth == 0 and item.text:
                yield from self._delta(isinstance(item, TextEvent), item.text)
        elif isinstance(item, ToolCallDeltaEvent):
            if item.depth == 0:
                yield from self._close_text()
                yield from self._call_start(item.call_id, item.name)
                yield ToolCallArgsEvent(tool_call_id=item.call_id, delta=item.delta)
        elif isinstance(item, ToolCallEvent):
            if item.depth == 0:
                yield from self._call_end(item.call)
        elif isinstance(item, ToolResultEvent):
            if item.depth == 0:
                yield from self._call_end(item.call)
                yield call_result(self._run, item.call.id, item.result)
        elif isinstance(item, UsageEvent):
            if item.depth == 0:
                self._usage = self._usage + item.usage
        elif isinstance(item, ModelStep):
            yield from self._model_step()
            yield from self._close_text()
            for call in item.tool_calls:
                yield from self._call_end(call)
            yield from self._end_step()
            self._message = None
            if item.tool_calls:
                yield from self._step("tools")
        elif isinstance(item, ToolStep):
            yield from self._end_step()
        elif isinstance(item, Deferred):
            yield from self._end_step()
            yield usage_delta(self._usage)
            outcome: Any
            if item.approvals:
                outcome = RunFinishedInterruptOutcome(
                    interrupts=[
                        Interrupt(
                            id=approval_id(call.id),
                            reason=APPROVAL_REASON,
                            message=f"Allow {call.name}?",
                            tool_call_id=call.id,
                        )
                        for call in item.approvals
                    ]
                )
            else:
                outcome = RunFinishedSuccessOutcome(
                    pending_tool_call_ids=[call.id for call in item.client_calls]
                )
            yield RunFinishedEvent(thread_id=self._thread, run_id=self._run, outcome=outcome)
        elif isinstance(item, Finished):
            yield from self._end_step()
            yield usage_delta(self._usage)
            output = item.result.output  # a text answer; a typed one stays in the messages
            yield RunFinishedEvent(
                thread_id=self._thread,
                run_id=self._run,
                result=output if isinstance(output, str) else None,
            )
        elif isinstance(item, Failed):
            yield from self._close_text()
            yield RunErrorEvent(message=error_text(item.error))

    def _step(self, kind: str) -> Iterator[BaseEvent]:
        yield from self._steps.start(f"{kind}-{self._turn}")

    def _end_step(self) -> Iterator[BaseEvent]:
        yield from self._close_text()
        yield from self._steps.finish()

    def _model_step(self) -> Iterator[BaseEvent]:
        if self._message is None:
            yield from self._end_step()
            self._turn += 1
            self._message = f"{self._run}-{self._turn}"
            yield from self._step("model")

    def _delta(self, text: bool, delta: str) -> Iterator[BaseEvent]:
        yield from self._model_step()
        message = self._message
        assert message is not None
        yield from self._text.delta(message if text else f"{message}-reasoning", not text, delta)

    def _close_text(self) -> Iterator[BaseEvent]:
        yield from self._text.close()

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
        yield from self._close_text()
        streamed = call.id in self._started
        yield from self._call_start(call.id, call.name)
        if not streamed:
            yield ToolCallArgsEvent(
                tool_call_id=call.id, delta=json.dumps(dict(call.input), ensure_ascii=False)
            )
        self._ended.add(call.id)
        yield ToolCallEndEvent(tool_call_id=call.id)
