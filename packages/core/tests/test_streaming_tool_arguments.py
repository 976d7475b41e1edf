"""Tool-call arguments as they stream (docs/streaming.md O6, O7, M8).

A provider that streams a call's arguments yields `ToolCallDelta`s; the loop hands
each one on as a `ToolCallDeltaEvent`, and the call is still announced once, parsed,
by its `ToolCallEvent`. The accumulator keeps the text written so far per call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from automata.core import (
    Agent,
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
    ToolCallDelta,
    ToolCallDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUseBlock,
    Usage,
    UsageEvent,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls

CALL = ToolUseBlock(id="call_1", name="weather", input={"city": "Oslo"})


def weather(city: str) -> str:
    """Current weather for a city."""
    return f"sun in {city}"


class ArgumentStreamingProvider:
    """Streams one turn that writes `CALL`'s arguments in two fragments, then answers."""

    provider_name = "test"
    model = None
    supports_streaming = True
    supports_native_output = False

    def __init__(self) -> None:
        self.turns = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("a streamed run streams")

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        self.turns += 1
        if self.turns == 1:
            yield TextDelta("Checking. ")
            yield ToolCallDelta("call_1", "weather", '{"city": ')
            yield ToolCallDelta("call_1", "weather", '"Oslo"}')
            yield ModelResponse(
                message=Message(role="assistant", content=(TextBlock(text="Checking. "), CALL)),
                stop_reason=StopReason.TOOL_USE,
                usage=Usage(output_tokens=5),
            )
        else:
            yield TextDelta("Sunny.")
            yield ModelResponse(
                message=Message.assistant("Sunny."), stop_reason=StopReason.END_TURN
            )


async def streamed(agent: Agent[None]) -> list[StreamEvent]:
    async with agent.stream("Weather in Oslo?") as stream:
        return [event async for event in stream]


def shape(event: StreamEvent) -> tuple[str, str]:
    if isinstance(event, TextEvent):
        return ("text", event.text)
    if isinstance(event, ToolCallDeltaEvent):
        return ("arguments", f"{event.call_id} {event.name} {event.delta}")
    if isinstance(event, UsageEvent):
        return ("usage", str(event.usage.output_tokens))
    if isinstance(event, ToolCallEvent):
        return ("call", f"{event.call.id} {event.call.input}")
    assert isinstance(event, ToolResultEvent)
    return ("result", event.result)


async def test_argument_fragments_stream_as_events_before_the_parsed_call() -> None:
    """O6: each streamed fragment of a call's arguments is a `ToolCallDeltaEvent`
    (call id, tool name, fragment), in stream order, before the turn's usage; the call
    is still announced once by a `ToolCallEvent` with the parsed input."""
    agent = Agent(ArgumentStreamingProvider(), tools=[tool(weather)])
    events = await streamed(agent)
    assert [shape(e) for e in events] == [
        ("text", "Checking. "),
        ("arguments", 'call_1 weather {"city": '),
        ("arguments", 'call_1 weather "Oslo"}'),
        ("usage", "5"),
        ("call", "call_1 {'city': 'Oslo'}"),
        ("result", "sun in Oslo"),
        ("text", "Sunny."),
    ]


async def test_argument_delta_events_carry_the_run_tags() -> None:
    """O6: a `ToolCallDeltaEvent` names the agent, invocation id and depth like every
    event."""
    agent = Agent(ArgumentStreamingProvider(), tools=[tool(weather)], name="forecaster")
    async with agent.stream("Weather in Oslo?") as stream:
        events = [event async for event in stream]
    delta = next(e for e in events if isinstance(e, ToolCallDeltaEvent))
    assert (delta.agent, delta.invocation_id, delta.depth) == (
        "forecaster",
        stream.result.invocation_id,
        0,
    )


async def test_a_provider_that_does_not_stream_arguments_gives_no_argument_events() -> None:
    """O7: a provider that yields no `ToolCallDelta` gives no `ToolCallDeltaEvent`; its
    calls are announced by `ToolCallEvent` as before."""
    provider = ScriptedProvider([tool_calls(tool_call("call_1", "weather", city="Oslo")), "Sunny."])
    events = await streamed(Agent(provider, tools=[tool(weather)]))
    assert [type(e).__name__ for e in events] == [
        "ToolCallEvent",
        "ToolResultEvent",
        "TextEvent",
    ]


def delta(fragment: str) -> ToolCallDeltaEvent:
    return ToolCallDeltaEvent(
        agent="a", invocation_id="r1", call_id="call_1", name="weather", delta=fragment
    )


def test_the_accumulator_keeps_a_calls_argument_text_while_it_streams() -> None:
    """M8: argument deltas add a running call (`call` None, not done) whose `arguments`
    is the text written so far."""
    accumulator = StreamAccumulator()
    accumulator.add(delta('{"city": '))
    accumulator.add(delta('"Os'))
    view = accumulator.view("a", "r1")
    assert view is not None
    (call,) = view.tool_calls
    assert (call.id, call.name, call.call, call.done, call.arguments) == (
        "call_1",
        "weather",
        None,
        False,
        '{"city": "Os',
    )


def test_the_announced_call_replaces_the_argument_text_with_the_parsed_input() -> None:
    """M8: once the `ToolCallEvent` arrives, the view holds the parsed call and its
    `arguments` text is cleared; the call keeps its place in the list."""
    accumulator = StreamAccumulator()
    accumulator.add(delta('{"city": "Oslo"}'))
    other = ToolUseBlock(id="call_2", name="clock", input={})
    accumulator.add(ToolCallEvent(agent="a", invocation_id="r1", call=CALL))
    accumulator.add(ToolCallEvent(agent="a", invocation_id="r1", call=other))
    view = accumulator.view("a", "r1")
    assert view is not None
    assert [(c.id, c.call, c.arguments) for c in view.tool_calls] == [
        ("call_1", CALL, ""),
        ("call_2", other, ""),
    ]


def test_an_earlier_view_keeps_the_argument_text_it_had() -> None:
    """M8: views are frozen copies; later argument deltas do not change them (M6)."""
    accumulator = StreamAccumulator()
    accumulator.add(delta('{"ci'))
    before = accumulator.view("a", "r1")
    accumulator.add(delta('ty": 1}'))
    after = accumulator.view("a", "r1")
    assert before is not None
    assert after is not None
    assert (before.tool_calls[0].arguments, after.tool_calls[0].arguments) == (
        '{"ci',
        '{"city": 1}',
    )
