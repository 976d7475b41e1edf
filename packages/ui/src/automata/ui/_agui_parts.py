"""The pieces both AG-UI writers (an agent run's, `_agui_events`, and a durable
thread's, `_agui_thread_events`) are made of: the text or reasoning message being
written, the step being run, a call's result and the usage state delta."""

from __future__ import annotations

from collections.abc import Iterator

from ag_ui.core import (
    BaseEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    StateDeltaEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallResultEvent,
)

from automata.core import Usage
from automata.ui._wire_values import usage_data

__all__ = ["APPROVAL_REASON", "Steps", "TextRuns", "call_result", "usage_delta"]

APPROVAL_REASON = "tool_approval"
"""The `reason` of the interrupt a call waiting for approval ends the run with."""


class TextRuns:
    """The one text (TEXT_MESSAGE_*) or reasoning (REASONING_*) message open at a
    time: `delta` opens message `message_id` (closing the one open before, when it is
    another or of the other kind) and writes to it; `close` ends it."""

    def __init__(self) -> None:
        self._open: tuple[str, bool] | None = None  # (message id, reasoning)

    def delta(self, message_id: str, reasoning: bool, delta: str) -> Iterator[BaseEvent]:
        if self._open != (message_id, reasoning):
            yield from self.close()
            self._open = (message_id, reasoning)
            if reasoning:
                yield ReasoningStartEvent(message_id=message_id)
                yield ReasoningMessageStartEvent(message_id=message_id, role="reasoning")
            else:
                yield TextMessageStartEvent(message_id=message_id, role="assistant")
        if reasoning:
            yield ReasoningMessageContentEvent(message_id=message_id, delta=delta)
        else:
            yield TextMessageContentEvent(message_id=message_id, delta=delta)

    def close(self) -> Iterator[BaseEvent]:
        if self._open is None:
            return
        message, reasoning = self._open
        self._open = None
        if reasoning:
            yield ReasoningMessageEndEvent(message_id=message)
            yield ReasoningEndEvent(message_id=message)
        else:
            yield TextMessageEndEvent(message_id=message)


class Steps:
    """The one step open at a time: `start` finishes the open one and starts `name`;
    `finish` ends the open one, if any."""

    def __init__(self) -> None:
        self.current: str | None = None

    def start(self, name: str) -> Iterator[BaseEvent]:
        yield from self.finish()
        self.current = name
        yield StepStartedEvent(step_name=name)

    def finish(self) -> Iterator[BaseEvent]:
        if self.current is not None:
            name, self.current = self.current, None
            yield StepFinishedEvent(step_name=name)


def call_result(run_id: str, call_id: str, content: str) -> ToolCallResultEvent:
    """The TOOL_CALL_RESULT of call `call_id` in run `run_id`."""
    return ToolCallResultEvent(
        message_id=f"{run_id}-result-{call_id}", tool_call_id=call_id, content=content, role="tool"
    )


def usage_delta(usage: Usage) -> StateDeltaEvent:
    """The STATE_DELTA adding `usage` to the state: a JSON Patch (RFC 6902)
    operation, validated into the protocol's own type."""
    patch = [{"op": "add", "path": "/usage", "value": usage_data(usage)}]
    return StateDeltaEvent.model_validate({"delta": patch})
