"""Tool execution policy: budgets, timeouts, rate limits, parallelism; tool retry."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from pydantic import BaseModel

from automata.core import (
    Agent,
    Approval,
    FunctionTool,
    Message,
    RetryableError,
    RetryPolicy,
    ToolLimits,
    ToolPolicy,
    ToolUseBlock,
    as_tool,
    tool,
    with_tool_retry,
)
from automata.core.testing import (
    FunctionProvider,
    ScriptedProvider,
    tool_call,
    tool_calls,
    tool_results,
)


def _record(ran: list[int]) -> str:
    ran.append(1)
    return "ran"


def batch(name: str, count: int, start: int = 0) -> Message:
    return tool_calls(*(tool_call(str(i), name) for i in range(start, start + count)))


async def test_the_budget_is_reserved_in_model_order_before_approval() -> None:
    """L24."""
    approved: list[str] = []

    async def approver(call: ToolUseBlock, _: object) -> Approval:
        approved.append(call.id)
        return Approval.deny("no") if call.id == "0" else Approval.allow()

    agent = Agent(
        ScriptedProvider([batch("t", 3), Message.assistant("ok")]),
        tool_policy=ToolPolicy(max_calls=2),
        approver=approver,
    )
    agent.tool(lambda: "ran", name="t")
    result = await agent.run("go")
    assert sorted(approved) == ["0", "1"]  # the overflow call never reaches the approver
    assert tool_results(result.messages) == [
        ("0", "denied: no", True),  # a denied call still used its reservation
        ("1", "ran", False),
        ("2", "denied: tool budget exhausted: max calls 2", True),
    ]


async def test_the_total_budget_spans_the_runs_turns() -> None:
    """L22."""
    agent = Agent(
        ScriptedProvider([batch("t", 2), batch("t", 2, start=2), Message.assistant("ok")]),
        tool_policy=ToolPolicy(max_calls=3),
    )
    agent.tool(lambda: "ran", name="t")
    result = await agent.run("go")
    assert [e for _, _, e in tool_results(result.messages)] == [False, False, False, True]


async def test_a_per_tool_budget_names_the_tool() -> None:
    """L23."""
    agent = Agent(
        ScriptedProvider(
            [
                tool_calls(tool_call("1", "fetch"), tool_call("2", "fetch"), tool_call("3", "t")),
                Message.assistant("ok"),
            ]
        ),
        tool_policy=ToolPolicy(per_tool={"fetch": ToolLimits(max_calls=1)}),
    )
    agent.tool(lambda: "page", name="fetch")
    agent.tool(lambda: "ran", name="t")
    result = await agent.run("go")
    assert tool_results(result.messages) == [
        ("1", "page", False),
        ("2", 'denied: tool budget exhausted for "fetch": max calls 1', True),
        ("3", "ran", False),
    ]


@pytest.mark.looptime
async def test_a_slow_tool_is_cut_off_while_its_siblings_finish() -> None:
    """L27."""
    agent = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("1", "slow"), tool_call("2", "quick")), Message.assistant("ok")]
        ),
        tool_policy=ToolPolicy(per_tool={"slow": ToolLimits(timeout=0.05)}),
    )

    @agent.tool
    async def slow() -> str:
        await asyncio.sleep(10)
        return "late"

    @agent.tool
    async def quick() -> str:
        await asyncio.sleep(0.1)  # outlives the slow tool's deadline, and still finishes
        return "quick"

    result = await agent.run("go")
    assert tool_results(result.messages) == [
        ("1", 'tool "slow" timed out after 0.05s', True),
        ("2", "quick", False),
    ]


class SlowLimiter:
    def __init__(self, wait: float) -> None:
        self.wait = wait
        self.asked: list[str] = []

    async def acquire(self, tool_name: str) -> None:
        self.asked.append(tool_name)
        await asyncio.sleep(self.wait)


@pytest.mark.looptime
async def test_the_timeout_covers_the_rate_limiters_wait() -> None:
    """L27."""
    ran: list[int] = []
    limiter = SlowLimiter(10)
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "t")), Message.assistant("ok")]),
        tool_policy=ToolPolicy(timeout=0.05, rate_limiter=limiter),
    )
    agent.tool(lambda: _record(ran), name="t")
    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", 'tool "t" timed out after 0.05s', True)]
    assert limiter.asked == ["t"]
    assert ran == []


async def test_a_rate_limiter_is_asked_before_each_call() -> None:
    """L29."""
    limiter = SlowLimiter(0)
    agent = Agent(
        ScriptedProvider([batch("t", 3), Message.assistant("ok")]),
        tool_policy=ToolPolicy(per_tool={"t": ToolLimits(rate_limiter=limiter)}),
    )
    agent.tool(lambda: "ran", name="t")
    await agent.run("go")
    assert limiter.asked == ["t", "t", "t"]


async def test_a_failing_rate_limiter_is_a_recoverable_error_and_the_tool_never_runs() -> None:
    """L29."""

    class BrokenLimiter:
        async def acquire(self, tool_name: str) -> None:
            raise ConnectionError("redis unreachable")

    ran: list[int] = []
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "t")), Message.assistant("ok")]),
        tool_policy=ToolPolicy(rate_limiter=BrokenLimiter()),
    )
    agent.tool(lambda: _record(ran), name="t")
    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", "rate limiter failed: redis unreachable", True)]
    assert ran == []
    assert result.output == "ok"


async def parallel_peak(policy: ToolPolicy, calls: Message) -> dict[str, int]:
    running = {"now": 0, "peak": 0}
    agent = Agent(ScriptedProvider([calls, Message.assistant("ok")]), tool_policy=policy)

    async def work() -> str:
        running["now"] += 1
        running["peak"] = max(running["peak"], running["now"])
        await asyncio.sleep(0.01)
        running["now"] -= 1
        return "done"

    agent.add_tool(tool(work, name="a"))
    agent.add_tool(tool(work, name="b"))
    result = await agent.run("go")
    assert all(not e for _, _, e in tool_results(result.messages))
    return running


async def test_max_parallel_bounds_concurrently_running_calls() -> None:
    """L30."""
    assert (await parallel_peak(ToolPolicy(max_parallel=2), batch("a", 6)))["peak"] == 2


async def test_a_per_tool_parallel_cap_leaves_other_tools_free() -> None:
    """L30."""
    calls = tool_calls(*(tool_call(f"{n}{i}", n) for i in range(3) for n in ("a", "b")))
    policy = ToolPolicy(per_tool={"a": ToolLimits(max_parallel=1)})
    assert (await parallel_peak(policy, calls))["peak"] == 4  # one a + three b


async def test_a_per_run_policy_replaces_the_agents() -> None:
    """L6."""
    agent = Agent(
        ScriptedProvider([batch("t", 2), Message.assistant("ok")]),
        tool_policy=ToolPolicy(max_calls=1, timeout=5),
    )
    agent.tool(lambda: "ran", name="t")
    result = await agent.run("go", tool_policy=ToolPolicy(max_calls=5))
    assert [e for _, _, e in tool_results(result.messages)] == [False, False]


class Job(BaseModel):
    job: str


async def test_nested_sub_agents_in_parallel_share_the_parents_total_budget() -> None:
    """L25."""

    def worker_model(request):  # type: ignore[no-untyped-def]
        if request.messages[-1].role == "user":
            job = request.messages[-1].text
            return batch("work", 2, start=0) if job else Message.assistant("?")
        return Message.assistant("worked")

    worker = Agent(FunctionProvider(worker_model), name="worker")
    done: list[int] = []

    @worker.tool
    async def work() -> str:
        await asyncio.sleep(0)
        done.append(1)
        return "ok"

    parent = Agent(
        ScriptedProvider(
            [
                tool_calls(
                    tool_call("p1", "left", job="a"),
                    tool_call("p2", "right", job="b"),
                ),
                Message.assistant("all done"),
            ]
        ),
        tool_policy=ToolPolicy(max_calls=4),
    )
    parent.add_tool(as_tool(worker, "left", "Left worker", params=Job))
    parent.add_tool(as_tool(worker, "right", "Right worker", params=Job))
    result = await parent.run("go")
    assert result.output == "all done"
    # 2 reservations by the parent leave 2 for the four calls the children attempt
    assert len(done) == 2


async def test_a_childs_own_budget_is_stricter_than_the_shared_total() -> None:
    """L25."""
    worker_model = ScriptedProvider([batch("work", 3), Message.assistant("worked")])
    worker = Agent(worker_model, tool_policy=ToolPolicy(max_calls=1))
    worker.tool(lambda: "ok", name="work")
    parent = Agent(
        ScriptedProvider([tool_calls(tool_call("p1", "w", task="x")), Message.assistant("ok")]),
        tool_policy=ToolPolicy(max_calls=10),
    )
    parent.add_tool(as_tool(worker, "w", "Worker"))
    await parent.run("go")
    assert tool_results(worker_model.requests[1].messages) == [
        ("0", "ok", False),
        ("1", "denied: tool budget exhausted: max calls 1", True),
        ("2", "denied: tool budget exhausted: max calls 1", True),
    ]


@pytest.mark.parametrize(
    "bad",
    [{"timeout": 0}, {"timeout": -1}, {"max_calls": -1}, {"max_parallel": 0}],
)
def test_nonsensical_limits_are_refused(bad: dict[str, Any]) -> None:
    """L31."""
    with pytest.raises(ValueError, match=next(iter(bad))):
        ToolPolicy(**bad)
    with pytest.raises(ValueError, match=next(iter(bad))):
        ToolLimits(**bad)


# -- with_tool_retry -----------------------------------------------------------------


def flaky_tool(failures: int, error: Exception) -> tuple[list[float], FunctionTool]:
    attempts: list[float] = []

    async def flaky() -> str:
        attempts.append(time.monotonic())
        if len(attempts) <= failures:
            raise error
        return f"ok after {len(attempts)}"

    return attempts, tool(flaky)


async def test_a_retrying_tool_repeats_retryable_failures() -> None:
    """L32."""
    attempts, flaky = flaky_tool(2, RetryableError("busy"))
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "flaky")), Message.assistant("ok")]),
        tools=[with_tool_retry(flaky, RetryPolicy(max_attempts=3, base_delay=0, max_delay=0))],
    )
    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", "ok after 3", False)]
    assert len(attempts) == 3


async def test_a_retrying_tool_gives_up_after_max_attempts_with_the_last_error() -> None:
    """L32."""
    attempts, flaky = flaky_tool(5, RetryableError("still busy"))
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "flaky")), Message.assistant("ok")]),
        tools=[with_tool_retry(flaky, RetryPolicy(max_attempts=2, base_delay=0, max_delay=0))],
    )
    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", "still busy", True)]
    assert len(attempts) == 2


async def test_a_retrying_tool_does_not_retry_ordinary_errors() -> None:
    """L32."""
    attempts, flaky = flaky_tool(5, ValueError("bad input"))
    wrapped = with_tool_retry(flaky, RetryPolicy(max_attempts=5, base_delay=0, max_delay=0))
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "flaky")), Message.assistant("ok")]),
        tools=[wrapped],
    )
    await agent.run("go")
    assert len(attempts) == 1


async def test_a_retrying_tool_honours_retry_after() -> None:
    """L32."""
    attempts, flaky = flaky_tool(1, RetryableError("slow down", retry_after=0.05))
    wrapped = with_tool_retry(flaky, RetryPolicy(max_attempts=2, base_delay=0, max_delay=1))
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "flaky")), Message.assistant("ok")]),
        tools=[wrapped],
    )
    await agent.run("go")
    assert attempts[1] - attempts[0] >= 0.05


async def test_the_policy_timeout_covers_all_retry_attempts() -> None:
    """L27."""
    attempts, flaky = flaky_tool(100, RetryableError("busy"))
    wrapped = with_tool_retry(flaky, RetryPolicy(max_attempts=100, base_delay=0.02, jitter=0))
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "flaky")), Message.assistant("ok")]),
        tools=[wrapped],
        tool_policy=ToolPolicy(timeout=0.1),
    )
    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", 'tool "flaky" timed out after 0.1s', True)]
    assert 1 < len(attempts) < 100


def test_zero_or_negative_attempts_is_an_error_not_a_silent_success() -> None:
    """L32."""
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=-2)
