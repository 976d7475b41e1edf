"""`ChangeWriter`: the one reading of a followed turn's changes (`ThreadDiff`) both
protocols' thread writers share: each view's changes, in order, handed to the
writer's handler for their kind."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import TYPE_CHECKING, Generic, TypeVar

from automata.ui._thread_diff import (
    ActivityShown,
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

if TYPE_CHECKING:
    from automata.threads import ThreadView

__all__ = ["ChangeWriter"]

Part = TypeVar("Part")


class ChangeWriter(ABC, Generic[Part]):
    """Writes what is new in each view of the turn `diff` follows as a protocol's
    parts (`Part`); `finish` ends the stream."""

    def __init__(self, diff: ThreadDiff) -> None:
        self.diff = diff

    def write(self, view: ThreadView) -> Iterator[Part]:
        for change in self.diff.changes(view):
            if isinstance(change, StepStarted):
                yield from self.step_started(change)
            elif isinstance(change, TextGrew):
                yield from self.text_grew(change)
            elif isinstance(change, CallStarted):
                yield from self.call_started(change)
            elif isinstance(change, ArgumentsGrew):
                yield from self.arguments_grew(change)
            elif isinstance(change, CallInput):
                yield from self.call_input(change)
            elif isinstance(change, CallOutcome):
                yield from self.call_outcome(change)
            elif isinstance(change, ActivityShown):
                yield from self.activity_shown(change)
            elif isinstance(change, ApprovalAsked):
                yield from self.approval_asked(change)
            elif isinstance(change, QuestionAsked):
                yield from self.question_asked(change)

    @abstractmethod
    def finish(self, view: ThreadView) -> Iterator[Part]:
        """The end of the stream, once the turn is done (`ThreadDiff.done`)."""

    @abstractmethod
    def step_started(self, change: StepStarted) -> Iterator[Part]: ...

    @abstractmethod
    def text_grew(self, change: TextGrew) -> Iterator[Part]: ...

    @abstractmethod
    def call_started(self, change: CallStarted) -> Iterator[Part]: ...

    @abstractmethod
    def arguments_grew(self, change: ArgumentsGrew) -> Iterator[Part]: ...

    @abstractmethod
    def call_input(self, change: CallInput) -> Iterator[Part]: ...

    @abstractmethod
    def call_outcome(self, change: CallOutcome) -> Iterator[Part]: ...

    @abstractmethod
    def activity_shown(self, change: ActivityShown) -> Iterator[Part]: ...

    @abstractmethod
    def approval_asked(self, change: ApprovalAsked) -> Iterator[Part]: ...

    @abstractmethod
    def question_asked(self, change: QuestionAsked) -> Iterator[Part]: ...
