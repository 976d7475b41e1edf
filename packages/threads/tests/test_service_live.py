"""Live deltas: the reply being written grows the same view item that its committed step
then fills in, with the same id and ordinal, also after a reload (docs/threads.md,
T14, T22-T24)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing

from automata.core import (
    Agent,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderStreamItem,
    StopReason,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallDelta,
    ToolUseBlock,
    tool,
)
from automata.threads import Host, ThreadService, ThreadView, ViewItem, require_approval
from automata.threads._records import encode, message_data
from automata.threads.store import ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]


class FedProvider:
    """Streams what the test puts on `feed`, item by item; a `ModelResponse` ends the
    reply, an exception breaks the stream. Every call streams (the runner asks for
    events)."""

    provider_name = "fed"
    model = None
    supports_streaming = True
    supports_native_output = False

    def __init__(self) -> None:
        self.feed: asyncio.Queue[ProviderStreamItem | Exception] = asyncio.Queue()
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("the runner streams")

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        self.requests.append(request)
        while True:
            item = await self.feed.get()
            if isinstance(item, Exception):
                raise item
            yield item
            if isinstance(item, ModelResponse):
                return


def reply(*blocks: TextBlock | ThinkingBlock | ToolUseBlock) -> ModelResponse:
    message = Message(role="assistant", content=blocks)
    stop = StopReason.TOOL_USE if message.tool_calls else StopReason.END_TURN
    return ModelResponse(message=message, stop_reason=stop)


async def until(
    service: ThreadService, thread_id: str, check: Callable[[ThreadView], bool]
) -> ThreadView:
    """The thread's view once `check` holds (within 5 seconds)."""
    async with asyncio.timeout(5.0):
        while True:
            view = await service.view(thread_id)
            if check(view):
                return view
            await asyncio.sleep(0.005)


def live_items(view: ThreadView) -> list[ViewItem]:
    return [item for item in view.items if item.live]


def text_of(view: ThreadView, item_id: str) -> str | None:
    item = shown(view, item_id)
    return None if item is None else item.text


def text_is(item_id: str, text: str) -> Callable[[ThreadView], bool]:
    return lambda view: text_of(view, item_id) == text


def shown(view: ThreadView, item_id: str) -> ViewItem | None:
    return next((item for item in view.items if item.id == item_id), None)


async def test_streamed_text_grows_one_item_that_keeps_its_id_and_ordinal_when_committed(
    open_host: OpenHost, settle: Settle
) -> None:
    """T22: thinking and text deltas grow live items with the ids and ordinals the
    committed reply's items have, through every delta, after the commit and after a
    reload by a new host; `live` counts the deltas merged, `version` only commits."""
    provider = FedProvider()
    host = await open_host()
    service = host.thread_service(lambda r: Agent(provider))
    thread = await service.create(request_key="c")
    sent = await service.send(thread.thread_id, "hello", request_key="s")
    turn = sent.current_turn
    assert [(item.id, item.kind) for item in sent.items] == [(f"{turn}.0.0", "user")]

    await provider.feed.put(ThinkingDelta("Let me "))
    await provider.feed.put(ThinkingDelta("think."))
    growing: list[ThreadView] = []
    steps = (("Hello", "Hello"), (" there", "Hello there"), (", world", "Hello there, world"))
    for delta, so_far in steps:
        await provider.feed.put(TextDelta(delta))
        growing.append(await until(service, thread.thread_id, text_is(f"{turn}.1.1", so_far)))
    for view in growing:
        assert [(i.id, i.ordinal, i.kind, i.live) for i in view.items] == [
            (f"{turn}.0.0", 0, "user", False),
            (f"{turn}.1.0", 1, "thinking", True),
            (f"{turn}.1.1", 2, "assistant", True),
        ]
        assert view.items[1].text == "Let me think."
        assert view.version == growing[0].version  # no commit while it grows
    assert [view.live for view in growing] == sorted({view.live for view in growing})
    assert growing[0].live >= 3

    await provider.feed.put(
        reply(ThinkingBlock(thinking="Let me think."), TextBlock(text="Hello there, world"))
    )
    done = await settle(service, thread.thread_id)
    assert [(i.id, i.ordinal, i.kind, i.live, i.text) for i in done.items] == [
        (f"{turn}.0.0", 0, "user", False, "hello"),
        (f"{turn}.1.0", 1, "thinking", False, "Let me think."),
        (f"{turn}.1.1", 2, "assistant", False, "Hello there, world"),
    ]
    assert done.live == 0
    assert done.version > growing[0].version
    await host.shutdown()
    again = await open_host()
    reloaded = await again.thread_service(lambda r: Agent(provider)).view(thread.thread_id)
    assert reloaded == done


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sun in {city}"


async def asking_the_weather(
    service_for: ServiceFor, provider: FedProvider
) -> tuple[ThreadService, str, str | None]:
    """A service whose agent has `weather`, with "Oslo?" sent to a new thread: the
    service, the thread's id and the turn's."""
    service = await service_for(lambda r: Agent(provider, tools=[weather]))
    thread = await service.create(request_key="c")
    turn = (await service.send(thread.thread_id, "Oslo?", request_key="s")).current_turn
    return service, thread.thread_id, turn


async def test_tool_call_argument_deltas_grow_the_tool_item_its_call_then_fills_in(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T22: a tool call being written is a live `tool_call` item whose `partial_input`
    grows; the committed call takes its place (same id and ordinal) with its input,
    status and result; the next reply is the turn's second (`<turn>.2.<block>`)."""
    provider = FedProvider()
    service, thread_id, turn = await asking_the_weather(service_for, provider)
    arguments = json.dumps({"city": "Oslo"})
    await provider.feed.put(TextDelta("Checking."))
    await provider.feed.put(ToolCallDelta("c1", "weather", arguments[:6]))
    first = await until(service, thread_id, lambda v: len(live_items(v)) == 2)
    await provider.feed.put(ToolCallDelta("c1", "weather", arguments[6:]))
    second = await until(
        service,
        thread_id,
        lambda v: getattr(shown(v, f"{turn}.1.1"), "partial_input", None) == arguments,
    )
    for view in (first, second):
        call = shown(view, f"{turn}.1.1")
        assert call is not None
        assert (call.ordinal, call.kind, call.tool_name, call.call_id, call.live) == (
            2,
            "tool_call",
            "weather",
            "c1",
            True,
        )
        assert call.tool_input is None
    assert getattr(shown(first, f"{turn}.1.1"), "partial_input", None) == arguments[:6]

    written = ToolUseBlock(id="c1", name="weather", input={"city": "Oslo"})
    await provider.feed.put(reply(TextBlock(text="Checking."), written))
    await provider.feed.put(TextDelta("Sunny."))
    answering = await until(service, thread_id, text_is(f"{turn}.2.0", "Sunny."))
    assert [(i.id, i.live) for i in live_items(answering)] == [(f"{turn}.2.0", True)]
    await provider.feed.put(reply(TextBlock(text="Sunny.")))
    done = await settle(service, thread_id)
    committed = shown(done, f"{turn}.1.1")
    assert committed is not None
    assert (committed.ordinal, committed.live, committed.partial_input) == (2, False, None)
    assert (committed.tool_input, committed.status, committed.result) == (
        {"city": "Oslo"},
        "done",
        "sun in Oslo",
    )
    assert [(i.id, i.ordinal, i.text) for i in done.items if i.kind == "assistant"] == [
        (f"{turn}.1.0", 1, "Checking."),
        (f"{turn}.2.0", 3, "Sunny."),
    ]


async def test_cancel_mid_stream_commits_the_streamed_thinking_and_text_as_a_stopped_reply(
    service_for: ServiceFor, open_host: OpenHost, store: ThreadStore
) -> None:
    """T26: a cancel while a reply streams commits what was streamed (thinking and
    text) as the turn's reply, under the ids its live items had, marked `stopped`; a
    reload through another host (another process) shows it the same, and the
    transcript holds it as an assistant message marked stopped."""
    provider = FedProvider()
    service = await service_for(lambda r: Agent(provider))
    thread = await service.create(request_key="c")
    turn = (await service.send(thread.thread_id, "hello", request_key="s")).current_turn
    await provider.feed.put(ThinkingDelta("Weighing it."))
    await provider.feed.put(TextDelta("half an ans"))
    await until(service, thread.thread_id, text_is(f"{turn}.1.1", "half an ans"))
    cancelled = await service.cancel(thread.thread_id, request_key="x")
    expected = [
        (f"{turn}.0.0", 0, "user", "hello", None, False),
        (f"{turn}.1.0", 1, "thinking", "Weighing it.", "stopped", False),
        (f"{turn}.1.1", 2, "assistant", "half an ans", "stopped", False),
    ]
    assert cancelled.status == "cancelled"
    assert cancelled.live == 0
    assert [(i.id, i.ordinal, i.kind, i.text, i.status, i.live) for i in cancelled.items] == (
        expected
    )
    other = (
        await (await open_host()).thread_service(lambda r: Agent(provider)).view(thread.thread_id)
    )
    assert other == cancelled
    kinds = [record.kind for record in await store.read(thread.thread_id)]
    assert kinds[-2:] == ["stopped", "turn_ended"]
    last = (await service.history(thread.thread_id)).entries[-1].message
    assert last.role == "assistant"
    assert last.extra == {"automata.threads": {"stopped": True}}
    assert [block.type for block in last.content] == ["thinking", "text"]


async def test_a_stopped_reply_leaves_the_call_being_written_out_and_the_next_turn_sends_it(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T26: a tool call still being written when the cancel comes is left out of the
    stopped reply (no call without a result is ever journaled), and the next turn's
    request holds the stopped text as a plain assistant message before the new
    input."""
    provider = FedProvider()
    service, thread_id, turn = await asking_the_weather(service_for, provider)
    await provider.feed.put(TextDelta("Let me check."))
    await provider.feed.put(ToolCallDelta("c1", "weather", '{"ci'))
    await until(service, thread_id, lambda v: len(live_items(v)) == 2)
    cancelled = await service.cancel(thread_id, request_key="x")
    assert [(i.id, i.kind, i.text, i.status) for i in cancelled.items] == [
        (f"{turn}.0.0", "user", "Oslo?", None),
        (f"{turn}.1.0", "assistant", "Let me check.", "stopped"),
    ]
    await service.send(thread_id, "go on", request_key="s2")
    await provider.feed.put(reply(TextBlock(text="Sunny.")))
    done = await settle(service, thread_id)
    assert done.status == "done"
    sent = provider.requests[-1].messages
    assert [(m.role, m.text) for m in sent if m.role != "system"] == [
        ("user", "Oslo?"),
        ("assistant", "Let me check."),
        ("user", "go on"),
    ]
    assert not any(isinstance(b, ToolUseBlock) for m in sent for b in m.content)


async def test_cancel_without_keep_draft_drops_the_draft_and_journals_none_of_it(
    service_for: ServiceFor, store: ThreadStore
) -> None:
    """T22, T26: `cancel(keep_draft=False)` while a reply streams ends the turn with no
    live item left, and nothing of the draft ever reached the journal."""
    provider = FedProvider()
    service = await service_for(lambda r: Agent(provider))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "hello", request_key="s")
    await provider.feed.put(TextDelta("half an ans"))
    await until(service, thread.thread_id, lambda v: bool(live_items(v)))
    cancelled = await service.cancel(thread.thread_id, request_key="x", keep_draft=False)
    assert cancelled.status == "cancelled"
    assert (live_items(cancelled), cancelled.live) == ([], 0)
    assert [item.kind for item in cancelled.items] == ["user"]
    later = await until(service, thread.thread_id, lambda v: v.version == cancelled.version)
    assert live_items(later) == []
    records = await store.read(thread.thread_id, after=0, limit=100)
    assert "half an ans" not in "".join(json.dumps(r.data) for r in records)


async def test_a_stopped_reply_that_lost_the_race_to_the_runs_own_commit_is_left_out(
    service_for: ServiceFor, store: ThreadStore
) -> None:
    """T26: when the run's own commit of a reply gets into the journal before the
    cancel that carries that reply's draft, the committed reply stands and the draft
    is left out of the transcript and the view, in every process."""
    thread = await (await service_for(lambda r: Agent(FedProvider()))).create(request_key="c")
    thread_id = thread.thread_id
    sent = await store.append(
        thread_id, [encode("input", message=message_data(Message.user("hi")))]
    )
    turn = f"turn-{sent.last_seq}"
    full = Message.assistant("the whole answer")
    draft = Message(
        role="assistant",
        content=(TextBlock(text="the wh"),),
        extra={"automata.threads": {"stopped": True}},
    )
    await store.append(
        thread_id,
        [
            encode("turn_started", turn=turn, run=1, surface={}, fingerprint=""),
            encode(
                "step", turn=turn, message=message_data(full), usage=None, stop_reason="end_turn"
            ),
            encode("stopped", turn=turn, reply=1, message=message_data(draft)),
            encode("turn_ended", turn=turn, status="cancelled", error="cancelled"),
        ],
    )
    view = await (await service_for(lambda r: Agent(FedProvider()))).view(thread_id)
    assert [(i.id, i.kind, i.text, i.status) for i in view.items] == [
        (f"{turn}.0.0", "user", "hi", None),
        (f"{turn}.1.0", "assistant", "the whole answer", None),
    ]


async def test_a_failed_stream_drops_the_draft_and_keeps_the_partial_reply_under_its_id(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T22: a stream that breaks after text arrived fails the turn; the partial reply
    the run keeps is journaled under the id its live item had, and no live item is
    left."""
    provider = FedProvider()
    service = await service_for(lambda r: Agent(provider))
    thread = await service.create(request_key="c")
    turn = (await service.send(thread.thread_id, "hello", request_key="s")).current_turn
    await provider.feed.put(TextDelta("half"))
    live = await until(service, thread.thread_id, lambda v: bool(live_items(v)))
    assert [(i.id, i.ordinal) for i in live_items(live)] == [(f"{turn}.1.0", 1)]
    await provider.feed.put(ConnectionError("the connection dropped"))
    failed = await settle(service, thread.thread_id)
    assert failed.status == "failed"
    assert [(i.id, i.ordinal, i.text, i.live) for i in failed.items] == [
        (f"{turn}.0.0", 0, "hello", False),
        (f"{turn}.1.0", 1, "half", False),
    ]


async def test_another_host_shows_only_committed_items(
    service_for: ServiceFor, open_host: OpenHost
) -> None:
    """T24: the draft lives in the memory of the host running the turn; a view read
    through another host (another process) shows committed items only."""
    provider = FedProvider()
    service = await service_for(lambda r: Agent(provider))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "hello", request_key="s")
    await provider.feed.put(TextDelta("streaming"))
    here = await until(service, thread.thread_id, lambda v: bool(live_items(v)))
    other = (
        await (await open_host()).thread_service(lambda r: Agent(provider)).view(thread.thread_id)
    )
    assert (live_items(other), other.live) == ([], 0)
    assert [i.id for i in other.items] == [i.id for i in here.items if not i.live]
    assert other.version == here.version
    await provider.feed.put(reply(TextBlock(text="streaming")))


class PacedProvider:
    """Streams `count` one-character deltas `pause` seconds apart, then waits for
    `finish` before ending the reply."""

    provider_name = "paced"
    model = None
    supports_streaming = True
    supports_native_output = False

    def __init__(self, count: int, pause: float) -> None:
        self.count = count
        self.pause = pause
        self.finish = asyncio.Event()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("the runner streams")

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        for _ in range(self.count):
            yield TextDelta("x")
            await asyncio.sleep(self.pause)
        await self.finish.wait()
        yield reply(TextBlock(text="x" * self.count))


async def test_subscribers_get_coalesced_views_and_always_the_latest_delta(
    service_for: ServiceFor,
) -> None:
    """T23: 60 deltas in quick succession wake a subscriber at most once per
    `live_interval` (here 0.2 s), and the last delta is shown once the stream pauses,
    without waiting for the commit."""
    provider = PacedProvider(count=60, pause=0.002)
    service = await service_for(lambda r: Agent(provider), live_interval=0.2)
    thread = await service.create(request_key="c")
    views: list[ThreadView] = []
    streamed = 0.0
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(10.0), aclosing(service.subscribe(thread.thread_id)) as updates:
        started = loop.time()
        await service.send(thread.thread_id, "go", request_key="s")
        async for view in updates:
            views.append(view)
            if any(item.live and item.text == "x" * 60 for item in view.items):
                streamed = loop.time() - started
                provider.finish.set()
            if view.status == "done":
                break
    live = [view for view in views if view.live]
    # one at the first delta, one per interval after it, one after the last delta,
    # and one woken by the turn's start commit that may already hold a draft
    assert 1 <= len(live) <= streamed / 0.2 + 3
    assert live[-1].items[-1].text == "x" * 60
    assert [view.live for view in live] == sorted(view.live for view in live)
    assert views[-1].items[-1].text == "x" * 60
    assert not views[-1].items[-1].live


async def test_a_turn_parked_for_approval_shows_its_committed_call_and_no_draft(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T22: a reply whose call needs approval parks the turn; the streamed call's item is
    the committed one (same id and ordinal) and no draft is left behind."""
    provider = FedProvider()

    def charge(amount: int) -> str:
        return f"charged {amount}"

    service = await service_for(
        lambda r: Agent(provider, tools=[tool(charge)], approver=require_approval("charge"))
    )
    thread = await service.create(request_key="c")
    turn = (await service.send(thread.thread_id, "pay", request_key="s")).current_turn
    await provider.feed.put(ToolCallDelta("c1", "charge", '{"amount": 5}'))
    writing = await until(service, thread.thread_id, lambda v: bool(live_items(v)))
    assert [(i.id, i.ordinal, i.partial_input) for i in live_items(writing)] == [
        (f"{turn}.1.0", 1, '{"amount": 5}')
    ]
    written = ToolUseBlock(id="c1", name="charge", input={"amount": 5})
    await provider.feed.put(reply(written))
    parked = await settle(service, thread.thread_id)
    assert parked.status == "waiting"
    assert parked.live == 0
    assert [(i.id, i.ordinal, i.kind, i.live) for i in parked.items][1] == (
        f"{turn}.1.0",
        1,
        "tool_call",
        False,
    )
    assert parked.items[-1].kind == "interaction"
