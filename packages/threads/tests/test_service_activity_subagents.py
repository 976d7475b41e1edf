"""Sub-agent management calls name their action and ordered targets (docs/threads.md,
AC8, AC9): `start_child_tool` starts a child and returns its id, `wait_children_tool`
waits on children in the order named, `stop_children_tool` stops them; ids that are
not the calling thread's children are refused and nothing is stopped."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

from automata.core import (
    Agent,
    ModelRequest,
    SubAgentOperation,
    TextBlock,
    Tool,
    ToolResultBlock,
    tool,
)
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import (
    AgentRequest,
    ThreadService,
    ThreadView,
    ViewItem,
    start_child_tool,
    stop_children_tool,
    wait_children_tool,
)

ServiceFor = Callable[..., Awaitable[ThreadService]]
Settle = Callable[..., Awaitable[ThreadView]]


def results(request: ModelRequest) -> list[str]:
    """The texts of the tool results in `request`, in order."""
    return [
        "".join(part.text for part in block.content if isinstance(part, TextBlock))
        for message in request.messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


def calls(view: ThreadView) -> list[ViewItem]:
    return [item for item in view.items if item.kind == "tool_call"]


def operations(view: ThreadView) -> list[SubAgentOperation | None]:
    return [None if c.activity is None else c.activity.operation for c in calls(view)]


async def never() -> str:
    await asyncio.Event().wait()
    return "never"


def child_agent(request: AgentRequest) -> Agent[None]:
    """`quick` answers its task; `slow` calls a tool that never returns."""

    async def model(asked: ModelRequest) -> Reply:
        text = asked.messages[-1].text
        if request.agent == "slow" and asked.messages[-1].role == "user":
            return tool_calls(tool_call("n1", "never"))
        return f"answer to {text}"

    return Agent(FunctionProvider(model), tools=[tool(never, name="never")])


async def test_start_wait_and_stop_calls_carry_their_action_and_ordered_targets(
    service_for: ServiceFor, settle: Settle
) -> None:
    """AC8: start (one id), wait (ids in the order named), stop (ids in order)."""
    found: list[Tool] = []

    async def parent_model(request: ModelRequest) -> Reply:
        seen = results(request)
        if not seen:
            return tool_calls(
                tool_call("s1", "quick", task="A"),
                tool_call("s2", "quick", task="B"),
                tool_call("s3", "slow", task="C"),
            )
        a, b, c = seen[:3]
        if len(seen) == 3:
            return tool_calls(tool_call("w1", "wait_children", thread_ids=[b, a]))
        if len(seen) == 4:
            return tool_calls(tool_call("x1", "stop_children", thread_ids=[c]))
        return "all done"

    def factory(request: AgentRequest) -> Agent[None]:
        if request.agent is not None:
            return child_agent(request)
        return Agent(FunctionProvider(parent_model), tools=found)

    service = await service_for(factory)
    found += [
        start_child_tool(service, "quick", "Answer quickly."),
        start_child_tool(service, "slow", "Work slowly."),
        wait_children_tool(service),
        stop_children_tool(service),
    ]
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "go", request_key="s")
    done = await settle(service, thread.thread_id)
    assert done.status == "done"
    started = [c.result for c in calls(done)[:3]]
    a, b, c = started
    assert a is not None
    assert b is not None
    assert c is not None
    assert operations(done) == [
        SubAgentOperation("start", (a,)),
        SubAgentOperation("start", (b,)),
        SubAgentOperation("start", (c,)),
        SubAgentOperation("wait", (b, a)),
        SubAgentOperation("stop", (c,)),
    ]
    waited, stopped = calls(done)[3:]
    assert json.loads(waited.result or "") == [
        {"thread_id": b, "status": "done", "answer": "answer to B"},
        {"thread_id": a, "status": "done", "answer": "answer to A"},
    ]
    assert waited.activity is not None
    assert waited.activity.status == "2 of 2 settled"
    assert json.loads(stopped.result or "") == [{"thread_id": c, "status": "cancelled"}]
    assert (await service.view(c)).status == "cancelled"
    other = await service_for(factory)
    assert operations(await other.view(thread.thread_id)) == operations(done)


async def test_a_wait_that_times_out_reports_the_children_still_running(
    service_for: ServiceFor, settle: Settle
) -> None:
    """AC8: a wait reports rather than fails when its children outlast it."""
    found: list[Tool] = []

    async def parent_model(request: ModelRequest) -> Reply:
        seen = results(request)
        if not seen:
            return tool_calls(tool_call("s1", "slow", task="C"))
        if len(seen) == 1:
            return tool_calls(
                tool_call("w1", "wait_children", thread_ids=seen, timeout_seconds=0.2)
            )
        return "later"

    def factory(request: AgentRequest) -> Agent[None]:
        if request.agent is not None:
            return child_agent(request)
        return Agent(FunctionProvider(parent_model), tools=found)

    service = await service_for(factory)
    found += [start_child_tool(service, "slow", "Work slowly."), wait_children_tool(service)]
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "go", request_key="s")
    done = await settle(service, thread.thread_id)
    started, waited = calls(done)
    assert json.loads(waited.result or "") == [
        {"thread_id": started.result, "status": "running", "answer": None}
    ]
    assert waited.activity is not None
    assert waited.activity.status == "0 of 1 settled"
    await service.cancel(started.result or "", request_key="end")


async def test_ids_that_are_not_the_threads_children_are_refused_and_nothing_is_stopped(
    service_for: ServiceFor, settle: Settle
) -> None:
    """AC9: a stranger, a repeated id or no id at all is an error the model sees."""
    found: list[Tool] = []
    stranger_box: list[str] = []

    async def parent_model(request: ModelRequest) -> Reply:
        seen = results(request)
        if not seen:
            return tool_calls(tool_call("s1", "slow", task="C"))
        if len(seen) == 1:
            mine, stranger = seen[0], stranger_box[0]
            return tool_calls(
                tool_call("x1", "stop_children", thread_ids=[mine, stranger]),
                tool_call("x2", "stop_children", thread_ids=[mine, mine]),
                tool_call("w1", "wait_children", thread_ids=[]),
                tool_call("w2", "wait_children", thread_ids=["th_missing"]),
            )
        return "refused"

    def factory(request: AgentRequest) -> Agent[None]:
        if request.agent is not None:
            return child_agent(request)
        return Agent(FunctionProvider(parent_model), tools=found)

    service = await service_for(factory)
    found += [
        start_child_tool(service, "slow", "Work slowly."),
        wait_children_tool(service),
        stop_children_tool(service),
    ]
    stranger_box.append((await service.create(request_key="other")).thread_id)
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "go", request_key="s")
    done = await settle(service, thread.thread_id)
    started, *refused = calls(done)
    assert [c.status for c in refused] == ["error"] * 4
    assert "is not a child thread" in (refused[0].result or "")
    assert "named twice" in (refused[1].result or "")
    assert "1 to 100" in (refused[2].result or "")
    assert "is not a child thread" in (refused[3].result or "")
    assert [c.activity for c in refused] == [None] * 4
    assert (await service.view(started.result or "")).status == "running"
    await service.cancel(started.result or "", request_key="end")
