"""How an agent's settings map onto Temporal: timeouts, retry policies, idempotency."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING

from temporalio.common import RetryPolicy as TemporalRetryPolicy

from automata.core import ToolPolicy
from automata.temporal._types import RetrySettings, ToolSettings

if TYPE_CHECKING:
    from automata.core import RetryPolicy, Tool
    from automata.temporal._registry import TemporalAgent

__all__ = [
    "retry_settings",
    "temporal_retry",
    "tool_retry",
    "tool_settings",
    "workflow_policy",
]

NON_RETRYABLE = "automata.NonRetryable"
"""The error type name of activity failures Temporal must not retry."""


def retry_settings(policy: RetryPolicy) -> RetrySettings:
    """A core `RetryPolicy` as plain settings (its jitter and `max_elapsed` are dropped:
    Temporal's backoff has no jitter, and its bound is the activity's timeouts)."""
    return RetrySettings(
        max_attempts=policy.max_attempts,
        base_delay=policy.base_delay,
        max_delay=max(policy.max_delay, policy.base_delay),
        multiplier=max(policy.multiplier, 1.0),
    )


def temporal_retry(settings: RetrySettings) -> TemporalRetryPolicy:
    """Temporal's retry policy for `settings`: same attempts, first delay, growth and cap;
    errors marked non-retryable by the activities are never retried."""
    return TemporalRetryPolicy(
        initial_interval=timedelta(seconds=settings.base_delay),
        backoff_coefficient=settings.multiplier,
        maximum_interval=timedelta(seconds=settings.max_delay),
        maximum_attempts=settings.max_attempts,
        non_retryable_error_types=[NON_RETRYABLE],
    )


def tool_retry(tool: ToolSettings, settings: RetrySettings) -> TemporalRetryPolicy:
    """The retry policy of one tool call's activity: the agent's tool retry for an
    idempotent tool, exactly one attempt for any other (TP5)."""
    if tool.idempotent:
        return temporal_retry(settings)
    return TemporalRetryPolicy(maximum_attempts=1)


def tool_settings(tool: Tool, policy: ToolPolicy, entry: TemporalAgent) -> ToolSettings:
    """How calls of `tool` (of an agent with `policy`) run: the timeout is the per-tool
    limit, else the policy's, else the entry's default (TP3); idempotency is the tool's
    own declaration (TP5); approval and child agent come from the entry (TP9, TP11)."""
    limits = policy.per_tool.get(tool.name)
    timeout = (limits.timeout if limits else None) or policy.timeout
    return ToolSettings(
        timeout=timeout or entry.default_tool_timeout,
        idempotent=bool(getattr(tool, "idempotent", False)),
        needs_approval=tool.name in entry.approval_required,
        child_agent=entry.child_agents.get(tool.name),
    )


def workflow_policy(policy: ToolPolicy) -> ToolPolicy:
    """The tool policy the loop in the workflow keeps: `policy` without its timeouts
    (the activities' `start_to_close_timeout`s, TP3) and rate limiters (a process's
    objects; Temporal bounds activities per worker and per task queue instead), with its
    budgets, parallelism and `ModelRetry` allowances (TP12)."""
    per_tool = {
        name: replace(limits, timeout=None, rate_limiter=None)
        for name, limits in policy.per_tool.items()
    }
    return replace(policy, timeout=None, rate_limiter=None, per_tool=per_tool)
