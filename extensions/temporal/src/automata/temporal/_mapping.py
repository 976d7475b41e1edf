"""How an agent's settings map onto Temporal: timeouts, retry policies, idempotency."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from temporalio.common import RetryPolicy as TemporalRetryPolicy

from automata.temporal._types import AgentPlan, RetrySettings, ToolSettings

if TYPE_CHECKING:
    from automata.core import Agent, RetryPolicy
    from automata.temporal._registry import TemporalAgent

__all__ = ["plan_for", "retry_settings", "temporal_retry", "tool_retry"]

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


def plan_for(name: str, agent: Agent[Any], entry: TemporalAgent) -> AgentPlan:
    """The workflow's view of `agent`: its static system prompt, step bound, and for
    each tool the timeout (the per-tool limit, else the policy's, else the entry's
    default), idempotency and approval. A system prompt that is a function is refused:
    the workflow sends the same text on every replay."""
    prompt = agent.system_prompt
    if prompt is not None and not isinstance(prompt, str):
        raise TypeError(f"agent {name!r}: a Temporal run needs a static system prompt")
    policy = agent.tool_policy
    tools: dict[str, ToolSettings] = {}
    for candidate in agent.tools:
        limits = policy.per_tool.get(candidate.name)
        timeout = (limits.timeout if limits else None) or policy.timeout
        tools[candidate.name] = ToolSettings(
            timeout=timeout or entry.default_tool_timeout,
            idempotent=bool(getattr(candidate, "idempotent", False)),
            needs_approval=candidate.name in entry.approval_required,
            child_agent=entry.child_agents.get(candidate.name),
        )
    return AgentPlan(
        agent=name,
        system_prompt=prompt,
        max_steps=agent.max_steps,
        model_timeout=entry.model_timeout,
        model_retry=retry_settings(entry.model_retry),
        tool_retry=retry_settings(entry.tool_retry),
        heartbeat_timeout=entry.heartbeat_timeout,
        tools=tools,
        default_tool=ToolSettings(entry.default_tool_timeout, idempotent=True),
    )
