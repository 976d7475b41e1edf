"""Views, history and lists: derived from the journal, with ids and ordinals that are
the same live and after a reload; bounded pages; fork, import, title, delete."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import aclosing

import pytest

from automata.core import (
    Agent,
    InvalidArgumentError,
    Message,
    ModelResponse,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    Usage,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import (
    Host,
    ItemNotFoundError,
    PageBoundError,
    ThreadNotFoundError,
    ThreadService,
    ThreadView,
)
from automata.threads._records import encode, message_data
from automata.threads._recovery import error_results
from automata.threads.store import ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]


def weather(city: str) -> str:
    return {"Paris": "21C", "Rome": "25C"}[city]


def reply(message: Message, usage: Usage) -> ModelResponse:
    stop = StopReason.TOOL_USE if message.tool_calls else StopReason.END_TURN
    return ModelResponse(message=message, stop_reason=stop, raw_stop_reason=stop.value, usage=usage)


def weather_script() -> list[ModelResponse]:
    thinking = ThinkingBlock(thinking="Two cities.", signature="sig")
    calls = tool_calls(
        tool_call("c1", "weather", city="Paris"), tool_call("c2", "weather", city="Rome")
    )
    first = Message.assistant([thinking, *calls.content])
    return [
        reply(first, Usage(input_tokens=10, output_tokens=5, cache_read_tokens=3)),
        reply(
            Message.assistant("Paris 21C, Rome 25C."), Usage(input_tokens=20, cache_write_tokens=2)
        ),
    ]


async def test_a_view_is_the_same_live_and_after_a_reload(
    open_host: OpenHost, settle: Settle
) -> None:
    """T14: items keep their ids and ordinals when another host reads the journal;
    tool calls show their results; usage is totalled per thread."""
    first = await open_host()
    provider = ScriptedProvider(weather_script())
    service = first.thread_service(lambda r: Agent(provider, tools=[tool(weather)]))
    thread = await service.create(request_key="c", title="Weather")
    await service.send(thread.thread_id, "Weather?", request_key="s")
    live = await settle(service, thread.thread_id)
    assert [(item.kind, item.ordinal) for item in live.items] == [
        ("user", 0),
        ("thinking", 1),
        ("tool_call", 2),
        ("tool_call", 3),
        ("assistant", 4),
    ]
    assert [(item.status, item.result) for item in live.items if item.kind == "tool_call"] == [
        ("done", "21C"),
        ("done", "25C"),
    ]
    assert live.usage == Usage(
        input_tokens=30, output_tokens=5, cache_read_tokens=3, cache_write_tokens=2
    )
    await first.shutdown()
    second = await open_host()
    reloaded = await second.thread_service(lambda r: Agent(provider)).view(thread.thread_id)
    assert reloaded == live


async def test_item_ids_do_not_change_as_a_turn_grows(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T14: a running call's item keeps its id and ordinal when its result arrives."""
    started = asyncio.Event()
    release = asyncio.Event()

    async def slow(step: int) -> str:
        started.set()
        await release.wait()
        return "finished"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "slow", step=1)), "done"])
    service = await service_for(lambda r: Agent(provider, tools=[tool(slow)]))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "go", request_key="s")
    await asyncio.wait_for(started.wait(), 5)
    running = await service.view(thread.thread_id)
    call = next(item for item in running.items if item.kind == "tool_call")
    assert call.status == "running"
    release.set()
    done = await settle(service, thread.thread_id)
    finished = next(item for item in done.items if item.kind == "tool_call")
    assert (finished.id, finished.ordinal, finished.status) == (call.id, call.ordinal, "done")
    assert done.items[: len(running.items)] != running.items  # the same items, grown
    assert [i.id for i in done.items[: len(running.items)]] == [i.id for i in running.items]


async def test_history_pages_are_bounded(service_for: ServiceFor) -> None:
    """T15: pages within bounds, an error past them, never a silently short page."""
    service = await service_for(lambda r: Agent(ScriptedProvider([])))
    messages = [
        Message.user(f"q{i}") if i % 2 == 0 else Message.assistant(f"a{i}") for i in range(5)
    ]
    thread = await service.import_transcript(messages, request_key="i")
    page = await service.history(thread.thread_id, limit=2)
    assert [entry.index for entry in page.entries] == [0, 1]
    assert page.next_after == 2
    page = await service.history(thread.thread_id, after=4, limit=2)
    assert [entry.message.text for entry in page.entries] == ["q4"]
    assert page.next_after is None
    for bad in (0, 1001, True):
        with pytest.raises(PageBoundError):
            await service.history(thread.thread_id, limit=bad)
    with pytest.raises(PageBoundError):
        await service.history(thread.thread_id, after=6)


async def test_thread_lists_are_paged_newest_first(service_for: ServiceFor) -> None:
    """T15: `next_before` continues a list; a bad limit is an error."""
    service = await service_for(lambda r: Agent(ScriptedProvider([])))
    made = [await service.create(request_key=f"c{i}", title=f"t{i}") for i in range(5)]
    page = await service.list(limit=2)
    assert [t.title for t in page.threads] == ["t4", "t3"]
    page = await service.list(limit=2, before=page.next_before)
    assert [t.title for t in page.threads] == ["t2", "t1"]
    page = await service.list(limit=2, before=page.next_before)
    assert [t.title for t in page.threads] == ["t0"]
    assert page.next_before is None
    with pytest.raises(PageBoundError):
        await service.list(limit=0)
    child = await service.create(request_key="child", parent_id=made[0].thread_id)
    children = await service.list(parent_id=made[0].thread_id)
    assert [t.thread_id for t in children.threads] == [child.thread_id]
    assert child.parent_id == made[0].thread_id


async def test_fork_copies_the_transcript_up_to_an_item(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T16: a fork at a tool call includes that call's results; the source is unchanged."""
    provider = ScriptedProvider(weather_script())
    service = await service_for(lambda r: Agent(provider, tools=[tool(weather)]))
    thread = await service.create(request_key="c", title="Weather")
    await service.send(thread.thread_id, "Weather?", request_key="s")
    done = await settle(service, thread.thread_id)
    call = next(item for item in done.items if item.kind == "tool_call")
    fork = await service.fork(thread.thread_id, call.id, request_key="f")
    assert fork.thread_id != thread.thread_id
    assert fork.title == "Weather"
    assert [item.kind for item in fork.items] == ["user", "thinking", "tool_call", "tool_call"]
    assert all(item.status == "done" for item in fork.items if item.kind == "tool_call")
    history = await service.history(fork.thread_id)
    assert [entry.message.role for entry in history.entries] == ["user", "assistant", "tool"]
    assert (
        await service.fork(thread.thread_id, call.id, request_key="f")
    ).thread_id == fork.thread_id
    with pytest.raises(ItemNotFoundError):
        await service.fork(thread.thread_id, "999.0", request_key="f2")


async def test_import_refuses_what_cannot_be_continued(service_for: ServiceFor) -> None:
    """T16: no system message, no call without its result."""
    service = await service_for(lambda r: Agent(ScriptedProvider([])))
    with pytest.raises(InvalidArgumentError, match="system"):
        await service.import_transcript([Message.system("x")], request_key="i1")
    with pytest.raises(InvalidArgumentError, match="no result"):
        await service.import_transcript(
            [Message.user("hi"), tool_calls(tool_call("c1", "x"))], request_key="i2"
        )


async def test_title_and_delete(service_for: ServiceFor) -> None:
    """T16: a title shows in the view and the list; a deleted thread is gone."""
    service = await service_for(lambda r: Agent(ScriptedProvider([])))
    thread = await service.create(request_key="c")
    view = await service.set_title(thread.thread_id, "Renamed", request_key="t")
    assert view.title == "Renamed"
    assert [t.title for t in (await service.list()).threads] == ["Renamed"]
    await service.delete(thread.thread_id, request_key="d")
    await service.delete(thread.thread_id, request_key="d")  # a duplicate answers
    with pytest.raises(ThreadNotFoundError):
        await service.view(thread.thread_id)
    assert (await service.list()).threads == ()


async def test_subscribers_see_each_change(service_for: ServiceFor) -> None:
    """T17: a thread's subscription yields the view now and after each change; the
    thread list's subscription yields when threads come and go."""
    service = await service_for(lambda r: Agent(ScriptedProvider(["hi there"])))
    thread = await service.create(request_key="c")
    seen: list[str] = []
    async with aclosing(service.subscribe(thread.thread_id)) as views:
        first = await anext(views)
        assert first.items == ()
        await service.send(thread.thread_id, "hello", request_key="s")
        async for view in views:
            seen.append(view.status)
            if view.status == "done":
                break
    assert seen[-1] == "done"
    async with aclosing(service.subscribe_threads()) as pages:
        assert len((await anext(pages)).threads) == 1
        await service.create(request_key="c2", title="new")
        assert next(t.title for t in (await anext(pages)).threads) == "new"


async def test_changes_by_another_host_reach_a_subscriber(
    open_host: OpenHost,
) -> None:
    """T17: a subscriber polls the store, so another process's writes are seen."""
    factory = lambda r: Agent(ScriptedProvider([]))  # noqa: E731
    watcher = (await open_host()).thread_service(factory)
    writer = (await open_host()).thread_service(factory)
    thread = await writer.create(request_key="c")
    async with aclosing(watcher.subscribe(thread.thread_id)) as views:
        await anext(views)
        await writer.set_title(thread.thread_id, "from elsewhere", request_key="t")
        changed = await asyncio.wait_for(anext(views), 5)
    assert changed.title == "from elsewhere"


async def test_a_call_answered_twice_keeps_its_first_result(
    service_for: ServiceFor, store: ThreadStore
) -> None:
    """T6: when a cancel races the run's own results, the journal may answer a call
    twice; the view and the transcript keep the first answer."""
    service = await service_for(lambda r: Agent(ScriptedProvider([])))
    thread = await service.create(request_key="c")
    call = tool_call("c1", "weather", city="Paris")
    answered = Message(
        role="tool", content=(ToolResultBlock(tool_use_id="c1", content=(TextBlock(text="21C"),)),)
    )
    await store.append(
        thread.thread_id,
        [
            encode("input", message=message_data(Message.user("hi")), request_key="s"),
            encode("turn_started", turn="turn-2", run=1, surface={}, fingerprint=""),
            encode("step", turn="turn-2", message=message_data(tool_calls(call)), usage=None),
            encode("results", turn="turn-2", message=message_data(answered)),
            encode("results", turn="turn-2", message=message_data(error_results([call], "x"))),
            encode("turn_ended", turn="turn-2", status="cancelled", error="cancelled"),
        ],
    )
    view = await service.view(thread.thread_id)
    item = next(item for item in view.items if item.kind == "tool_call")
    assert (item.status, item.result) == ("done", "21C")
    history = await service.history(thread.thread_id)
    assert [entry.message.role for entry in history.entries] == ["user", "assistant", "tool"]


async def test_deleting_a_running_thread_stops_its_turn(
    service_for: ServiceFor, store: ThreadStore
) -> None:
    """T16: delete removes the thread while its turn runs; nothing is written after."""
    started = asyncio.Event()

    async def slow(step: int) -> str:
        started.set()
        await asyncio.sleep(10)
        return "late"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "slow", step=1)), "never"])
    service = await service_for(lambda r: Agent(provider, tools=[tool(slow)]))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "go", request_key="s")
    await asyncio.wait_for(started.wait(), 5)
    await service.delete(thread.thread_id, request_key="d")
    await asyncio.sleep(0.05)
    assert await store.thread(thread.thread_id) is None
    assert await store.claimable() == []
