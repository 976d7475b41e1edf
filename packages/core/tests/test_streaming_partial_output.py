"""Partial typed output while it streams (docs/streaming.md O8, M9).

A typed run whose hidden output tool's arguments stream gets `PartialOutputEvent`s:
the output as far as it is written, validated leniently; the run's output is the
strictly validated final value.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from pydantic import BaseModel

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    Agent,
    Message,
    ModelRequest,
    ModelResponse,
    PartialOutputEvent,
    ProviderStreamItem,
    StopReason,
    StreamAccumulator,
    ToolCallDelta,
    ToolUseBlock,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls


class Trip(BaseModel):
    city: str
    stops: list[str]


class OutputStreamingProvider:
    """Streams the hidden output tool's arguments in the given fragments."""

    provider_name = "test"
    model = None
    supports_streaming = True
    supports_native_output = False

    def __init__(self, *fragments: str) -> None:
        self.fragments = fragments

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("a streamed run streams")

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        for fragment in self.fragments:
            yield ToolCallDelta("call_1", STRUCTURED_OUTPUT_TOOL, fragment)
        call = ToolUseBlock(
            id="call_1", name=STRUCTURED_OUTPUT_TOOL, input=json.loads("".join(self.fragments))
        )
        yield ModelResponse(
            message=Message(role="assistant", content=(call,)), stop_reason=StopReason.TOOL_USE
        )


TRIP_FRAGMENTS = ('{"city": "Lis', 'bon", "st', 'ops": ["Al', 'fama", "Belém"]}')


async def test_a_typed_stream_reports_the_output_as_far_as_it_is_written() -> None:
    """O8: each argument fragment of the hidden output tool that gives a new leniently
    valid value is followed by a `PartialOutputEvent` holding it (an unfinished string
    is kept as written); values that do not validate yet give none."""
    agent = Agent(OutputStreamingProvider(*TRIP_FRAGMENTS))
    async with agent.stream("Plan a trip.", output_type=Trip) as stream:
        partials = [e.output async for e in stream if isinstance(e, PartialOutputEvent)]
    assert partials == [
        Trip(city="Lisbon", stops=["Al"]),
        Trip(city="Lisbon", stops=["Alfama", "Belém"]),
    ]


async def test_the_final_output_is_validated_strictly_as_before() -> None:
    """O8: the run's output is the complete, strictly validated value."""
    agent = Agent(OutputStreamingProvider(*TRIP_FRAGMENTS))
    async with agent.stream("Plan a trip.", output_type=Trip) as stream:
        async for _ in stream:
            pass
    assert stream.result.output == Trip(city="Lisbon", stops=["Alfama", "Belém"])


async def test_a_wrapped_output_type_streams_its_result_value() -> None:
    """O8: a non-object output type (wrapped as `result`) streams the value itself."""
    fragments = ('{"result": ["a', '", "b', '"]}')
    agent = Agent(OutputStreamingProvider(*fragments))
    async with agent.stream("Letters.", output_type=list[str]) as stream:
        partials = [e.output async for e in stream if isinstance(e, PartialOutputEvent)]
    assert partials == [["a"], ["a", "b"]]
    assert stream.result.output == ["a", "b"]


def test_the_accumulator_keeps_the_latest_partial_output() -> None:
    """M9: a lane's `partial_output` is the latest `PartialOutputEvent`'s value, None
    before the first."""
    accumulator = StreamAccumulator()
    accumulator.add(PartialOutputEvent(agent="a", invocation_id="r1", output=["x"]))
    first = accumulator.view("a", "r1")
    accumulator.add(PartialOutputEvent(agent="a", invocation_id="r1", output=["x", "y"]))
    last = accumulator.view("a", "r1")
    assert first is not None
    assert last is not None
    assert (first.partial_output, last.partial_output) == (["x"], ["x", "y"])


async def test_a_provider_that_does_not_stream_arguments_gives_no_partial_output() -> None:
    """O8: without argument deltas there is no `PartialOutputEvent`; the output is the
    same."""
    reply = tool_calls(tool_call("call_1", STRUCTURED_OUTPUT_TOOL, city="Lisbon", stops=[]))
    agent = Agent(ScriptedProvider([reply]))
    async with agent.stream("Plan a trip.", output_type=Trip) as stream:
        events = [e async for e in stream]
    assert [e for e in events if isinstance(e, PartialOutputEvent)] == []
    assert stream.result.output == Trip(city="Lisbon", stops=[])
