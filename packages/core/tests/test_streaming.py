"""The streaming contract of `agent.stream` and `session.stream` (docs/streaming.md).

Each test pins one rule of the contract; its docstring names the rule's tag in
docs/streaming.md (`test_streaming_docs.py` checks that every tag is pinned).
Sub-agents are pinned in `test_subagents.py`, the accumulator in `test_accumulator.py`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from automata.core import (
    ActivityEvent,
    Agent,
    Approval,
    CompactionEvent,
    HandoffEvent,
    IncompleteResponseError,
    MaxStepsError,
    Message,
    ModelRequest,
    ModelResponse,
    PartialOutputEvent,
    ProviderError,
    ProviderStreamItem,
    RunResult,
    StopReason,
    StreamEvent,
    TextBlock,
    TextDelta,
    TextEvent,
    ThinkingBlock,
    ThinkingDelta,
    ThinkingEvent,
    Tool,
    ToolCallDeltaEvent,
    ToolCallEvent,
    ToolPolicy,
    ToolResultEvent,
    ToolUseBlock,
    Usage,
    UsageEvent,
    as_tool,
    as_tool_func,
    post_run,
    tool,
)
from automata.core.testing import (
    BrokenStream,
    FunctionProvider,
    ScriptedProvider,
    tool_call,
    tool_calls,
    tool_results,
)

# -- helpers ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """One scripted model turn: the deltas it streams, then its complete response."""

    deltas: tuple[TextDelta | ThinkingDelta, ...]
    response: ModelResponse


def turn(
    *deltas: TextDelta | ThinkingDelta,
    calls: Sequence[ToolUseBlock] = (),
    usage: Usage | None = None,
) -> Turn:
    thinking = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    text = "".join(d.text for d in deltas if isinstance(d, TextDelta))
    blocks: list[Any] = []
    if thinking:
        blocks.append(ThinkingBlock(thinking=thinking))
    if text:
        blocks.append(TextBlock(text=text))
    blocks.extend(calls)
    stop = StopReason.TOOL_USE if calls else StopReason.END_TURN
    response = ModelResponse(
        message=Message.assistant(blocks), stop_reason=stop, usage=usage, raw_stop_reason=stop
    )
    return Turn(deltas=deltas, response=response)


class DeltaProvider:
    """A streaming provider that delivers each scripted turn delta by delta."""

    provider_name = "test"
    model = None
    supports_streaming = True
    supports_native_output = False

    def __init__(self, *turns: Turn) -> None:
        self._turns = list(turns)
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return self._turns.pop(0).response

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        self.requests.append(request)
        scripted = self._turns.pop(0)
        for delta in scripted.deltas:
            yield delta
        yield scripted.response


class CompleteOnlyProvider:
    """A provider with no stream API at all."""

    provider_name = "test"
    model = None
    supports_streaming = False
    supports_native_output = False

    def __init__(self, *replies: Message) -> None:
        self._inner = ScriptedProvider(replies)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        return await self._inner.complete(request)


def trace(events: Sequence[StreamEvent]) -> list[tuple[str, str]]:
    """Events as short `(kind, detail)` pairs, so orders read at a glance."""
    out: list[tuple[str, str]] = []
    for event in events:
        if isinstance(event, TextEvent):
            out.append(("text", event.text))
        elif isinstance(event, ThinkingEvent):
            out.append(("thinking", event.text))
        elif isinstance(event, UsageEvent):
            out.append(("usage", str(event.usage.output_tokens)))
        elif isinstance(event, ToolCallEvent):
            out.append(("call", event.call.id))
        elif isinstance(event, ToolResultEvent):
            out.append(("result", event.call.id))
        elif isinstance(event, ToolCallDeltaEvent):
            out.append(("arguments", event.call_id))
        elif isinstance(event, HandoffEvent):
            out.append(("handoff", event.to_agent))
        elif isinstance(event, CompactionEvent):
            out.append(("compaction", str(event.summary.covered)))
        elif isinstance(event, ActivityEvent):
            out.append(("activity", event.call_id))
        else:
            out.append(("partial", repr(event.output)))
    return out


async def collect(
    stream: AsyncIterator[StreamEvent], into: list[StreamEvent] | None = None
) -> list[StreamEvent]:
    """Every event of the stream, also appended to `into` as it arrives (so a test
    still sees them when the stream ends by raising)."""
    seen = [] if into is None else into
    async for event in stream:
        seen.append(event)
    return seen


def assert_every_call_has_a_result(messages: Sequence[Message]) -> None:
    """Each assistant turn with tool calls is followed by a tool message answering
    exactly those calls, in the model's order: what a provider will accept next."""
    for index, message in enumerate(messages):
        if message.role == "assistant" and message.tool_calls:
            assert index + 1 < len(messages), f"calls of message {index} have no results"
            answer = messages[index + 1]
            assert answer.role == "tool", f"message {index + 1} is not the tool results"
            answered = [getattr(block, "tool_use_id", None) for block in answer.content]
            assert answered == [call.id for call in message.tool_calls]


def assert_turns_do_not_interleave(events: Sequence[StreamEvent]) -> None:
    """Within each invocation, every turn follows content -> usage -> calls -> results,
    and the next turn starts only after every call of the previous one has a result."""
    lanes: dict[tuple[str, str], list[StreamEvent]] = {}
    for event in events:
        lanes.setdefault((event.agent, event.invocation_id), []).append(event)
    rank = {"content": 0, "usage": 1, "calls": 2, "results": 3}
    for lane, lane_events in lanes.items():
        phase = "content"
        open_calls: set[str] = set()
        for event in lane_events:
            call_id = ""
            if isinstance(
                event, TextEvent | ThinkingEvent | ToolCallDeltaEvent | PartialOutputEvent
            ):
                step = "content"
            elif isinstance(event, UsageEvent):
                step = "usage"
            elif isinstance(event, ToolCallEvent):
                step, call_id = "calls", event.call.id
            else:
                assert isinstance(event, ToolResultEvent)
                step, call_id = "results", event.call.id
            if phase == "results" and not open_calls and step != "results":
                phase = "content"  # the previous turn is complete: a new one starts
            if step == "results":
                assert call_id in open_calls, f"{lane}: result for unannounced call"
                open_calls.discard(call_id)
            else:
                assert rank[step] >= rank[phase], f"{lane}: {step} after {phase}"
                assert not (step == "usage" and phase == "usage"), f"{lane}: two usage events"
            if step == "calls":
                open_calls.add(call_id)
            phase = step


@dataclass
class BlockingTool:
    """A tool that runs until it is cancelled, recording both moments. With
    `slow_cleanup`, it takes until `cleanup_gate` opens to finish cancelling."""

    tool: Tool
    started: asyncio.Event
    cancelled: asyncio.Event
    cleaning: asyncio.Event
    cleaned: asyncio.Event
    cleanup_gate: asyncio.Event


def blocking_tool(name: str, *, slow_cleanup: bool = False) -> BlockingTool:
    started, cancelled = asyncio.Event(), asyncio.Event()
    cleaning, cleaned, cleanup_gate = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def block() -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            if slow_cleanup:
                cleaning.set()
                await cleanup_gate.wait()
                cleaned.set()
            raise
        return "never"

    made = tool(block, name=name)
    return BlockingTool(made, started, cancelled, cleaning, cleaned, cleanup_gate)


@dataclass
class RunEnd:
    """Records the run's end as a post-run hook sees it (after the transcript is
    committed)."""

    finished: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    result: RunResult[Any] | None = None
    error: BaseException | None = None

    async def __call__(self, result: RunResult[Any], error: BaseException | None) -> None:
        self.result, self.error = result, error
        self.finished.set()


CANCELED = "canceled: tool batch aborted: run cancelled"

# -- events ------------------------------------------------------------------------------


async def test_top_level_events_carry_the_agent_name_the_runs_invocation_id_and_depth_0() -> None:
    """ST2: every event names its agent, its invocation and its depth."""
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "echo"), text="hi"), Message.assistant("ok")]),
        name="helper",
    )

    @agent.tool
    async def echo() -> str:
        return "echo"

    stream = agent.stream("go")
    events = await collect(stream)
    assert len(events) == 4
    assert {(e.agent, e.invocation_id, e.depth) for e in events} == {
        ("helper", stream.result.invocation_id, 0)
    }


async def test_each_run_gets_a_fresh_invocation_id() -> None:
    """ST2: a top-level run's invocation id is fresh for every run."""
    agent = Agent(ScriptedProvider([Message.assistant("a"), Message.assistant("b")]))
    first, second = agent.stream("1"), agent.stream("2")
    events = await collect(first) + await collect(second)
    assert events[0].invocation_id == first.result.invocation_id
    assert events[1].invocation_id == second.result.invocation_id
    assert first.result.invocation_id != second.result.invocation_id


def test_events_are_frozen_values() -> None:
    """ST2: events are frozen dataclasses; a consumer cannot change what others see."""
    event = TextEvent(agent="a", invocation_id="r", text="hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.text = "changed"  # type: ignore[misc]


async def test_the_run_starts_only_when_the_stream_is_first_iterated() -> None:
    """ST1: creating a stream runs nothing; the first iteration starts the run."""
    provider = ScriptedProvider([Message.assistant("ok")])
    stream = Agent(provider).stream("go")
    await asyncio.sleep(0)
    assert provider.requests == []
    assert trace(await collect(stream)) == [("text", "ok")]
    assert len(provider.requests) == 1


async def test_a_stream_takes_the_same_per_run_keywords_as_run() -> None:
    """ST1: per-run keywords apply to a streamed run too, for agents and sessions."""
    looping = [tool_calls(tool_call("1", "echo")), tool_calls(tool_call("2", "echo"))]
    agent = Agent(ScriptedProvider(looping * 2))

    @agent.tool
    async def echo() -> str:
        return "again"

    with pytest.raises(MaxStepsError) as from_agent:
        await collect(agent.stream("go", max_steps=1))
    with pytest.raises(MaxStepsError) as from_session:
        await collect(agent.session().stream("go", max_steps=1))
    assert from_agent.value.result is not None
    assert from_session.value.result is not None
    assert from_agent.value.result.steps == from_session.value.result.steps == 1


async def test_a_slow_consumer_never_slows_the_run() -> None:
    """ST4: the run never waits for the consumer; its events queue until read."""
    end = RunEnd()
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "echo"), text="a"), Message.assistant("b")]),
        hooks=[post_run(end)],
    )

    @agent.tool
    async def echo() -> str:
        return "echo"

    stream = agent.stream("go")
    first = await anext(stream)
    await asyncio.wait_for(end.finished.wait(), 5)  # the whole run ended meanwhile
    rest = await collect(stream)
    assert trace([first, *rest]) == [
        ("text", "a"),
        ("call", "c1"),
        ("result", "c1"),
        ("text", "b"),
    ]


async def test_a_read_cut_short_while_waiting_loses_no_event() -> None:
    """ST4: a read abandoned while it waits (here by a deadline) leaves the stream as it
    was; the events produced meanwhile are read next, in order."""
    gate = asyncio.Event()
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "wait"), text="a"), Message.assistant("b")])
    )

    @agent.tool
    async def wait() -> str:
        await gate.wait()
        return "done"

    stream = agent.stream("go")
    seen = [await anext(stream), await anext(stream)]  # the text, then the call
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(anext(stream), 0.02)  # the tool is still waiting
    gate.set()
    seen.extend(await collect(stream))
    assert trace(seen) == [("text", "a"), ("call", "c1"), ("result", "c1"), ("text", "b")]
    assert stream.result.output == "b"


# -- order within a turn -----------------------------------------------------------------


async def test_thinking_and_text_deltas_arrive_in_the_order_the_model_streamed_them() -> None:
    """O1: deltas are delivered one event each, in stream order."""
    provider = DeltaProvider(
        turn(ThinkingDelta("Let me "), ThinkingDelta("think."), TextDelta("Hel"), TextDelta("lo"))
    )
    events = await collect(Agent(provider).stream("go"))
    assert trace(events) == [
        ("thinking", "Let me "),
        ("thinking", "think."),
        ("text", "Hel"),
        ("text", "lo"),
    ]


async def test_one_usage_event_per_turn_comes_after_its_text_and_before_its_tool_calls() -> None:
    """O2: at most one usage event per turn, after the text, before the tool calls."""
    provider = DeltaProvider(
        turn(
            TextDelta("Checking"),
            TextDelta(" both."),
            calls=[tool_call("c1", "echo"), tool_call("c2", "echo")],
            usage=Usage(input_tokens=10, output_tokens=7),
        ),
        turn(TextDelta("Done."), usage=Usage(input_tokens=30, output_tokens=2)),
    )
    agent = Agent(provider)

    @agent.tool
    async def echo() -> str:
        return "echo"

    events = await collect(agent.stream("go"))
    assert trace(events) == [
        ("text", "Checking"),
        ("text", " both."),
        ("usage", "7"),
        ("call", "c1"),
        ("call", "c2"),
        ("result", "c1"),
        ("result", "c2"),
        ("text", "Done."),
        ("usage", "2"),
    ]


async def test_a_turn_whose_provider_reports_no_usage_has_no_usage_event() -> None:
    """O2: no usage reported, no usage event."""
    events = await collect(Agent(ScriptedProvider([Message.assistant("ok")])).stream("go"))
    assert not any(isinstance(e, UsageEvent) for e in events)


async def test_every_call_of_a_batch_is_announced_in_model_order_before_any_result() -> None:
    """O3: the whole batch is announced, in the model's order, before any result --
    even calls answered without running (an unknown tool, a spent budget)."""
    batch = tool_calls(
        tool_call("c1", "fast"),
        tool_call("c2", "missing"),
        tool_call("c3", "fast"),
        tool_call("c4", "fast"),
    )
    agent = Agent(
        ScriptedProvider([batch, Message.assistant("ok")]), tool_policy=ToolPolicy(max_calls=2)
    )

    @agent.tool
    async def fast() -> str:
        return "fast"

    stream = agent.stream("go")
    events = await collect(stream)
    kinds = trace(events)
    assert kinds[:4] == [("call", "c1"), ("call", "c2"), ("call", "c3"), ("call", "c4")]
    assert sorted(kinds[4:8]) == [("result", f"c{i}") for i in range(1, 5)]
    answered_at_once = [text for _, text, _ in tool_results(stream.result.messages)][1::2]
    assert answered_at_once[0].startswith("tool not found")
    assert answered_at_once[1] == "denied: tool budget exhausted: max calls 2"


async def test_results_arrive_in_the_order_the_calls_finish() -> None:
    """O4 and ST3: results stream in completion order, not in the model's order."""
    second_done, third_done = asyncio.Event(), asyncio.Event()

    @tool
    async def first() -> str:
        await second_done.wait()
        return "first"

    @tool
    async def second() -> str:
        await third_done.wait()
        second_done.set()
        return "second"

    @tool
    async def third() -> str:
        third_done.set()
        return "third"

    agent = Agent(
        ScriptedProvider(
            [
                tool_calls(
                    tool_call("1", "first"), tool_call("2", "second"), tool_call("3", "third")
                ),
                Message.assistant("ok"),
            ]
        ),
        tools=[first, second, third],
    )
    events = await collect(agent.stream("go"))
    assert [e.call.id for e in events if isinstance(e, ToolResultEvent)] == ["3", "2", "1"]


async def test_results_go_back_to_the_model_in_the_models_order() -> None:
    """O4: whatever order results stream in, the transcript keeps the model's order."""
    first_may_finish = asyncio.Event()

    @tool
    async def first() -> str:
        await first_may_finish.wait()
        return "first"

    @tool
    async def second() -> str:
        first_may_finish.set()
        return "second"

    agent = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("1", "first"), tool_call("2", "second")), Message.assistant("ok")]
        ),
        tools=[first, second],
    )
    stream = agent.stream("go")
    events = await collect(stream)
    assert [e.call.id for e in events if isinstance(e, ToolResultEvent)] == ["2", "1"]
    assert tool_results(stream.result.messages) == [("1", "first", False), ("2", "second", False)]


async def test_a_result_event_carries_the_text_view_the_blocks_and_the_error() -> None:
    """O4: a result event holds the call, the result text, its blocks, the error flag
    and the exception a tool raised."""
    agent = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("1", "ok"), tool_call("2", "bad")), Message.assistant("done")]
        )
    )

    @agent.tool
    async def ok() -> str:
        return "fine"

    @agent.tool
    async def bad() -> str:
        raise ValueError("broken")

    events = await collect(agent.stream("go"))
    results = {e.call.id: e for e in events if isinstance(e, ToolResultEvent)}
    assert results["1"].call == tool_call("1", "ok")
    assert (results["1"].result, results["1"].is_error, results["1"].error) == ("fine", False, None)
    assert results["1"].blocks == (TextBlock(text="fine"),)
    assert (results["2"].result, results["2"].is_error) == ("broken", True)
    assert isinstance(results["2"].error, ValueError)


async def test_the_turns_of_one_agent_never_interleave() -> None:
    """O5: a turn's events all come before the next turn's first event."""
    release = asyncio.Event()

    @tool
    async def slow() -> str:
        await release.wait()
        return "slow"

    @tool
    async def quick() -> str:
        release.set()
        return "quick"

    provider = DeltaProvider(
        turn(
            TextDelta("a"), calls=[tool_call("1", "slow"), tool_call("2", "quick")], usage=Usage()
        ),
        turn(ThinkingDelta("hm"), calls=[tool_call("3", "quick")], usage=Usage()),
        turn(TextDelta("b"), TextDelta("c"), usage=Usage()),
    )
    events = await collect(Agent(provider, tools=[slow, quick]).stream("go"))
    assert_turns_do_not_interleave(events)
    assert trace(events) == [
        ("text", "a"),
        ("usage", "0"),
        ("call", "1"),
        ("call", "2"),
        ("result", "2"),
        ("result", "1"),
        ("thinking", "hm"),
        ("usage", "0"),
        ("call", "3"),
        ("result", "3"),
        ("text", "b"),
        ("text", "c"),
        ("usage", "0"),
    ]


async def test_lanes_of_parallel_sub_agents_interleave_but_each_keeps_its_turns_in_order() -> None:
    """O5 and ST3: different invocations may interleave, the turns of each one never do,
    and their concurrent events still reach the consumer one at a time."""
    both_asked = asyncio.Event()
    first_turns: list[str] = []

    async def reply(request: ModelRequest) -> Message:
        topic = request.messages[-1].text
        if request.messages[-1].role == "tool":
            return Message.assistant(f"about {request.messages[1].text}")
        first_turns.append(topic)
        if len(first_turns) == 2:
            both_asked.set()
        await both_asked.wait()
        return tool_calls(tool_call(f"note-{topic}", "note"), text=f"noting {topic}")

    sub = Agent(FunctionProvider(reply))

    @sub.tool
    async def note() -> str:
        return "noted"

    parent = Agent(
        ScriptedProvider(
            [
                tool_calls(
                    tool_call("c1", "researcher", task="cats"),
                    tool_call("c2", "researcher", task="dogs"),
                ),
                Message.assistant("ok"),
            ]
        ),
        tools=[as_tool_func(sub, "researcher", "Delegate.")],
    )
    events = await collect(parent.stream("go"))
    assert_turns_do_not_interleave(events)
    lane_of = [e.invocation_id for e in events if e.agent == "researcher"]
    switches = sum(1 for a, b in itertools.pairwise(lane_of) if a != b)
    assert switches > 1, "the two sub-agent lanes ran one after the other"


# -- providers that do not stream ----------------------------------------------------------


async def test_a_non_streaming_provider_gives_one_thinking_and_one_text_event_per_turn() -> None:
    """F1: without streaming, each turn is one thinking event and one text event holding
    the whole turn, then the calls and results as usual."""
    provider = ScriptedProvider(
        [
            Message.assistant(
                [
                    ThinkingBlock(thinking="First "),
                    ThinkingBlock(thinking="this."),
                    TextBlock(text="Looking "),
                    TextBlock(text="it up."),
                    tool_call("1", "echo"),
                ]
            ),
            Message.assistant([ThinkingBlock(thinking="Got it."), TextBlock(text="It is 4.")]),
        ],
        streaming=False,
    )
    agent = Agent(provider)

    @agent.tool
    async def echo() -> str:
        return "4"

    events = await collect(agent.stream("go"))
    assert trace(events) == [
        ("thinking", "First this."),
        ("text", "Looking it up."),
        ("call", "1"),
        ("result", "1"),
        ("thinking", "Got it."),
        ("text", "It is 4."),
    ]


async def test_a_provider_without_a_stream_method_falls_back_the_same_way() -> None:
    """F1: a provider with only `complete` streams through the same fallback."""
    provider = CompleteOnlyProvider(Message.assistant([TextBlock(text="a"), TextBlock(text="b")]))
    stream = Agent(provider).stream("go")
    assert trace(await collect(stream)) == [("text", "ab")]
    assert stream.result.output == "ab"


async def test_the_fallback_skips_empty_thinking_and_text() -> None:
    """F1: a turn with no thinking or no text gets no empty event for it."""
    provider = ScriptedProvider(
        [tool_calls(tool_call("1", "echo")), Message.assistant("done")], streaming=False
    )
    agent = Agent(provider)

    @agent.tool
    async def echo() -> str:
        return "x"

    events = await collect(agent.stream("go"))
    assert trace(events) == [("call", "1"), ("result", "1"), ("text", "done")]


async def test_the_fallbacks_usage_event_follows_the_text() -> None:
    """F1 and O2: the fallback keeps the usage rule."""
    response = ModelResponse(
        message=Message.assistant("ok"),
        stop_reason=StopReason.END_TURN,
        usage=Usage(output_tokens=3),
    )
    events = await collect(Agent(ScriptedProvider([response], streaming=False)).stream("go"))
    assert trace(events) == [("text", "ok"), ("usage", "3")]


# -- broken streams ------------------------------------------------------------------------


async def test_a_stream_broken_after_text_raises_incomplete_response_after_the_partial_text() -> (
    None
):
    """B1: the partial text is delivered, then `IncompleteResponseError` is raised."""
    agent = Agent(ScriptedProvider([BrokenStream("The answer is", ConnectionError("reset"))]))
    seen: list[StreamEvent] = []
    with pytest.raises(IncompleteResponseError, match="reset"):
        await collect(agent.stream("go"), into=seen)
    assert trace(seen) == [("text", "The answer is")]


async def test_a_broken_streams_partial_text_is_kept_in_the_result_and_the_transcript() -> None:
    """B1 and L37: the error's result holds the partial text as output and as the last
    assistant message, with stop reason `incomplete`."""
    session = Agent(ScriptedProvider([BrokenStream("The answer is", ConnectionError())])).session()
    with pytest.raises(IncompleteResponseError) as caught:
        await collect(session.stream("go"))
    result = caught.value.result
    assert result is not None
    assert result.output == "The answer is"
    assert result.stop_reason is StopReason.INCOMPLETE
    assert session.messages[-1] == Message.assistant("The answer is")


async def test_a_broken_stream_is_never_retried() -> None:
    """B2: the provider is called once for the broken turn; nothing is retried."""
    provider = ScriptedProvider(
        [BrokenStream("partial", ConnectionError()), Message.assistant("would succeed")]
    )
    with pytest.raises(IncompleteResponseError):
        await collect(Agent(provider).stream("go"))
    assert len(provider.requests) == 1
    assert provider.remaining == 1


async def test_a_stream_failing_before_any_content_is_a_provider_error() -> None:
    """B3: nothing arrived, so the failure is a `ProviderError`, not an incomplete reply."""
    provider = ScriptedProvider([BrokenStream("", ConnectionError("refused"))])
    with pytest.raises(ProviderError, match="refused") as caught:
        await collect(Agent(provider).stream("go"))
    assert caught.value.result is not None
    assert caught.value.result.stop_reason is StopReason.ERROR


# -- the end of the stream -----------------------------------------------------------------


async def test_the_result_is_available_once_the_stream_is_exhausted() -> None:
    """R1: `.result` is the run's `RunResult`, the same a plain run returns."""
    replies = [tool_calls(tool_call("1", "echo"), text="a"), Message.assistant("b")]
    agent = Agent(ScriptedProvider(replies), system_prompt="be brief")

    @agent.tool
    async def echo() -> str:
        return "echo"

    stream = agent.stream("go")
    await collect(stream)
    agent.provider = ScriptedProvider(replies)
    plain = await agent.run("go")
    assert dataclasses.replace(stream.result, invocation_id="") == dataclasses.replace(
        plain, invocation_id=""
    )


async def test_reading_the_result_before_the_end_raises_runtime_error() -> None:
    """R1: before the stream is exhausted there is no result yet."""
    stream = Agent(ScriptedProvider([Message.assistant("ok")])).stream("go")
    with pytest.raises(RuntimeError, match="not finished"):
        _ = stream.result
    await anext(stream)
    with pytest.raises(RuntimeError, match="not finished"):
        _ = stream.result


async def test_a_failed_run_raises_after_its_last_event_with_the_partial_result() -> None:
    """R2: every event is delivered, then the run's error, carrying `.result`."""
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "echo"), text="a"), RuntimeError("down")])
    )

    @agent.tool
    async def echo() -> str:
        return "echo"

    seen: list[StreamEvent] = []
    with pytest.raises(ProviderError, match="down") as caught:
        await collect(agent.stream("go"), into=seen)
    assert trace(seen) == [("text", "a"), ("call", "1"), ("result", "1")]
    result = caught.value.result
    assert result is not None
    assert (result.steps, result.stop_reason) == (2, StopReason.ERROR)
    assert tool_results(result.messages) == [("1", "echo", False)]


async def test_the_result_of_a_failed_run_raises_the_runs_error_again() -> None:
    """R2: after a failure `stream.result` re-raises the error (partial result on it)."""
    stream = Agent(ScriptedProvider([RuntimeError("down")])).stream("go")
    with pytest.raises(ProviderError) as caught:
        await collect(stream)
    with pytest.raises(ProviderError) as again:
        _ = stream.result
    assert again.value is caught.value


async def test_an_exhausted_stream_stays_exhausted() -> None:
    """R1: iterating again after the end yields nothing more."""
    stream = Agent(ScriptedProvider([Message.assistant("ok")])).stream("go")
    await collect(stream)
    assert await collect(stream) == []
    assert stream.result.output == "ok"


# -- stopping early ------------------------------------------------------------------------


def blocking_batch_agent(*tools: BlockingTool, end: RunEnd | None = None) -> Agent:
    calls = [tool_call(f"c{i}", t.tool.name) for i, t in enumerate(tools, start=1)]
    return Agent(
        ScriptedProvider([tool_calls(*calls), Message.assistant("after")]),
        tools=[t.tool for t in tools],
        hooks=[post_run(end)] if end is not None else (),
    )


async def test_leaving_async_with_early_cancels_the_running_tools() -> None:
    """C1: leaving `async with` cancels the run's tools before the block is left."""
    one, two = blocking_tool("one"), blocking_tool("two")
    session = blocking_batch_agent(one, two).session()
    async with session.stream("go") as stream:
        async for event in stream:
            if isinstance(event, ToolCallEvent) and event.call.id == "c2":
                await one.started.wait()
                await two.started.wait()
                break
    assert one.cancelled.is_set()
    assert two.cancelled.is_set()


async def test_leaving_async_with_early_leaves_a_valid_transcript() -> None:
    """C1: every unfinished call gets `canceled: tool batch aborted: run cancelled`."""
    one, two = blocking_tool("one"), blocking_tool("two")
    session = blocking_batch_agent(one, two).session()
    async with session.stream("go") as stream:
        async for _ in stream:
            await two.started.wait()
            break
    assert_every_call_has_a_result(session.messages)
    assert tool_results(session.messages) == [("c1", CANCELED, True), ("c2", CANCELED, True)]


async def test_aclose_waits_until_the_run_has_stopped_and_its_hooks_ran() -> None:
    """C1: when `aclose()` returns, post-run hooks already saw stop reason `cancelled`."""
    one, end = blocking_tool("one"), RunEnd()
    session = blocking_batch_agent(one, end=end).session()
    stream = session.stream("go")
    await anext(stream)
    await one.started.wait()
    await stream.aclose()
    assert end.finished.is_set()
    assert end.result is not None
    assert end.result.stop_reason is StopReason.CANCELLED
    assert isinstance(end.error, asyncio.CancelledError)
    assert end.result.messages == tuple(session.messages)


async def test_a_session_continues_after_its_stream_was_closed_early() -> None:
    """C1: the transcript left by a closed stream is valid for the next run."""
    one = blocking_tool("one")
    agent = blocking_batch_agent(one)
    session = agent.session()
    async with session.stream("go") as stream:
        await anext(stream)
        await one.started.wait()
    assert (await session.run("and now?")).output == "after"
    assert isinstance(agent.provider, ScriptedProvider)
    assert agent.provider.requests[-1].messages[-1] == Message.user("and now?")


async def test_iteration_ends_at_once_after_aclose() -> None:
    """C2: after closing, iteration ends even though events were still queued."""
    agent = Agent(ScriptedProvider([Message.assistant([TextBlock(text="a"), TextBlock(text="b")])]))
    stream = agent.stream("go")
    await anext(stream)
    await stream.aclose()
    assert await collect(stream) == []


async def test_the_result_of_a_stream_closed_early_raises_runtime_error() -> None:
    """C2: a closed stream has no result."""
    one = blocking_tool("one")
    stream = blocking_batch_agent(one).stream("go")
    await anext(stream)
    await stream.aclose()
    with pytest.raises(RuntimeError, match="closed before the run finished"):
        _ = stream.result


async def test_closing_a_stream_before_iterating_it_never_starts_the_run() -> None:
    """C2: a stream closed before its first iteration runs nothing."""
    provider = ScriptedProvider([Message.assistant("ok")])
    stream = Agent(provider).stream("go")
    await stream.aclose()
    assert await collect(stream) == []
    assert provider.requests == []


async def test_closing_after_the_end_keeps_the_result() -> None:
    """C2: closing a stream whose run already ended changes nothing."""
    stream = Agent(ScriptedProvider([Message.assistant("ok")])).stream("go")
    async with stream:
        await collect(stream)
    assert stream.result.output == "ok"


async def test_a_closer_cancelled_while_waiting_still_lets_the_run_finish_then_re_raises() -> None:
    """C3: cancelling the task that closes the stream does not cut the run's cleanup
    short; the cancellation is re-raised once the run has stopped."""
    gate, hook_started, hook_finished = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def slow_checkpoint(result: RunResult[Any], error: BaseException | None) -> None:
        hook_started.set()
        await gate.wait()
        hook_finished.set()

    one = blocking_tool("one")
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "one"))]),
        tools=[one.tool],
        hooks=[post_run(slow_checkpoint)],
    )
    session = agent.session()
    stream = session.stream("go")
    await anext(stream)
    await one.started.wait()
    closer = asyncio.create_task(stream.aclose())
    await hook_started.wait()
    closer.cancel()
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await closer
    assert hook_finished.is_set()
    assert_every_call_has_a_result(session.messages)


async def test_closing_twice_cancels_the_run_only_once() -> None:
    """C3: a second `aclose()` waits for the first instead of cancelling again, so a
    tool's own cleanup is never cut short."""
    careful = blocking_tool("careful", slow_cleanup=True)
    session = blocking_batch_agent(careful).session()
    stream = session.stream("go")
    await anext(stream)
    await careful.started.wait()
    first = asyncio.create_task(stream.aclose())
    await careful.cleaning.wait()
    second = asyncio.create_task(stream.aclose())
    await asyncio.sleep(0)  # the second close is waiting too
    careful.cleanup_gate.set()
    await asyncio.wait_for(asyncio.gather(first, second), 5)
    assert careful.cleaned.is_set()
    assert tool_results(session.messages) == [("c1", CANCELED, True)]


async def test_breaking_out_and_dropping_the_stream_cancels_the_run() -> None:
    """C4: `break` without `async with` leaves the run going until the stream is
    dropped; dropping it cancels the run, which then commits a valid transcript."""
    one, end = blocking_tool("one"), RunEnd()
    session = blocking_batch_agent(one, end=end).session()
    async for _ in session.stream("go"):
        await one.started.wait()
        break
    await asyncio.wait_for(end.finished.wait(), 5)
    assert one.cancelled.is_set()
    assert tool_results(session.messages) == [("c1", CANCELED, True)]


async def test_a_consumer_cancelled_while_waiting_stops_the_run_as_it_leaves_async_with() -> None:
    """C5: a consumer cancelled mid-stream (a client went away) cancels the run."""
    one = blocking_tool("one")
    session = blocking_batch_agent(one).session()

    async def consume() -> None:
        async with session.stream("go") as stream:
            async for _ in stream:
                pass

    consumer = asyncio.create_task(consume())
    await one.started.wait()
    consumer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await consumer
    assert one.cancelled.is_set()
    assert tool_results(session.messages) == [("c1", CANCELED, True)]


async def test_a_timeout_around_the_consumer_cancels_the_run_and_still_raises_timeout() -> None:
    """C5: a deadline on the consumer stops the run; the caller sees `TimeoutError`."""
    one = blocking_tool("one")
    session = blocking_batch_agent(one).session()

    async def consume_with_deadline() -> None:
        async with asyncio.timeout(0.05), session.stream("go") as stream:
            async for _ in stream:
                pass

    with pytest.raises(TimeoutError):
        await consume_with_deadline()
    assert one.cancelled.is_set()
    assert tool_results(session.messages) == [("c1", CANCELED, True)]


async def test_a_call_that_finished_as_the_run_was_cancelled_keeps_its_real_result() -> None:
    """C1: only unfinished calls are reported as canceled."""
    release = asyncio.Event()

    @tool
    async def quick() -> str:
        await release.wait()
        return "done"

    slow = blocking_tool("slow")
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("q", "quick"), tool_call("s", "slow"))]),
        tools=[quick, slow.tool],
    )
    session = agent.session()
    stream = session.stream("go")
    await anext(stream)
    await slow.started.wait()
    release.set()  # `quick` finishes in the same loop cycle the run is cancelled in
    await stream.aclose()
    assert tool_results(session.messages) == [("q", "done", False), ("s", CANCELED, True)]


async def test_closing_a_stream_while_an_aborted_batch_cleans_up_leaves_a_valid_transcript() -> (
    None
):
    """C1: the transcript stays valid whenever the run is cancelled."""
    careful = blocking_tool("careful", slow_cleanup=True)

    async def approver(call: ToolUseBlock, _: object) -> Approval:
        if call.id == "c2":
            await careful.started.wait()
            raise PermissionError("approval service down")
        return Approval.allow()

    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "careful"), tool_call("c2", "careful"))]),
        tools=[careful.tool],
        approver=approver,
    )
    session = agent.session()
    stream = session.stream("go")
    await anext(stream)
    await careful.cleaning.wait()  # the abort is cancelling c1, which takes a while
    closer = asyncio.create_task(stream.aclose())
    await asyncio.sleep(0)  # the run is cancelled in the middle of that cleanup
    careful.cleanup_gate.set()
    await asyncio.wait_for(closer, 5)
    assert_every_call_has_a_result(session.messages)


async def test_a_run_cancelled_again_while_its_tools_clean_up_leaves_a_valid_transcript() -> None:
    """C1: a run cancelled twice still leaves a result for every call."""
    careful = blocking_tool("careful", slow_cleanup=True)
    session = blocking_batch_agent(careful).session()
    running = asyncio.create_task(session.run("go"))
    await careful.started.wait()
    running.cancel()
    await careful.cleaning.wait()
    running.cancel()
    await asyncio.sleep(0)  # the second cancellation lands in the middle of the cleanup
    careful.cleanup_gate.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(running, 5)
    assert_every_call_has_a_result(session.messages)


# -- plain runs ----------------------------------------------------------------------------


class StreamCountingProvider(ScriptedProvider):
    """A scripted provider that counts how often it was asked to stream."""

    def __init__(self, replies: Sequence[Any]) -> None:
        super().__init__(replies)
        self.streamed = 0

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        self.streamed += 1
        return super().stream(request)


async def test_a_plain_run_never_asks_its_provider_to_stream() -> None:
    """NS1: `run` streams nothing: the provider is only asked to complete."""
    provider = StreamCountingProvider([tool_calls(tool_call("1", "echo")), Message.assistant("ok")])
    agent = Agent(provider)

    @agent.tool
    async def echo() -> str:
        return "echo"

    assert (await agent.run("go")).output == "ok"
    assert (provider.streamed, len(provider.requests)) == (0, 2)


async def test_a_plain_run_streams_nothing_in_any_sub_agent() -> None:
    """NS1: sub-agents of a plain run are not streamed either, at any depth."""
    searcher_provider = StreamCountingProvider([Message.assistant("found")])
    researcher_provider = StreamCountingProvider(
        [tool_calls(tool_call("r1", "searcher", task="t")), Message.assistant("researched")]
    )
    top_provider = StreamCountingProvider(
        [tool_calls(tool_call("o1", "researcher", task="t")), Message.assistant("report")]
    )
    researcher = Agent(
        researcher_provider, tools=[as_tool(Agent(searcher_provider), "searcher", "Search.")]
    )
    top = Agent(top_provider, tools=[as_tool(researcher, "researcher", "Research.")])
    assert (await top.run("go")).output == "report"
    providers = (top_provider, researcher_provider, searcher_provider)
    assert [(p.streamed, len(p.requests)) for p in providers] == [(0, 2), (0, 2), (0, 1)]


async def test_a_plain_run_inside_a_streaming_runs_tool_adds_nothing_to_that_stream() -> None:
    """NS1: events belong to the run that streams; a plain run started by one of its
    tools (not a sub-agent tool) stays silent."""
    inner = Agent(ScriptedProvider([Message.assistant("inner answer")]), name="inner")
    outer = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "ask")), Message.assistant("ok")]),
        name="outer",
    )

    @outer.tool
    async def ask() -> str:
        return str((await inner.run("question")).output)

    events = await collect(outer.stream("go"))
    assert {e.agent for e in events} == {"outer"}
    assert [e.result for e in events if isinstance(e, ToolResultEvent)] == ["inner answer"]
