"""Step by step with live events: `iter(..., on_event=...)` (docs/loop.md, L89)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from automata.core import (
    Agent,
    ArgumentTypeError,
    EventCallbackError,
    Message,
    ModelRequest,
    ModelResponse,
    ModelStep,
    ProviderStreamItem,
    RunSteps,
    StopReason,
    StreamEvent,
    TextBlock,
    TextDelta,
    TextEvent,
    ToolCallDelta,
    ToolCallDeltaEvent,
    ToolStep,
    ToolUseBlock,
)
from automata.core.testing import ScriptedProvider

CALL = ToolUseBlock(id="c1", name="weather", input={"city": "Oslo"})


class ChunkedProvider:
    """Streams a tool call's arguments in two fragments, then an answer in three text
    deltas; records which mode it was called in."""

    provider_name = "test"
    model = None
    supports_streaming = True
    supports_native_output = False

    def __init__(self) -> None:
        self.modes: list[str] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.modes.append("complete")
        raise AssertionError("a run with on_event streams")

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        self.modes.append("stream")
        if len(self.modes) == 1:
            arguments = json.dumps(CALL.input)
            yield ToolCallDelta(CALL.id, CALL.name, arguments[:5])
            yield ToolCallDelta(CALL.id, CALL.name, arguments[5:])
            message = Message(role="assistant", content=(CALL,))
            yield ModelResponse(message=message, stop_reason=StopReason.TOOL_USE)
            return
        for part in ("Sun ", "in ", "Oslo."):
            yield TextDelta(part)
        message = Message(role="assistant", content=(TextBlock(text="Sun in Oslo."),))
        yield ModelResponse(message=message, stop_reason=StopReason.END_TURN)


def weather_agent(provider: object) -> Agent:
    agent = Agent(provider)  # type: ignore[arg-type]

    @agent.tool
    def weather(city: str) -> str:
        return f"sun in {city}"

    return agent


async def drain(steps: RunSteps[str], delivered: list[ModelStep | ToolStep]) -> None:
    async with steps:
        async for step in steps:
            delivered.append(step)


def shape(event: StreamEvent) -> tuple[str, str]:
    if isinstance(event, TextEvent):
        return ("text", event.text)
    if isinstance(event, ToolCallDeltaEvent):
        return ("arguments", event.delta)
    return (type(event).__name__, "")


async def test_iter_with_on_event_delivers_the_events_stream_yields_in_the_same_order() -> None:
    """L89: the callback sees exactly the events `stream` yields for the same run, and
    the provider is called in streaming mode."""
    streamed = [shape(e) async for e in weather_agent(ChunkedProvider()).stream("Oslo?")]
    provider = ChunkedProvider()
    seen: list[StreamEvent] = []
    async with weather_agent(provider).iter("Oslo?", on_event=seen.append) as steps:
        async for _ in steps:
            pass
    assert [shape(e) for e in seen] == streamed
    assert ("arguments", '{"cit') in streamed
    assert ("text", "Sun ") in streamed
    assert provider.modes == ["stream", "stream"]
    assert steps.result.output == "Sun in Oslo."


async def test_each_steps_events_arrive_before_the_step_is_delivered() -> None:
    """L89: events are delivered as they happen, while the run makes its way to the
    step; the text deltas of the answer are all in before its `ModelStep`."""
    seen: list[StreamEvent] = []
    at_step: list[tuple[str, list[tuple[str, str]]]] = []
    async with weather_agent(ChunkedProvider()).iter("Oslo?", on_event=seen.append) as steps:
        async for step in steps:
            at_step.append((type(step).__name__, [shape(e) for e in seen]))
            seen.clear()
    assert at_step[0] == ("ModelStep", [("arguments", '{"cit'), ("arguments", 'y": "Oslo"}')])
    assert at_step[1][0] == "ToolStep"
    assert ("ToolResultEvent", "") in at_step[1][1]
    assert at_step[2] == ("ModelStep", [("text", "Sun "), ("text", "in "), ("text", "Oslo.")])


async def test_without_on_event_the_provider_is_not_asked_to_stream() -> None:
    """L89: a plain `iter` calls `complete`, as before."""
    provider = ScriptedProvider(["hi"])
    calls: list[str] = []
    original = provider.complete

    async def complete(request: ModelRequest) -> ModelResponse:
        calls.append("complete")
        return await original(request)

    provider.complete = complete  # type: ignore[method-assign]
    async with Agent(provider).iter("hello") as steps:
        async for _ in steps:
            pass
    assert calls == ["complete"]


async def test_a_callback_that_raises_stops_the_run_at_the_next_step_boundary() -> None:
    """L89: the step in flight is still delivered, then the iterator raises
    `EventCallbackError` from the callback's error; no further model call is made and
    the session's transcript stays valid (the announced calls get `canceled` results)."""
    checking = Message(role="assistant", content=(TextBlock(text="Checking."), CALL))
    provider = ScriptedProvider([checking, "never reached"])
    agent = weather_agent(provider)
    session = agent.session()
    calls = 0

    def explode(event: StreamEvent) -> None:
        nonlocal calls
        calls += 1
        raise ValueError("the UI went away")

    delivered: list[ModelStep | ToolStep] = []
    steps = session.iter("Oslo?", on_event=explode)
    with pytest.raises(EventCallbackError, match="ValueError: the UI went away") as raised:
        await drain(steps, delivered)
    assert isinstance(raised.value.__cause__, ValueError)
    assert [type(step).__name__ for step in delivered] == ["ModelStep"]
    assert calls == 1  # never called again after it raised
    assert len(provider.requests) == 1
    last = session.messages[-1]
    assert last.role == "tool"
    assert "canceled" in last.content[0].text  # type: ignore[union-attr,operator]
    with pytest.raises(RuntimeError):
        _ = steps.result


async def test_a_callback_failing_during_the_last_step_fails_the_run_instead_of_ending_it() -> None:
    """L89: the answer's step is delivered; the end of the run then raises
    `EventCallbackError` rather than handing over a result."""

    def explode(event: StreamEvent) -> None:
        raise KeyError("boom")

    delivered: list[ModelStep | ToolStep] = []
    steps = Agent(ScriptedProvider(["done"])).iter("go", on_event=explode)
    with pytest.raises(EventCallbackError):
        await drain(steps, delivered)
    assert [step.message.text for step in delivered if isinstance(step, ModelStep)] == ["done"]
    with pytest.raises(RuntimeError):
        _ = steps.result


def test_on_event_must_be_callable() -> None:
    """L89: checked when `iter` is called, before anything runs."""
    with pytest.raises(ArgumentTypeError, match="on_event"):
        Agent(ScriptedProvider([])).iter("go", on_event="print")  # type: ignore[call-overload]
