"""Stream events: what a streaming run reports, as frozen values.

Every event names the `agent` that produced it, its run's `labels` and the
`invocation_id` of that agent's
run: a top-level run gets a fresh id; a sub-agent run started by a tool call uses the
parent's tool-call id, and `agent` is the tool's name. `depth` is 0 at the top level
and grows by one per nesting level. The ordering contract is in docs/streaming.md.
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass
from typing import Any, TypeVar

from automata.core._activity import Activity
from automata.core._artifacts import Artifact
from automata.core._blocks import Block, ToolUseBlock
from automata.core._labels import NO_LABELS, RunLabels
from automata.core._usage import Usage

__all__ = [
    "ActivityEvent",
    "CompactionEvent",
    "CompactionSummary",
    "HandoffEvent",
    "PartialOutputEvent",
    "StreamEvent",
    "TextEvent",
    "ThinkingEvent",
    "ToolCallDeltaEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "UsageEvent",
]


_E = TypeVar("_E")


def quick_init(cls: type[_E]) -> type[_E]:
    """Give a frozen, slotted dataclass an `__init__` with the same signature that
    fills its slots through their descriptors (for the events here, and the core's
    other frozen values built on every run).

    The generated one sets each field with `object.__setattr__`, which on a class that
    defines `__setattr__` (every frozen dataclass) walks the class's bases on each
    call: building an event cost about twice as much. A streamed run builds one per
    delta. Nothing else changes: the instance stays frozen, equal and hashable as
    before, and `dataclasses.replace` and pickling work as before. Fields with a
    `default_factory`, `init=False` or `__post_init__` are not supported."""
    generated = cls.__init__
    assert not hasattr(cls, "__post_init__"), cls
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    scope: dict[str, Any] = {}
    positional: list[str] = []
    keyword: list[str] = []
    for field in fields:
        assert field.init, field.name
        assert field.default_factory is dataclasses.MISSING, field.name
        scope[f"_set_{field.name}"] = inspect.getattr_static(cls, field.name).__set__
        parameter = field.name
        if field.default is not dataclasses.MISSING:
            scope[f"_default_{field.name}"] = field.default
            parameter += f"=_default_{field.name}"
        (keyword if field.kw_only else positional).append(parameter)
    parameters = ["self", *positional, *(["*", *keyword] if keyword else [])]
    lines = [f"def __init__({', '.join(parameters)}):"]
    lines += [f"    _set_{field.name}(self, {field.name})" for field in fields]
    exec("\n".join(lines), scope)  # as dataclasses builds the __init__ it generates
    quick = scope["__init__"]
    quick.__qualname__ = generated.__qualname__
    quick.__module__ = generated.__module__
    quick.__annotations__ = dict(generated.__annotations__)
    quick.__doc__ = generated.__doc__
    cls.__init__ = quick  # type: ignore[method-assign]
    return cls


@dataclass(frozen=True, slots=True, kw_only=True)
class _EventBase:
    agent: str
    invocation_id: str
    depth: int = 0
    labels: RunLabels = NO_LABELS
    """The run's correlation labels (docs/threads.md, RL2); empty for a run without."""


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TextEvent(_EventBase):
    """A fragment of the model's answer text."""

    text: str


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkingEvent(_EventBase):
    """A fragment of the model's reasoning."""

    text: str


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallDeltaEvent(_EventBase):
    """A fragment of a tool call's JSON arguments as the model writes them; the
    `ToolCallEvent` with the parsed input still follows once the call is complete."""

    call_id: str
    name: str
    delta: str


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallEvent(_EventBase):
    """The model asked for a tool call (announced before any call of the turn runs)."""

    call: ToolUseBlock


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultEvent(_EventBase):
    """A tool call finished. `result` is the text view, `blocks` the full content;
    `error` is the exception the tool raised, if it raised one. `artifacts` are the
    artifacts the tool returned, whole (`blocks` hold their previews)."""

    call: ToolUseBlock
    result: str
    blocks: tuple[Block, ...]
    is_error: bool
    error: BaseException | None = None
    artifacts: tuple[Artifact, ...] = ()


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PartialOutputEvent(_EventBase):
    """The typed output as far as the model has written it, validated leniently (an
    unfinished string or list item is kept); the run's final output is validated
    strictly as before."""

    output: Any


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class UsageEvent(_EventBase):
    """Tokens one model turn used (at most one per turn, after its text)."""

    usage: Usage


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class HandoffEvent(_EventBase):
    """The run handed the conversation from `from_agent` to `to_agent` (after the
    batch holding the handoff call). It is tagged with `from_agent`; the run's later
    events are tagged with `to_agent` and the same `invocation_id`."""

    from_agent: str
    to_agent: str


@dataclass(frozen=True, slots=True)
class CompactionSummary:
    """A summary a `Compactor` wrote: it stands for the first `covered` messages of a
    request (the system message included), whose content is identified by `key` (the
    hex of the compactor's hash chain over those messages). Hand it back with
    `Compactor.remember` and a new compactor reuses it instead of asking its
    summarizer again."""

    key: str
    covered: int
    summary: str


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionEvent(_EventBase):
    """A `Compactor` wrote a new summary for this run's request (before the provider
    call it compacts; a summary reused from memory gives none)."""

    summary: CompactionSummary


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ActivityEvent(_EventBase):
    """Tool call `call_id` (of tool `name`) changed what it shows a person: `activity`
    is everything it shows so far (cumulative; the latest event of a call stands).
    Sent by the tool through `ToolContext.activity`, between the call's `ToolCallEvent`
    and its `ToolResultEvent`."""

    call_id: str
    name: str
    activity: Activity


StreamEvent = (
    TextEvent
    | ThinkingEvent
    | ToolCallDeltaEvent
    | PartialOutputEvent
    | ToolCallEvent
    | ToolResultEvent
    | UsageEvent
    | HandoffEvent
    | CompactionEvent
    | ActivityEvent
)
