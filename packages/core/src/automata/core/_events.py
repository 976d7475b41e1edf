"""Stream events: what a streaming run reports, as frozen values.

Every event names the `agent` that produced it and the `invocation_id` of that agent's
run: a top-level run gets a fresh id; a sub-agent run started by a tool call uses the
parent's tool-call id, and `agent` is the tool's name. `depth` is 0 at the top level
and grows by one per nesting level. The ordering contract is in docs/streaming.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from automata.core._blocks import Block, ToolUseBlock
from automata.core._usage import Usage

__all__ = [
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


@dataclass(frozen=True, slots=True, kw_only=True)
class _EventBase:
    agent: str
    invocation_id: str
    depth: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class TextEvent(_EventBase):
    """A fragment of the model's answer text."""

    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkingEvent(_EventBase):
    """A fragment of the model's reasoning."""

    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallDeltaEvent(_EventBase):
    """A fragment of a tool call's JSON arguments as the model writes them; the
    `ToolCallEvent` with the parsed input still follows once the call is complete."""

    call_id: str
    name: str
    delta: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallEvent(_EventBase):
    """The model asked for a tool call (announced before any call of the turn runs)."""

    call: ToolUseBlock


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultEvent(_EventBase):
    """A tool call finished. `result` is the text view, `blocks` the full content;
    `error` is the exception the tool raised, if it raised one."""

    call: ToolUseBlock
    result: str
    blocks: tuple[Block, ...]
    is_error: bool
    error: BaseException | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PartialOutputEvent(_EventBase):
    """The typed output as far as the model has written it, validated leniently (an
    unfinished string or list item is kept); the run's final output is validated
    strictly as before."""

    output: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageEvent(_EventBase):
    """Tokens one model turn used (at most one per turn, after its text)."""

    usage: Usage


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


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionEvent(_EventBase):
    """A `Compactor` wrote a new summary for this run's request (before the provider
    call it compacts; a summary reused from memory gives none)."""

    summary: CompactionSummary


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
)
