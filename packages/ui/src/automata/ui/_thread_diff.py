"""A durable thread's turn, as it shows in successive `ThreadView`s, as the changes a
stream must send: each view is compared with what was sent already, and only what is
new comes out (text as deltas, a call's input once, its activity each time it
changes, its outcome once, a question to a person once). Both protocols' thread
streams are written from these changes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automata.core import Activity
    from automata.threads import ThreadView, ViewItem

__all__ = [
    "ActivityShown",
    "ApprovalAsked",
    "ArgumentsGrew",
    "CallInput",
    "CallOutcome",
    "CallStarted",
    "Change",
    "QuestionAsked",
    "StepStarted",
    "TextGrew",
    "ThreadDiff",
]


@dataclass(frozen=True, slots=True)
class StepStarted:
    """A new model reply of the turn begins (`step` is its number in the turn)."""

    step: str


@dataclass(frozen=True, slots=True)
class TextGrew:
    """Text (or, with `reasoning`, thinking) of item `item_id` grew by `delta`."""

    item_id: str
    reasoning: bool
    delta: str


@dataclass(frozen=True, slots=True)
class CallStarted:
    call_id: str
    name: str


@dataclass(frozen=True, slots=True)
class ArgumentsGrew:
    call_id: str
    delta: str


@dataclass(frozen=True, slots=True)
class CallInput:
    """The call's arguments are complete."""

    call_id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """The call has a result: `denied` when a person refused it, else `error` or not."""

    call_id: str
    result: str
    error: bool
    denied: bool


@dataclass(frozen=True, slots=True)
class ActivityShown:
    """The call shows a person something new: `activity` is everything so far."""

    call_id: str
    name: str
    activity: Activity


@dataclass(frozen=True, slots=True)
class ApprovalAsked:
    interaction_id: str
    call_id: str


@dataclass(frozen=True, slots=True)
class QuestionAsked:
    interaction_id: str
    question: str


Change = (
    StepStarted
    | TextGrew
    | CallStarted
    | ArgumentsGrew
    | CallInput
    | CallOutcome
    | ActivityShown
    | ApprovalAsked
    | QuestionAsked
)


def _reply_number(item: ViewItem) -> str:
    parts = item.id.split(".")
    return parts[1] if len(parts) == 3 else item.id


class ThreadDiff:
    """The changes of turn `turn_id` after ordinal `after` of view `first`: items at
    or before it were shown by an earlier response. With `earlier_outcomes` (this
    response continues that response's message) the outcomes of their calls still
    come out when they arrive; without (a new message), they do not."""

    def __init__(
        self, *, turn_id: str, after: int, first: ThreadView, earlier_outcomes: bool
    ) -> None:
        self.turn_id = turn_id
        self._after = after
        self._text: dict[str, int] = {}
        self._started: set[str] = set()
        self._complete: set[str] = set()
        self._outcomes: set[str] = set()
        self._asked: set[str] = set()
        self._shown: dict[str, Activity] = {}
        self._step: str | None = None
        for item in first.items:
            if item.turn_id == turn_id and item.ordinal <= after:
                self._text[item.id] = len(item.text)
                if item.call_id is not None and item.activity is not None:
                    self._shown[item.call_id] = item.activity
                if item.call_id is not None:
                    self._started.add(item.call_id)
                    self._complete.add(item.call_id)
                    if item.status in ("done", "error") or not earlier_outcomes:
                        self._outcomes.add(item.call_id)
                if item.interaction_id is not None:
                    self._asked.add(item.interaction_id)

    def done(self, view: ThreadView) -> bool:
        """The turn ran as far as it can without the front end: it ended, or it
        waits for a person, and is no longer queued."""
        if any(queued.turn_id == self.turn_id for queued in view.queue):
            return False
        return view.status != "running" or view.current_turn != self.turn_id

    def changes(self, view: ThreadView) -> Iterator[Change]:
        last_call: str | None = None
        for item in view.items:
            if item.turn_id != self.turn_id:
                continue
            if item.kind == "tool_call" and item.call_id is not None:
                last_call = item.call_id
                yield from self._call(item, item.call_id)
            elif item.ordinal <= self._after:
                continue
            elif item.kind in ("assistant", "thinking"):
                yield from self._text_item(item)
            elif item.kind == "interaction" and item.interaction_id is not None:
                yield from self._interaction(item, item.interaction_id, item.call_id or last_call)

    def _enter_step(self, item: ViewItem) -> Iterator[Change]:
        number = _reply_number(item)
        if number != self._step:
            self._step = number
            yield StepStarted(number)

    def _text_item(self, item: ViewItem) -> Iterator[Change]:
        sent = self._text.get(item.id, 0)
        if len(item.text) > sent:
            yield from self._enter_step(item)
            self._text[item.id] = len(item.text)
            yield TextGrew(item.id, item.kind == "thinking", item.text[sent:])

    def _call(self, item: ViewItem, call: str) -> Iterator[Change]:
        name = item.tool_name or ""
        if call not in self._started:
            yield from self._enter_step(item)
            self._started.add(call)
            yield CallStarted(call, name)
        if call not in self._complete:
            partial = item.partial_input or ""
            sent = self._text.get(item.id, 0)
            if len(partial) > sent:
                self._text[item.id] = len(partial)
                yield ArgumentsGrew(call, partial[sent:])
            if item.tool_input is not None and not item.live:
                self._complete.add(call)
                yield CallInput(call, name, item.tool_input)
        shown = item.activity
        if shown is not None and call in self._complete and self._shown.get(call) != shown:
            self._shown[call] = shown
            yield ActivityShown(call, name, shown)
        settled = item.status in ("done", "error")
        if settled and call in self._complete and call not in self._outcomes:
            self._outcomes.add(call)
            result = item.result or ""
            denied = item.status == "error" and result.startswith("denied:")
            yield CallOutcome(call, result, item.status == "error", denied)

    def _interaction(self, item: ViewItem, interaction: str, call: str | None) -> Iterator[Change]:
        if interaction in self._asked or item.status != "pending":
            return
        self._asked.add(interaction)
        if item.interaction_kind == "approval" and call is not None:
            yield ApprovalAsked(interaction, call)
        else:
            yield QuestionAsked(interaction, item.text)
