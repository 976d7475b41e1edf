"""Usage limits per run (docs/loop.md, L57-L61)."""

from __future__ import annotations

import pytest

from automata.core import (
    Agent,
    ArgumentTypeError,
    InvalidArgumentError,
    Message,
    ModelResponse,
    StopReason,
    Usage,
    UsageLimitExceeded,
    UsageLimits,
    as_tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


def calls_forever(turns: int) -> list[Message]:
    return [tool_calls(tool_call(f"c{n}", "t")) for n in range(1, turns + 1)]


def spending(
    message: Message, *, input_tokens: int = 0, output_tokens: int = 0, cached: int = 0
) -> ModelResponse:
    return ModelResponse(
        message=message,
        stop_reason=StopReason.TOOL_USE if message.tool_calls else StopReason.END_TURN,
        usage=Usage(
            input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=cached
        ),
    )


def tool_agent(provider: ScriptedProvider, **options: object) -> Agent:
    agent = Agent(provider, **options)  # type: ignore[arg-type]
    agent.tool(lambda: "ok", name="t")
    return agent


async def test_max_requests_stops_the_run_before_the_request_that_would_exceed_it() -> None:
    """L57: checked before each request; the request is never sent."""
    provider = ScriptedProvider(calls_forever(5))
    agent = tool_agent(provider)
    with pytest.raises(UsageLimitExceeded) as caught:
        await agent.run("go", usage_limits=UsageLimits(max_requests=2))
    assert str(caught.value) == "usage limit exceeded: max_requests=2, the run would make request 3"
    assert (caught.value.limit, caught.value.maximum, caught.value.used) == ("max_requests", 2, 3)
    assert len(provider.requests) == 2


async def test_the_error_carries_the_partial_result_with_a_valid_transcript() -> None:
    """L58."""
    agent = tool_agent(ScriptedProvider(calls_forever(5)))
    with pytest.raises(UsageLimitExceeded) as caught:
        await agent.run("go", usage_limits=UsageLimits(max_requests=2))
    result = caught.value.result
    assert result is not None
    assert result.steps == 2
    assert result.stop_reason is StopReason.ERROR
    assert tool_results(result.messages) == [("c1", "ok", False), ("c2", "ok", False)]
    agent.session(messages=result.messages)  # resumable: every call has its result


async def test_token_limits_are_checked_after_each_response() -> None:
    """L59: the reply that crossed the limit is counted but not committed."""
    provider = ScriptedProvider(
        [
            spending(tool_calls(tool_call("c1", "t")), input_tokens=60, output_tokens=10),
            spending(tool_calls(tool_call("c2", "t")), input_tokens=70, output_tokens=10),
        ]
    )
    agent = tool_agent(provider)
    with pytest.raises(UsageLimitExceeded) as caught:
        await agent.run("go", usage_limits=UsageLimits(max_total_tokens=100))
    assert str(caught.value) == "usage limit exceeded: max_total_tokens=100, 150 used"
    result = caught.value.result
    assert result is not None
    assert result.usage == Usage(input_tokens=130, output_tokens=20)
    assert [m.role for m in result.messages] == ["user", "assistant", "tool"]


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        (UsageLimits(max_input_tokens=50), "usage limit exceeded: max_input_tokens=50, 60 used"),
        (UsageLimits(max_output_tokens=5), "usage limit exceeded: max_output_tokens=5, 10 used"),
    ],
)
async def test_input_and_output_tokens_have_their_own_limits(
    limits: UsageLimits, message: str
) -> None:
    """L59: input tokens include cached ones."""
    provider = ScriptedProvider(
        [spending(Message.assistant("hi"), input_tokens=40, cached=20, output_tokens=10)]
    )
    with pytest.raises(UsageLimitExceeded) as caught:
        await Agent(provider).run("go", usage_limits=limits)
    assert str(caught.value) == message


async def test_a_run_within_its_limits_is_untouched() -> None:
    """L57."""
    provider = ScriptedProvider([spending(Message.assistant("hi"), input_tokens=5)])
    result = await Agent(provider).run("go", usage_limits=UsageLimits(max_requests=1))
    assert result.output == "hi"


async def test_the_agents_limits_apply_unless_a_run_gives_its_own() -> None:
    """L60: a run's limits replace the agent's whole."""
    agent = tool_agent(ScriptedProvider(calls_forever(3)), usage_limits=UsageLimits(max_requests=1))
    with pytest.raises(UsageLimitExceeded, match="max_requests=1,"):
        await agent.run("go")
    agent = tool_agent(ScriptedProvider(calls_forever(3)), usage_limits=UsageLimits(max_requests=1))
    with pytest.raises(UsageLimitExceeded, match="max_requests=2,"):
        await agent.run("go", usage_limits=UsageLimits(max_requests=2))


def test_limits_must_be_positive_ints() -> None:
    """L60."""
    with pytest.raises(InvalidArgumentError) as low:
        UsageLimits(max_requests=0)
    assert str(low.value) == "UsageLimits.max_requests must be at least 1, got 0"
    with pytest.raises(ArgumentTypeError) as kind:
        UsageLimits(max_total_tokens=1.5)  # type: ignore[arg-type]
    assert str(kind.value) == (
        "UsageLimits.max_total_tokens must be an int (at least 1) or None, got 1.5 (float)"
    )


def child_and_parent(*, share: bool) -> tuple[ScriptedProvider, Agent]:
    child_provider = ScriptedProvider(
        [
            spending(tool_calls(tool_call("k1", "t")), input_tokens=10),
            spending(Message.assistant("child done"), input_tokens=10),
        ]
    )
    child = tool_agent(child_provider)
    parent = Agent(
        ScriptedProvider(
            [
                spending(tool_calls(tool_call("p1", "child", task="x")), input_tokens=10),
                spending(Message.assistant("parent done"), input_tokens=10),
            ]
        ),
        tools=[as_tool(child, "child", "A helper.", share_usage_limits=share)],
    )
    return child_provider, parent


async def test_a_sub_agent_sharing_limits_counts_against_its_parents() -> None:
    """L61: the parent's second request would be the fourth of the run and its helper."""
    child_provider, parent = child_and_parent(share=True)
    with pytest.raises(UsageLimitExceeded) as caught:
        await parent.run("go", usage_limits=UsageLimits(max_requests=3))
    assert str(caught.value) == "usage limit exceeded: max_requests=3, the run would make request 4"
    assert len(child_provider.requests) == 2


async def test_a_sub_agent_that_hits_the_shared_limit_fails_its_call_only() -> None:
    """L61: inside the tool the limit is the sub-agent's error, reported to the parent's
    model as the tool's error result; the parent's next request then stops the run."""
    child_provider, parent = child_and_parent(share=True)
    with pytest.raises(UsageLimitExceeded) as caught:
        await parent.run("go", usage_limits=UsageLimits(max_requests=2))
    assert len(child_provider.requests) == 1
    result = caught.value.result
    assert result is not None
    assert tool_results(result.messages) == [
        ("p1", "usage limit exceeded: max_requests=2, the run would make request 3", True)
    ]


async def test_a_sub_agent_not_sharing_limits_spends_on_its_own() -> None:
    """L61."""
    child_provider, parent = child_and_parent(share=False)
    result = await parent.run("go", usage_limits=UsageLimits(max_requests=2))
    assert result.output == "parent done"
    assert len(child_provider.requests) == 2


async def test_shared_tokens_count_against_the_parents_token_limit() -> None:
    """L61: 10 (parent) + 20 (sub-agent) + 10 (parent) input tokens."""
    _, parent = child_and_parent(share=True)
    with pytest.raises(UsageLimitExceeded) as caught:
        await parent.run("go", usage_limits=UsageLimits(max_input_tokens=35))
    assert str(caught.value) == "usage limit exceeded: max_input_tokens=35, 40 used"
