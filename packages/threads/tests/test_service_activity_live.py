"""A running call's activity is live in the thread's view (docs/threads.md, AC7): a
subscriber of the host running the turn sees the label, each row and the status as
the tool sets them, before the call ends; nothing of it is journaled until the call's
results are, and then exactly the latest activity, once."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import aclosing

from automata.core import Activity, ActivityRow, Agent, ToolContext, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import ThreadService, ThreadView, ViewItem
from automata.threads.store import ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
Settle = Callable[..., Awaitable[ThreadView]]


class Gates:
    """Lets the test step the tool: each `step()` lets it set its next fact."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()
        self.steps = 0

    def step(self) -> None:
        self.steps += 1
        self.opened.set()

    async def wait(self, count: int) -> None:
        while self.steps < count:
            self.opened.clear()
            await self.opened.wait()


def the_call(view: ThreadView) -> ViewItem | None:
    calls = [item for item in view.items if item.kind == "tool_call"]
    return calls[0] if calls else None


async def next_activity(views: object, wanted: Activity) -> ThreadView:
    """The first view whose call shows `wanted`, within 5 seconds."""
    async with asyncio.timeout(5.0):
        async for view in views:  # type: ignore[attr-defined]
            call = the_call(view)
            if call is not None and call.activity == wanted:
                return view  # type: ignore[no-any-return]
    raise AssertionError("the subscription ended first")


async def test_a_running_calls_activity_is_live_for_subscribers_and_journaled_once(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """AC7: label, rows and status as they come; no `activity` record before the
    results; after them the committed activity is the latest live one."""
    gates = Gates()

    async def watch(url: str, context: ToolContext) -> str:
        context.activity.label(f"Watching {url}")
        await gates.wait(1)
        context.activity.row("first")
        await gates.wait(2)
        context.activity.row("`second`", kind="markdown")
        context.activity.status("2 rows")
        await gates.wait(3)
        return "seen"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "watch", url="a.test")), "done"])
    service = await service_for(lambda r: Agent(provider, tools=[tool(watch, name="watch")]))
    thread = await service.create(request_key="c")
    async with aclosing(service.subscribe(thread.thread_id)) as views:
        await service.send(thread.thread_id, "go", request_key="s")
        labelled = await next_activity(views, Activity(label="Watching a.test"))
        assert the_call(labelled).status == "running"  # type: ignore[union-attr]
        assert labelled.live > 0
        gates.step()
        first = Activity(label="Watching a.test", rows=(ActivityRow("first"),))
        await next_activity(views, first)
        gates.step()
        both = Activity(
            label="Watching a.test",
            rows=(ActivityRow("first"), ActivityRow("`second`", "markdown")),
            status="2 rows",
        )
        shown = await next_activity(views, both)
        assert the_call(shown).status == "running"  # type: ignore[union-attr]
        journal = await store.read(thread.thread_id)
        assert "activity" not in [record.kind for record in journal]
        assert all("Watching" not in record.data for record in journal)
        gates.step()
    done = await settle(service, thread.thread_id)
    call = the_call(done)
    assert call is not None
    assert call.status == "done"
    assert call.activity == both
    assert done.live == 0
    kinds = [record.kind for record in await store.read(thread.thread_id)]
    assert kinds.count("activity") == 1
    assert (await (await service_for(lambda r: Agent(provider))).view(thread.thread_id)) == done


async def test_another_host_sees_a_running_calls_activity_only_once_committed(
    service_for: ServiceFor, settle: Settle
) -> None:
    """AC7: live activity is in the memory of the host running the turn only."""
    gates = Gates()

    async def watch(context: ToolContext) -> str:
        context.activity.label("Watching")
        await gates.wait(1)
        return "seen"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "watch")), "done"])
    service = await service_for(lambda r: Agent(provider, tools=[tool(watch, name="watch")]))
    other = await service_for(lambda r: Agent(provider))
    thread = await service.create(request_key="c")
    async with aclosing(service.subscribe(thread.thread_id)) as views:
        await service.send(thread.thread_id, "go", request_key="s")
        await next_activity(views, Activity(label="Watching"))
    elsewhere = the_call(await other.view(thread.thread_id))
    assert elsewhere is not None
    assert elsewhere.status == "running"
    assert elsewhere.activity is None
    gates.step()
    await settle(service, thread.thread_id)
    committed = the_call(await other.view(thread.thread_id))
    assert committed is not None
    assert committed.activity == Activity(label="Watching")
