"""Agents registered by name on a worker, and the Temporal settings of each."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from automata.core import Agent, Handoff, RetryPolicy

__all__ = ["AgentRegistry", "TemporalAgent", "members"]

AgentFactory = Callable[[], Agent[Any]]


@dataclass(frozen=True)
class TemporalAgent:
    """An agent factory and how its run maps onto Temporal.

    `model_retry` retries provider calls (Temporal's retry policy, TP4); `tool_retry`
    retries the activities of idempotent tools only; `model_timeout` bounds one provider
    call; `default_tool_timeout` bounds a tool call whose policy sets no timeout;
    `heartbeat_timeout` is how soon a lost worker's activity is noticed (TP6); the calls
    of the tools named in `approval_required` wait for a `decide` signal (TP9); a call of
    a tool named in `child_agents` runs the registered agent it maps to as a child
    workflow (TP11). `output_type` makes every run of the agent typed (its output is the
    typed value as JSON, TP12); a run continues as new once its history holds
    `continue_as_new_after` events, or when Temporal suggests it (TP13).
    """

    factory: AgentFactory
    model_retry: RetryPolicy = field(default_factory=RetryPolicy)
    tool_retry: RetryPolicy = field(default_factory=RetryPolicy)
    model_timeout: float = 300.0
    default_tool_timeout: float = 300.0
    heartbeat_timeout: float = 30.0
    approval_required: frozenset[str] = frozenset()
    child_agents: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    output_type: type[Any] | None = None
    continue_as_new_after: int | None = None


class AgentRegistry:
    """Name → agent, on a worker: activities look the agent up by the name a workflow
    carries. Each agent is built once per registry, on first use, by its factory."""

    def __init__(self, agents: Mapping[str, TemporalAgent | AgentFactory] = MappingProxyType({})):
        self._entries: dict[str, TemporalAgent] = {}
        self._built: dict[str, Agent[Any]] = {}
        self._lock = threading.Lock()  # workflows and activities look agents up on threads
        for name, entry in agents.items():
            self.register(name, entry)

    def register(self, name: str, entry: TemporalAgent | AgentFactory) -> None:
        """Register `entry` as `name`; a name registered twice raises `ValueError`."""
        if name in self._entries:
            raise ValueError(f"agent {name!r} is already registered")
        self._entries[name] = entry if isinstance(entry, TemporalAgent) else TemporalAgent(entry)

    @property
    def names(self) -> Iterable[str]:
        """The registered names."""
        return tuple(self._entries)

    def entry(self, name: str) -> TemporalAgent:
        """The registration of `name`; `KeyError` naming the known ones otherwise."""
        if name not in self._entries:
            known = ", ".join(sorted(self._entries)) or "none"
            raise KeyError(f"no agent registered as {name!r} (registered: {known})")
        return self._entries[name]

    def agent(self, name: str) -> Agent[Any]:
        """The agent registered as `name`, built by its factory on first use; `KeyError`
        naming the known ones otherwise."""
        entry = self.entry(name)
        with self._lock:
            if name not in self._built:
                self._built[name] = entry.factory()
            return self._built[name]

    def member(self, name: str, member: str) -> Agent[Any]:
        """The agent named `member` among agent `name` and those it hands off to
        (directly or not); `KeyError` when there is none."""
        found = members(self.agent(name)).get(member)
        if found is None:
            raise KeyError(f"agent {name!r} hands off to no agent named {member!r}")
        return found


def members(agent: Agent[Any]) -> dict[str, Agent[Any]]:
    """`agent` and every agent its handoffs reach, by name (the first of a name wins)."""
    found: dict[str, Agent[Any]] = {}
    queue = [agent]
    while queue:
        current = queue.pop(0)
        if current.name in found:
            continue
        found[current.name] = current
        queue.extend(t.agent for t in current.tools if isinstance(t, Handoff))
    return found
