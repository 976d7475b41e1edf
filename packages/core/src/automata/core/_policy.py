"""Tool execution policy: deadlines, call budgets, rate limits and parallelism.

A `ToolPolicy` bounds tool execution outside the model's prompt. Budgets are reserved
in the model's order before approval, so a denied or failed call still counts. The
total budget is shared atomically with sub-agents started through `as_tool`; per-tool
budgets, timeouts, rate limiters and parallelism stay local to the agent that set them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

from automata.core._threads import DEFAULT_MAX_SYNC_THREADS

__all__ = ["CallBudget", "RateLimiter", "ToolLimits", "ToolPolicy"]


class RateLimiter(Protocol):
    """Waits until a call may start. Its wait counts against the call's timeout; if it
    raises, the call fails with a recoverable error result and the tool never runs."""

    async def acquire(self, tool_name: str) -> None: ...


def _check_positive(name: str, value: float | None, *, allow_zero: bool = False) -> None:
    if value is None:
        return
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {value}")


@dataclass(frozen=True, slots=True)
class ToolLimits:
    """Limits for one tool; each set field overrides the policy-wide value."""

    timeout: float | None = None
    max_calls: int | None = None
    max_parallel: int | None = None
    rate_limiter: RateLimiter | None = None
    retries: int | None = None

    def __post_init__(self) -> None:
        _check_positive("timeout", self.timeout)
        _check_positive("max_calls", self.max_calls, allow_zero=True)
        _check_positive("max_parallel", self.max_parallel)
        _check_positive("retries", self.retries, allow_zero=True)


@dataclass(frozen=True, slots=True)
class ToolPolicy:
    """Bounds for a run's tool calls. The default policy bounds nothing.

    `timeout` (seconds) covers a call's rate-limit wait and execution; `max_calls` is the
    run's total budget; `max_parallel` caps concurrently running calls; `per_tool` adds
    limits for named tools. A per-run policy replaces the agent's whole policy.

    `max_sync_threads` (default 32) caps the threads the agent's sync tools (plain
    functions registered with `tool`) run on at once. Each sync call runs on a daemon
    thread of the agent's own, never on the event loop's default executor; a call that
    times out leaves its thread running (Python cannot stop one), and that thread keeps
    its place until the function returns. A call that finds every place taken waits for
    one, within its timeout.

    `retries` (default 1) is how many times in one run each tool may raise `ModelRetry`
    and have the model try again; one more fails the run with
    `ToolRetriesExceededError`. `ToolLimits.retries` overrides it for one tool.
    """

    timeout: float | None = None
    max_calls: int | None = None
    max_parallel: int | None = None
    rate_limiter: RateLimiter | None = None
    per_tool: Mapping[str, ToolLimits] = field(default_factory=lambda: MappingProxyType({}))
    max_sync_threads: int = DEFAULT_MAX_SYNC_THREADS
    retries: int = 1

    def __post_init__(self) -> None:
        _check_positive("retries", self.retries, allow_zero=True)
        _check_positive("timeout", self.timeout)
        _check_positive("max_calls", self.max_calls, allow_zero=True)
        _check_positive("max_parallel", self.max_parallel)
        _check_positive("max_sync_threads", self.max_sync_threads)
        object.__setattr__(self, "per_tool", MappingProxyType(dict(self.per_tool)))

    def limits_for(self, tool_name: str) -> ToolLimits:
        """The effective limits of one tool: its own, falling back to the policy's."""
        own = self.per_tool.get(tool_name, _NO_LIMITS)
        return ToolLimits(
            timeout=own.timeout if own.timeout is not None else self.timeout,
            max_calls=own.max_calls,
            max_parallel=own.max_parallel,
            rate_limiter=own.rate_limiter or self.rate_limiter,
            retries=own.retries if own.retries is not None else self.retries,
        )


_NO_LIMITS = ToolLimits()


class CallBudget:
    """Counts reserved tool calls for one run, chained to the budget of the run that
    started it (a sub-agent shares its parent's total). Reservation is atomic: it
    checks every level and then counts at every level, with no await in between."""

    __slots__ = ("_max_calls", "_parent", "_per_tool", "_per_tool_used", "_used")

    def __init__(
        self,
        max_calls: int | None,
        per_tool: Mapping[str, ToolLimits],
        parent: CallBudget | None = None,
    ) -> None:
        self._max_calls = max_calls
        self._per_tool = {
            n: lim.max_calls for n, lim in per_tool.items() if lim.max_calls is not None
        }
        self._per_tool_used: dict[str, int] = {}
        self._used = 0
        self._parent = parent

    @property
    def used(self) -> int:
        return self._used

    def _refusal(self, tool_name: str | None) -> str | None:
        # Per-tool limits are agent-local (a parent cannot see a child's tools), so
        # only the total is checked at parent levels (tool_name None).
        limit = self._per_tool.get(tool_name) if tool_name is not None else None
        if limit is not None and self._per_tool_used.get(tool_name or "", 0) >= limit:
            return f'tool budget exhausted for "{tool_name}": max calls {limit}'
        if self._max_calls is not None and self._used >= self._max_calls:
            return f"tool budget exhausted: max calls {self._max_calls}"
        if self._parent is not None:
            return self._parent._refusal(None)
        return None

    def reserve(self, tool_name: str) -> str | None:
        """Reserve one call; returns None on success, else why it was refused."""
        refusal = self._refusal(tool_name)
        if refusal is not None:
            return refusal
        level: CallBudget | None = self
        while level is not None:
            level._used += 1
            if level is self:
                level._per_tool_used[tool_name] = level._per_tool_used.get(tool_name, 0) + 1
            level = level._parent
        return None
