"""How an agent's settings map onto Temporal's timeouts and retry policies, and what
crosses between the workflow and the activities (no server)."""

from __future__ import annotations

from datetime import timedelta

from automata.core import (
    Agent,
    CallOptions,
    Message,
    ModelRequest,
    ModelResponse,
    OutputSchema,
    RetryPolicy,
    StopReason,
    TextBlock,
    ToolLimits,
    ToolPolicy,
    ToolResult,
    ToolSpec,
    Usage,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.temporal import (
    AgentRegistry,
    TemporalAgent,
    ToolSettings,
    retry_settings,
    temporal_retry,
    tool_retry,
    tool_settings,
    workflow_policy,
)
from automata.temporal._wire import (
    dump_request,
    dump_response,
    dump_result,
    load_request,
    load_response,
    load_result,
)


@tool
def pay(amount: int) -> str:
    """Pay (not idempotent)."""
    return "paid"


@tool(idempotent=True)
def read(key: str) -> str:
    """Read (idempotent)."""
    return key


@tool
def slow() -> str:
    """Slow."""
    return "done"


def planned(policy: ToolPolicy, **settings: object) -> dict[str, ToolSettings]:
    entry = TemporalAgent(
        lambda: Agent(ScriptedProvider([]), tools=[pay, read, slow], tool_policy=policy),
        **settings,  # type: ignore[arg-type]
    )
    agent = AgentRegistry({"a": entry}).agent("a")
    return {t.name: tool_settings(t, agent.tool_policy, entry) for t in agent.tools}


def test_a_tools_timeout_is_its_per_tool_limit_else_the_policys_else_the_default() -> None:
    """TP3: a call's `start_to_close_timeout` is the per-tool timeout, else the
    policy's, else the entry's `default_tool_timeout`."""
    policy = ToolPolicy(timeout=7, per_tool={"slow": ToolLimits(timeout=90)})
    plan = planned(policy)
    assert (plan["slow"].timeout, plan["pay"].timeout) == (90, 7)
    assert planned(ToolPolicy(), default_tool_timeout=42)["pay"].timeout == 42


def test_the_core_retry_policy_becomes_temporals() -> None:
    """TP4: attempts, first delay, growth and cap carry over; errors the activities mark
    non-retryable are never retried."""
    mapped = temporal_retry(
        retry_settings(RetryPolicy(max_attempts=4, base_delay=0.5, max_delay=8, multiplier=3))
    )
    assert mapped.maximum_attempts == 4
    assert mapped.initial_interval == timedelta(seconds=0.5)
    assert mapped.maximum_interval == timedelta(seconds=8)
    assert mapped.backoff_coefficient == 3
    assert mapped.non_retryable_error_types == ["automata.NonRetryable"]


def test_a_non_idempotent_tools_activity_is_attempted_once_and_an_idempotent_one_retries() -> None:
    """TP5: `maximum_attempts=1` for a tool not declared idempotent, whatever the agent's
    tool retry; an idempotent tool's activity gets the tool retry policy."""
    settings = retry_settings(RetryPolicy(max_attempts=5))
    plan = planned(ToolPolicy())
    assert plan["pay"] == ToolSettings(timeout=300.0, idempotent=False)
    assert tool_retry(plan["pay"], settings).maximum_attempts == 1
    assert tool_retry(plan["read"], settings).maximum_attempts == 5


def test_the_loop_in_the_workflow_keeps_the_policy_without_timeouts_and_rate_limiters() -> None:
    """TP3: `workflow_policy` drops every timeout and rate limiter (Temporal and the
    worker options bound those) and keeps budgets, parallelism and retry allowances."""

    class Limiter:
        async def acquire(self, tool_name: str) -> None:
            return None

    policy = ToolPolicy(
        timeout=5,
        max_calls=3,
        max_parallel=2,
        rate_limiter=Limiter(),
        retries=4,
        per_tool={"slow": ToolLimits(timeout=9, max_calls=1, rate_limiter=Limiter())},
    )
    kept = workflow_policy(policy)
    assert (kept.timeout, kept.rate_limiter) == (None, None)
    assert (kept.max_calls, kept.max_parallel, kept.retries) == (3, 2, 4)
    assert kept.per_tool["slow"] == ToolLimits(max_calls=1)


def test_requests_replies_and_results_cross_as_json_unchanged() -> None:
    """TP1: what the loop sends an activity and gets back is rebuilt equal on the other
    side: the request (messages, tools, options, output schema), the reply (message,
    stop reasons, usage, model, the provider that answered) and a tool's result (blocks,
    error flag)."""
    request = ModelRequest(
        messages=(Message.system("Be brief."), Message.user("hi")),
        tools=(ToolSpec("read", "Read.", {"type": "object", "properties": {}}),),
        options=CallOptions(temperature=0.5, tool_choice="read"),
        output_schema=OutputSchema("Answer", {"type": "object"}, strict_compatible=True),
    )
    reply = ModelResponse(
        message=tool_calls(tool_call("c1", "read", key="k")),
        stop_reason=StopReason.TOOL_USE,
        usage=Usage(input_tokens=3, output_tokens=2),
        raw_stop_reason="tool_use",
        model="m-1",
    )
    result = ToolResult(content=(TextBlock(text="no"),), is_error=True)
    assert load_request(dump_request(request)) == request
    assert load_response(dump_response(reply)) == reply
    assert load_result(dump_result(result)) == result
