"""`RunItemWriter`: the one reading of an agent run's items (`drive`) both protocols'
run writers share. It keeps the top-level agent's events (depth 0: a sub-agent's
work shows as its call's input and output) and hands each item to the writer's
handler for its kind."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Generic, TypeVar

from automata.core import (
    Activity,
    ActivityEvent,
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
from automata.ui._driver import Deferred, Failed, Finished, RunItem

__all__ = ["RunItemWriter"]

Part = TypeVar("Part")


class RunItemWriter(ABC, Generic[Part]):
    """Writes a run's items as a protocol's parts (`Part`): `write` calls the handler
    of the item's kind and yields what it writes."""

    def write(self, item: RunItem) -> Iterator[Part]:
        if isinstance(item, TextEvent | ThinkingEvent):
            if item.depth == 0 and item.text:
                yield from self.text(isinstance(item, ThinkingEvent), item.text)
        elif isinstance(item, ToolCallDeltaEvent):
            if item.depth == 0:
                yield from self.arguments(item.call_id, item.name, item.delta)
        elif isinstance(item, ToolCallEvent):
            if item.depth == 0:
                yield from self.call(item.call)
        elif isinstance(item, ToolResultEvent):
            if item.depth == 0:
                yield from self.result(item)
        elif isinstance(item, ActivityEvent):
            if item.depth == 0:
                yield from self.activity(item.call_id, item.name, item.activity)
        elif isinstance(item, UsageEvent):
            if item.depth == 0:
                yield from self.usage(item.usage)
        elif isinstance(item, ModelStep):
            yield from self.model_step(item)
        elif isinstance(item, ToolStep):
            yield from self.tool_step(item)
        elif isinstance(item, Deferred):
            yield from self.deferred(item)
        elif isinstance(item, Finished):
            yield from self.finished(item)
        elif isinstance(item, Failed):
            yield from self.failed(item)

    @abstractmethod
    def text(self, reasoning: bool, delta: str) -> Iterator[Part]:
        """The model wrote `delta` of its text (or, with `reasoning`, thinking)."""

    @abstractmethod
    def arguments(self, call_id: str, name: str, delta: str) -> Iterator[Part]:
        """The model wrote `delta` of call `call_id`'s arguments."""

    @abstractmethod
    def call(self, call: ToolUseBlock) -> Iterator[Part]:
        """The call's arguments are complete."""

    @abstractmethod
    def result(self, event: ToolResultEvent) -> Iterator[Part]:
        """A call has its outcome."""

    @abstractmethod
    def activity(self, call_id: str, name: str, activity: Activity) -> Iterator[Part]:
        """A running call changed what it shows a person (everything so far)."""

    @abstractmethod
    def usage(self, usage: Usage) -> Iterator[Part]:
        """A model call's usage."""

    @abstractmethod
    def model_step(self, step: ModelStep) -> Iterator[Part]:
        """A model reply was committed."""

    @abstractmethod
    def tool_step(self, step: ToolStep) -> Iterator[Part]:
        """A tool batch was committed."""

    @abstractmethod
    def deferred(self, stopped: Deferred) -> Iterator[Part]:
        """The run stopped for the front end (approvals, client-side calls)."""

    @abstractmethod
    def finished(self, done: Finished) -> Iterator[Part]:
        """The run ended with its result."""

    @abstractmethod
    def failed(self, failure: Failed) -> Iterator[Part]:
        """The run failed."""
