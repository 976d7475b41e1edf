"""`StreamAccumulator`: folding stream events into per-invocation views
(docs/streaming.md, "The accumulator"; tags M1-M7 name its rules)."""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from automata.core import (
    Agent,
    AgentView,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderStreamItem,
    StopReason,
    StreamAccumulator,
    StreamEvent,
    TextBlock,
    TextDelta,
    TextEvent,
    ThinkingEvent,
    ToolCallEvent,
    ToolResultEvent,
    Usage,
    UsageEvent,
    as_tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls

# -- event builders --------------------------------------------------------------------


@dataclass(frozen=True)
class Lane:
    """Builds the events of one invocation."""

    agent: str
    invocation_id: str
    depth: int = 0

    def text(self, text: str) -> TextEvent:
        return TextEvent(
            agent=self.agent, invocation_id=self.invocation_id, depth=self.depth, text=text
        )

    def thinking(self, text: str) -> ThinkingEvent:
        return ThinkingEvent(
            agent=self.agent, invocation_id=self.invocation_id, depth=self.depth, text=text
        )

    def usage(self, input_tokens: int = 0, output_tokens: int = 0) -> UsageEvent:
        return UsageEvent(
            agent=self.agent,
            invocation_id=self.invocation_id,
            depth=self.depth,
            usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens),
        )

    def call(self, call_id: str, name: str = "tool") -> ToolCallEvent:
        return ToolCallEvent(
            agent=self.agent,
            invocation_id=self.invocation_id,
            depth=self.depth,
            call=tool_call(call_id, name),
        )

    def result(
        self, call_id: str, text: str = "ok", *, name: str = "tool", is_error: bool = False
    ) -> ToolResultEvent:
        return ToolResultEvent(
            agent=self.agent,
            invocation_id=self.invocation_id,
            depth=self.depth,
            call=tool_call(call_id, name),
            result=text,
            blocks=(TextBlock(text=text),),
            is_error=is_error,
        )


TOP = Lane("orchestrator", "run_1")
SUB_A = Lane("researcher", "c1", 1)
SUB_B = Lane("researcher", "c2", 1)
DEEP = Lane("searcher", "r1", 2)


def folded(*events: StreamEvent) -> StreamAccumulator:
    accumulator = StreamAccumulator()
    for event in events:
        accumulator.add(event)
    return accumulator


def view_of(accumulator: StreamAccumulator, lane: Lane) -> AgentView:
    view = accumulator.view(lane.agent, lane.invocation_id)
    assert view is not None
    return view


# -- lanes ---------------------------------------------------------------------------------


def test_each_agent_and_invocation_id_pair_is_its_own_lane() -> None:
    """M1: lanes are keyed by `(agent, invocation_id)`."""
    accumulator = folded(
        SUB_A.text("a"), SUB_B.text("b"), Lane("writer", "c1", 1).text("w"), SUB_A.text("!")
    )
    assert [(v.agent, v.invocation_id, v.text) for v in accumulator.views()] == [
        ("researcher", "c1", "a!"),
        ("researcher", "c2", "b"),
        ("writer", "c1", "w"),
    ]


def test_two_invocations_with_the_same_agent_and_id_share_one_lane() -> None:
    """M1: the key is exactly `(agent, invocation_id)`; nothing else tells lanes apart."""
    under_one_parent = Lane("searcher", "s1", 2)
    under_another = Lane("searcher", "s1", 2)
    accumulator = folded(under_one_parent.text("a"), under_another.text("b"))
    assert [(v.agent, v.text) for v in accumulator.views()] == [("searcher", "ab")]


def test_a_view_names_its_lane_and_keeps_its_depth() -> None:
    """M1: a view says whose lane it is and how deep it is nested."""
    view = view_of(folded(DEEP.text("x")), DEEP)
    assert (view.agent, view.invocation_id, view.depth) == ("searcher", "r1", 2)


def test_top_level_lanes_come_first_then_the_others_in_the_order_first_seen() -> None:
    """M2: views() lists depth-0 lanes first, then the rest by first appearance."""
    accumulator = folded(DEEP.text("d"), SUB_B.text("b"), TOP.text("t"), SUB_A.text("a"))
    assert [(v.agent, v.invocation_id) for v in accumulator.views()] == [
        ("orchestrator", "run_1"),
        ("searcher", "r1"),
        ("researcher", "c2"),
        ("researcher", "c1"),
    ]


def test_view_returns_one_lane_or_none_if_it_was_never_seen() -> None:
    """M2: `view(agent, invocation_id)` looks one lane up."""
    accumulator = folded(SUB_A.text("a"))
    assert view_of(accumulator, SUB_A).text == "a"
    assert accumulator.view("researcher", "c9") is None
    assert accumulator.view("writer", "c1") is None


def test_views_for_lists_every_lane_of_one_agent() -> None:
    """M2: `views_for(agent)` gives each invocation of that agent, in order."""
    accumulator = folded(SUB_A.text("a"), TOP.text("t"), SUB_B.text("b"))
    assert [v.invocation_id for v in accumulator.views_for("researcher")] == ["c1", "c2"]
    assert accumulator.views_for("nobody") == []


def test_an_empty_accumulator_has_no_views_and_zero_totals() -> None:
    accumulator = StreamAccumulator()
    assert accumulator.views() == []
    assert accumulator.totals() == Usage()


# -- text, thinking, usage -------------------------------------------------------------------


def test_text_and_thinking_are_concatenated_in_event_order() -> None:
    """M3: deltas join with no separator, each kind on its own."""
    view = view_of(
        folded(TOP.thinking("Let "), TOP.text("Hel"), TOP.thinking("me."), TOP.text("lo")), TOP
    )
    assert (view.thinking, view.text) == ("Let me.", "Hello")


def test_usage_is_summed_not_maxed() -> None:
    """M4: a lane's usage is the sum of its usage events."""
    view = view_of(folded(TOP.usage(100, 7), TOP.usage(130, 3)), TOP)
    assert view.usage == Usage(input_tokens=230, output_tokens=10)


def test_totals_sum_usage_over_every_lane() -> None:
    """M4: `totals()` adds every lane's usage."""
    accumulator = folded(
        TOP.usage(100, 10), SUB_A.usage(20, 2), SUB_B.usage(20, 2), DEEP.usage(1, 1)
    )
    assert accumulator.totals() == Usage(input_tokens=141, output_tokens=15)


# -- tool calls ----------------------------------------------------------------------------------


def test_a_tool_call_is_pending_until_its_result_arrives() -> None:
    """M5: an announced call is listed, not done, with its call block."""
    [call] = view_of(folded(TOP.call("1", "search")), TOP).tool_calls
    assert (call.id, call.name, call.done, call.result) == ("1", "search", False, "")
    assert call.call == tool_call("1", "search")


def test_a_tool_call_is_paired_with_its_result() -> None:
    """M5: the result lands on the call with the same id."""
    accumulator = folded(
        TOP.call("1", "search"),
        TOP.call("2", "fetch"),
        TOP.result("2", "page", name="fetch"),
        TOP.result("1", "no hits", name="search", is_error=True),
    )
    calls = view_of(accumulator, TOP).tool_calls
    assert [(c.id, c.name, c.done, c.result, c.is_error) for c in calls] == [
        ("1", "search", True, "no hits", True),
        ("2", "fetch", True, "page", False),
    ]
    assert calls[1].blocks == (TextBlock(text="page"),)
    assert calls[1].call == tool_call("2", "fetch")


def test_tool_calls_keep_the_order_they_were_announced_in() -> None:
    """M5: a lane lists its calls in announcement order, whatever order results come."""
    accumulator = folded(TOP.call("b"), TOP.call("a"), TOP.result("a"), TOP.result("b"))
    assert [c.id for c in view_of(accumulator, TOP).tool_calls] == ["b", "a"]


def test_a_result_whose_call_was_never_announced_is_still_recorded() -> None:
    """M5: an unmatched result is kept, done, with `call` None."""
    [call] = view_of(folded(TOP.result("7", "late", name="fetch")), TOP).tool_calls
    assert (call.id, call.name, call.done, call.result, call.call) == (
        "7",
        "fetch",
        True,
        "late",
        None,
    )


def test_a_call_announced_after_its_result_keeps_the_result() -> None:
    """M5: folding events out of order never loses a result."""
    [call] = view_of(folded(TOP.result("7", "late"), TOP.call("7")), TOP).tool_calls
    assert (call.done, call.result, call.call) == (True, "late", tool_call("7", "tool"))


def test_calls_of_different_lanes_never_mix_even_with_the_same_id() -> None:
    """M1 and M5: call ids are paired within a lane only."""
    accumulator = folded(SUB_A.call("1"), SUB_B.call("1"), SUB_B.result("1", "b's"))
    assert [c.done for c in view_of(accumulator, SUB_A).tool_calls] == [False]
    assert [c.result for c in view_of(accumulator, SUB_B).tool_calls] == ["b's"]


# -- snapshots ----------------------------------------------------------------------------------


def test_views_are_snapshots_that_later_events_never_change() -> None:
    """M6: a view already returned stays as it was."""
    accumulator = folded(TOP.text("a"), TOP.call("1"), TOP.usage(1, 1), SUB_A.text("s"))
    views = accumulator.views()
    one = accumulator.view(TOP.agent, TOP.invocation_id)
    frozen = copy.deepcopy((views, one))
    for event in (TOP.text("b"), TOP.result("1"), TOP.call("2"), TOP.usage(5, 5), SUB_A.text("t")):
        accumulator.add(event)
    assert (views, one) == frozen
    assert view_of(accumulator, TOP).text == "ab"


def test_a_view_cannot_be_changed_by_its_reader() -> None:
    """M6: views are frozen values; what one reader holds, others cannot alter."""
    view = view_of(folded(TOP.call("1")), TOP)
    with pytest.raises(AttributeError):
        view.text = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        view.tool_calls[0].done = True  # type: ignore[misc]
    assert isinstance(view.tool_calls, tuple)


# -- folding is per lane -----------------------------------------------------------------------


def lane_events(lane: Lane) -> st.SearchStrategy[list[StreamEvent]]:
    text = st.text(max_size=3).map(lane.text)
    thinking = st.text(max_size=3).map(lane.thinking)
    usage = st.tuples(st.integers(0, 50), st.integers(0, 50)).map(lambda u: lane.usage(*u))
    calls = st.sampled_from("abc").map(lane.call)
    results = st.sampled_from("abcd").map(lane.result)
    return st.lists(st.one_of(text, thinking, usage, calls, results), max_size=12)


@given(
    lanes=st.tuples(lane_events(TOP), lane_events(SUB_A), lane_events(DEEP)),
    order=st.lists(st.integers(0, 2), max_size=40),
)
def test_interleaving_lanes_never_changes_any_lanes_view(
    lanes: tuple[list[StreamEvent], ...], order: list[int]
) -> None:
    """M1, M3, M4: each lane folds as if it streamed alone, however lanes interleave."""
    queues = [list(events) for events in lanes]
    merged: list[StreamEvent] = []
    for pick in order:
        if queues[pick]:
            merged.append(queues[pick].pop(0))
    for queue in queues:
        merged.extend(queue)
    together = folded(*merged)
    for lane, events in zip((TOP, SUB_A, DEEP), lanes, strict=True):
        assert together.view(lane.agent, lane.invocation_id) == (
            folded(*events).view(lane.agent, lane.invocation_id)
        )
    expected_total = sum(
        (e.usage for events in lanes for e in events if isinstance(e, UsageEvent)), Usage()
    )
    assert together.totals() == expected_total


# -- a real run -------------------------------------------------------------------------------


async def test_folding_a_run_gives_its_text_calls_results_and_usage() -> None:
    """M1-M5 on a real run: the top-level lane mirrors the run's result."""
    provider = ScriptedProvider(
        [
            ModelResponse(
                message=tool_calls(tool_call("1", "echo"), text="Let me check. "),
                stop_reason=StopReason.TOOL_USE,
                usage=Usage(input_tokens=10, output_tokens=5),
            ),
            ModelResponse(
                message=Message.assistant("It is 4."),
                stop_reason=StopReason.END_TURN,
                usage=Usage(input_tokens=20, output_tokens=3),
            ),
        ]
    )
    agent = Agent(provider)

    @agent.tool
    async def echo() -> str:
        return "4"

    accumulator = StreamAccumulator()
    stream = agent.stream("go")
    async for event in stream:
        accumulator.add(event)
    [view] = accumulator.views()
    assert (view.agent, view.invocation_id) == ("agent", stream.result.invocation_id)
    assert view.text == "Let me check. It is 4."
    assert [(c.id, c.done, c.result) for c in view.tool_calls] == [("1", True, "4")]
    assert view.usage == stream.result.usage


# -- reading while a run streams ----------------------------------------------------------------


class ManyDeltas:
    """A streaming provider whose first turn is `count` small deltas and a sub-agent
    call, and whose second turn answers."""

    provider_name = "test"
    model = None
    supports_streaming = True
    supports_native_output = False

    def __init__(self, count: int, prefix: str, call: str | None = None) -> None:
        self.count, self.prefix, self.call = count, prefix, call
        self.turn = 0

    def _response(self) -> ModelResponse:
        text = "".join(f"{self.prefix}{i} " for i in range(self.count))
        if self.turn == 1 and self.call is not None:
            message = tool_calls(tool_call("c1", self.call, task="t"), text=text)
            return ModelResponse(
                message=message, stop_reason=StopReason.TOOL_USE, usage=Usage(output_tokens=1)
            )
        return ModelResponse(
            message=Message.assistant(text),
            stop_reason=StopReason.END_TURN,
            usage=Usage(output_tokens=1),
        )

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.turn += 1
        return self._response()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        self.turn += 1
        for i in range(self.count):
            yield TextDelta(f"{self.prefix}{i} ")
            await asyncio.sleep(0)
        yield self._response()


def busy_agent() -> Agent:
    sub = Agent(ManyDeltas(300, "s"))
    return Agent(ManyDeltas(300, "t", call="helper"), tools=[as_tool(sub, "helper", "Help.")])


@dataclass
class Snapshots:
    """What a reader saw: every lane's text at every read, and any error it hit."""

    texts: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    reads: int = 0
    errors: list[BaseException] = field(default_factory=list)

    def record(self, accumulator: StreamAccumulator) -> None:
        views = accumulator.views()
        top_level = [v.depth == 0 for v in views]
        assert top_level == sorted(top_level, reverse=True)  # top-level lanes first
        accumulator.totals()
        accumulator.views_for("helper")
        for view in views:
            self.texts.setdefault((view.agent, view.invocation_id), []).append(view.text)
        self.reads += 1

    def assert_consistent_with(
        self, accumulator: StreamAccumulator, streamed: dict[tuple[str, str], str]
    ) -> None:
        """Nothing was lost, and every text seen was a prefix of the next one seen and
        of the final one."""
        assert self.errors == []
        assert {(v.agent, v.invocation_id): v.text for v in accumulator.views()} == streamed
        for key, seen in self.texts.items():
            final = accumulator.view(*key)
            assert final is not None
            for earlier, later in zip(seen, [*seen[1:], final.text], strict=True):
                assert later.startswith(earlier)


async def fold_while_waiting_for_reads(
    agent: Agent, accumulator: StreamAccumulator, snapshots: Snapshots
) -> dict[tuple[str, str], str]:
    """Fold the run, pausing every 50 events until the reader has read again, so reads
    are guaranteed to happen in the middle of the stream. Returns each lane's text as
    it streamed."""
    count = 0
    streamed: dict[tuple[str, str], str] = {}
    async for event in agent.stream("go"):
        accumulator.add(event)
        if isinstance(event, TextEvent):
            key = (event.agent, event.invocation_id)
            streamed[key] = streamed.get(key, "") + event.text
        count += 1
        if count % 50 == 0:
            seen = snapshots.reads
            for _ in range(5000):
                if snapshots.reads > seen or snapshots.errors:
                    break
                await asyncio.sleep(0.001)
    return streamed


async def test_another_thread_may_read_views_while_a_run_streams() -> None:
    """M7: a real thread reading in a loop sees only consistent snapshots."""
    accumulator, snapshots = StreamAccumulator(), Snapshots()
    stop = threading.Event()

    def read_until_stopped() -> None:
        try:
            while not stop.is_set():
                snapshots.record(accumulator)
        except BaseException as exc:
            snapshots.errors.append(exc)

    reader = threading.Thread(target=read_until_stopped, daemon=True)
    reader.start()
    try:
        streamed = await fold_while_waiting_for_reads(busy_agent(), accumulator, snapshots)
    finally:
        stop.set()
        reader.join(timeout=10)
    assert not reader.is_alive()
    assert snapshots.reads > 10
    snapshots.assert_consistent_with(accumulator, streamed)
    assert {key[0] for key in snapshots.texts} == {"agent", "helper"}


async def test_another_task_may_read_views_while_a_run_streams() -> None:
    """M7: a task reading at every loop turn sees only consistent snapshots."""
    accumulator, snapshots = StreamAccumulator(), Snapshots()
    stop = asyncio.Event()

    async def read_until_stopped() -> None:
        while not stop.is_set():
            snapshots.record(accumulator)
            await asyncio.sleep(0)

    reader = asyncio.create_task(read_until_stopped())
    try:
        streamed = await fold_while_waiting_for_reads(busy_agent(), accumulator, snapshots)
    finally:
        stop.set()
        await reader
    assert snapshots.reads > 10
    snapshots.assert_consistent_with(accumulator, streamed)
