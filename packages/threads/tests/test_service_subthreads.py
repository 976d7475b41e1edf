"""Sub-agents as child threads: a tool runs another agent in a thread whose parent is
the calling thread; the child is an ordinary thread."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from automata.core import Agent, ModelRequest, Tool
from automata.core.testing import (
    FunctionProvider,
    Reply,
    ScriptedProvider,
    tool_call,
    tool_calls,
)
from automata.threads import AgentRequest, ThreadService, ThreadView, child_thread_tool

ServiceFor = Callable[..., Awaitable[ThreadService]]
Settle = Callable[..., Awaitable[ThreadView]]


async def test_a_sub_agent_runs_in_a_child_thread_and_answers_the_parent(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T21: the child thread has the parent's id, its own view, and its answer is the
    parent's tool result."""
    asked: list[AgentRequest] = []
    researcher = Agent(ScriptedProvider(["Paris has 2.1M people."]), name="researcher")
    tools: list[Tool] = []
    parent_script: list[Reply] = [
        tool_calls(tool_call("c1", "research", task="Population of Paris?")),
        "2.1M",
    ]
    parent_provider = ScriptedProvider(parent_script)

    def factory(request: AgentRequest) -> Agent[None]:
        asked.append(request)
        if request.agent == "research":
            return researcher
        return Agent(parent_provider, tools=tools)

    service = await service_for(factory)
    tools.append(child_thread_tool(service, "research", "Research a question."))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "How many people live in Paris?", request_key="s")
    done = await settle(service, thread.thread_id)
    call = next(item for item in done.items if item.kind == "tool_call")
    assert (call.status, call.result) == ("done", "Paris has 2.1M people.")
    children = (await service.list(parent_id=thread.thread_id)).threads
    assert len(children) == 1
    child = await service.view(children[0].thread_id)
    assert child.parent_id == thread.thread_id
    assert [(item.kind, item.text) for item in child.items] == [
        ("user", "Population of Paris?"),
        ("assistant", "Paris has 2.1M people."),
    ]
    assert [(r.agent, r.parent_id) for r in asked] == [
        (None, None),
        ("research", thread.thread_id),
    ]


async def test_cancelling_the_parent_cancels_the_child(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T21: the child's turn is cancelled with its parent's."""
    entered = asyncio.Event()

    async def hang(request: ModelRequest) -> str:
        entered.set()
        await asyncio.Event().wait()
        return "never"

    tools: list[Tool] = []
    parent_provider = ScriptedProvider([tool_calls(tool_call("c1", "research", task="slow"))])

    def factory(request: AgentRequest) -> Agent[None]:
        if request.agent == "research":
            return Agent(FunctionProvider(hang))
        return Agent(parent_provider, tools=tools)

    service = await service_for(factory)
    tools.append(child_thread_tool(service, "research", "Research a question."))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "go", request_key="s")
    await asyncio.wait_for(entered.wait(), 5)
    await service.cancel(thread.thread_id, request_key="x")
    child_id = (await service.list(parent_id=thread.thread_id)).threads[0].thread_id
    child = await settle(service, child_id)
    assert child.status == "cancelled"
