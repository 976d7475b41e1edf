"""`StreamAccumulator`: folds stream events into one view per agent invocation.

Lanes are keyed by `(agent, invocation_id)`: top-level lanes first, then the others in
the order they were first seen. Text and thinking are concatenated, tool calls are
paired with their results (a result whose call was never announced is still
recorded), a call's streamed argument text is kept until the call is announced, and
usage is summed; the latest partial typed output is kept, and compaction summaries
written for the lane's requests are counted. A call's latest `ActivityEvent` is its
`ToolCallView.activity`, kept when its result arrives. A handoff marks the lane it
leaves (`AgentView.handed_off_to`); `current_agent` names the agent answering the
top-level run now. Views are frozen copies;
`add` and every read take a lock, so another thread or task may read while a run
streams.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any

from automata.core._activity import Activity
from automata.core._blocks import Block, ToolUseBlock
from automata.core._events import (
    ActivityEvent,
    CompactionEvent,
    HandoffEvent,
    PartialOutputEvent,
    StreamEvent,
    TextEvent,
    ThinkingEvent,
    ToolCallDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from automata.core._usage import Usage

__all__ = ["AgentView", "StreamAccumulator", "ToolCallView"]


@dataclass(frozen=True, slots=True)
class ToolCallView:
    """One tool call as seen so far. `done` once its result arrived; `call` is None
    for a result whose call was never announced, and for a call whose arguments are
    still streaming. `arguments` is the argument text streamed so far; it is cleared
    when the call is announced, whose `call.input` is the parsed value. `activity` is
    what the call shows a person (its latest `ActivityEvent`), None before any."""

    id: str
    name: str
    call: ToolUseBlock | None
    done: bool = False
    result: str = ""
    blocks: tuple[Block, ...] = ()
    is_error: bool = False
    arguments: str = ""
    activity: Activity | None = None


@dataclass(frozen=True, slots=True)
class AgentView:
    """One agent invocation's lane: its text, reasoning, tool calls and usage, the
    latest partial typed output (None until one arrived), the agent it handed the
    conversation to (None unless it did), and how many compaction summaries were
    written for its requests (`CompactionEvent`s)."""

    agent: str
    invocation_id: str
    depth: int
    text: str
    thinking: str
    tool_calls: tuple[ToolCallView, ...]
    usage: Usage
    partial_output: Any = None
    handed_off_to: str | None = None
    compactions: int = 0


@dataclass(slots=True)
class _Lane:
    agent: str
    invocation_id: str
    depth: int
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    calls: dict[str, ToolCallView] = field(default_factory=dict)
    arguments: dict[str, list[str]] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    partial_output: Any = None
    handed_off_to: str | None = None
    compactions: int = 0

    def view(self) -> AgentView:
        calls = tuple(self.calls.values())
        if self.arguments:
            partial = self.arguments
            calls = tuple(
                replace(c, arguments=_joined(partial[c.id])) if c.id in partial else c
                for c in calls
            )
        return AgentView(
            agent=self.agent,
            invocation_id=self.invocation_id,
            depth=self.depth,
            text=_joined(self.text),
            thinking=_joined(self.thinking),
            tool_calls=calls,
            usage=self.usage,
            partial_output=self.partial_output,
            handed_off_to=self.handed_off_to,
            compactions=self.compactions,
        )


def _joined(parts: list[str]) -> str:
    """The parts as one string, folded in place so repeated reads stay linear."""
    if len(parts) > 1:
        parts[:] = ["".join(parts)]
    return parts[0] if parts else ""


class StreamAccumulator:
    """Folds `StreamEvent`s into per-invocation views, safely across threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lanes: dict[tuple[str, str], _Lane] = {}
        self._current: str | None = None

    def add(self, event: StreamEvent) -> None:
        """Fold one event into its lane (created on first sight)."""
        key = (event.agent, event.invocation_id)
        with self._lock:
            lane = self._lanes.get(key)
            if lane is None:
                lane = self._lanes[key] = _Lane(event.agent, event.invocation_id, event.depth)
            if event.depth == 0 and self._current is None:
                self._current = event.agent
            if isinstance(event, TextEvent):
                lane.text.append(event.text)
            elif isinstance(event, ThinkingEvent):
                lane.thinking.append(event.text)
            elif isinstance(event, ToolCallDeltaEvent):
                parts = lane.arguments.get(event.call_id)
                if parts is None:
                    parts = lane.arguments[event.call_id] = []
                    if event.call_id not in lane.calls:
                        lane.calls[event.call_id] = ToolCallView(
                            id=event.call_id, name=event.name, call=None
                        )
                parts.append(event.delta)
            elif isinstance(event, ToolCallEvent):
                call = event.call
                lane.arguments.pop(call.id, None)
                known = lane.calls.get(call.id)
                if known is not None and (known.done or known.activity is not None):
                    # the result (or activity) was recorded first: keep it, with its call
                    lane.calls[call.id] = replace(known, call=call)
                else:
                    lane.calls[call.id] = ToolCallView(id=call.id, name=call.name, call=call)
            elif isinstance(event, ToolResultEvent):
                call = event.call
                known = lane.calls.get(call.id)
                lane.calls[call.id] = ToolCallView(
                    id=call.id,
                    name=call.name,
                    call=known.call if known is not None else None,
                    done=True,
                    result=event.result,
                    blocks=event.blocks,
                    is_error=event.is_error,
                    activity=known.activity if known is not None else None,
                )
            elif isinstance(event, ActivityEvent):
                known = lane.calls.get(event.call_id)
                if known is None:
                    known = ToolCallView(id=event.call_id, name=event.name, call=None)
                lane.calls[event.call_id] = replace(known, activity=event.activity)
            elif isinstance(event, UsageEvent):
                lane.usage = lane.usage + event.usage
            elif isinstance(event, PartialOutputEvent):
                lane.partial_output = event.output
            elif isinstance(event, HandoffEvent):
                lane.handed_off_to = event.to_agent
                if event.depth == 0:
                    self._current = event.to_agent
            elif isinstance(event, CompactionEvent):
                lane.compactions += 1

    @property
    def current_agent(self) -> str | None:
        """The agent answering the top-level run: the first one seen at depth 0, then
        the one each top-level handoff went to (None before any top-level event)."""
        with self._lock:
            return self._current

    def views(self) -> list[AgentView]:
        """Every lane: top level first, then in the order first seen."""
        with self._lock:
            lanes = list(self._lanes.values())
            ordered = sorted(lanes, key=lambda lane: lane.depth != 0)  # stable
            return [lane.view() for lane in ordered]

    def view(self, agent: str, invocation_id: str) -> AgentView | None:
        """One lane, or None if no event of it was seen."""
        with self._lock:
            lane = self._lanes.get((agent, invocation_id))
            return lane.view() if lane is not None else None

    def views_for(self, agent: str) -> list[AgentView]:
        """Every lane of one agent (e.g. parallel calls to the same sub-agent)."""
        return [v for v in self.views() if v.agent == agent]

    def totals(self) -> Usage:
        """Usage summed over every lane."""
        with self._lock:
            total = Usage()
            for lane in self._lanes.values():
                total = total + lane.usage
            return total
