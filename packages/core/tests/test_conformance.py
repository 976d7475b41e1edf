"""automata.core.testing.conformance: a correct provider passes every check, and each
check catches the contract breach it exists for."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest

from automata.core._blocks import Message, TextBlock, ThinkingBlock, ToolUseBlock
from automata.core._provider import ModelRequest, ModelResponse, TextDelta, ThinkingDelta
from automata.core._stop import StopReason
from automata.core._usage import Usage
from automata.core.testing import FunctionProvider, ScriptedProvider
from automata.core.testing.conformance import (
    ALL_CHECKS,
    ConformanceError,
    ConformanceScenario,
    ProviderConformance,
    check_cancellation_propagates,
    check_concurrent_calls_are_independent,
    check_declares_what_it_advertises,
    check_request_not_mutated,
    check_stream_matches_complete,
    check_stream_shape,
    check_usage_and_stop_reason,
    run_conformance,
)

CALL = ToolUseBlock(id="t1", name="lookup", input={"q": "x"})
REPLY = Message.assistant(
    [ThinkingBlock(thinking="hmm", signature="s"), TextBlock(text="hello"), CALL]
)
USAGE = Usage(input_tokens=3, output_tokens=4)
SCENARIO = ConformanceScenario(
    request=ModelRequest(
        messages=(
            Message.user("hi"),
            Message.assistant([ToolUseBlock(id="t0", name="lookup", input={"q": "y"})]),
        ),
    ),
    expected_stop_reason=StopReason.TOOL_USE,
    expected_message=REPLY,
    expected_usage=USAGE,
    expected_raw_stop_reason="tool_use",
)


class GoodProvider:
    """Suspends like a network call would, streams its reply in pieces."""

    provider_name = "test"
    model = None
    supports_streaming = True
    supports_native_output = False

    async def complete(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(0.001)
        return ModelResponse(REPLY, StopReason.TOOL_USE, USAGE, "tool_use")

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        await asyncio.sleep(0.001)
        yield ThinkingDelta("hm")
        yield ThinkingDelta("m")
        await asyncio.sleep(0)
        yield TextDelta("hel")
        yield TextDelta("lo")
        yield ModelResponse(REPLY, StopReason.TOOL_USE, USAGE, "tool_use")


class MutatesRequest(GoodProvider):
    async def complete(self, request: ModelRequest) -> ModelResponse:
        tool_use = request.messages[-1].content[0]
        assert isinstance(tool_use, ToolUseBlock)
        tool_use.input["q"] = "changed"
        return await super().complete(request)


class SharedStreamBuffer(GoodProvider):
    """Keeps the text being streamed on the instance: concurrent streams mix."""

    def __init__(self) -> None:
        self.buffer: list[str] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        self.buffer = []
        for piece in ("hel", "lo"):
            await asyncio.sleep(0.001)
            self.buffer.append(piece)
            yield TextDelta(piece)
        text = "".join(self.buffer)
        message = Message.assistant(
            [ThinkingBlock(thinking="hmm", signature="s"), TextBlock(text=text), CALL]
        )
        yield ModelResponse(message, StopReason.TOOL_USE, USAGE, "tool_use")


class SwallowsCancellation(GoodProvider):
    async def complete(self, request: ModelRequest) -> ModelResponse:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(10)
        return ModelResponse(REPLY, StopReason.TOOL_USE, USAGE, "tool_use")


class WrapsCancellation(GoodProvider):
    async def complete(self, request: ModelRequest) -> ModelResponse:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            raise RuntimeError("connection closed") from None
        raise AssertionError("unreachable")


class NeverSuspends(GoodProvider):
    async def complete(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(REPLY, StopReason.TOOL_USE, USAGE, "tool_use")


class NoFinalResponse(GoodProvider):
    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        yield TextDelta("hello")


class TwoFinalResponses(GoodProvider):
    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        async for item in super().stream(request):
            yield item
        yield ModelResponse(REPLY, StopReason.TOOL_USE, USAGE, "tool_use")


class DeltasDisagree(GoodProvider):
    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        yield ThinkingDelta("hmm")
        yield TextDelta("hello, world")
        yield ModelResponse(REPLY, StopReason.TOOL_USE, USAGE, "tool_use")


class StreamLosesUsage(GoodProvider):
    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        yield ThinkingDelta("hmm")
        yield TextDelta("hello")
        yield ModelResponse(REPLY, StopReason.TOOL_USE, None, "tool_use")


class WrongStopReason(GoodProvider):
    async def complete(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(REPLY, StopReason.END_TURN, USAGE, "stop")


class NoUsage(GoodProvider):
    async def complete(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(REPLY, StopReason.TOOL_USE, None, "tool_use")


async def test_a_correct_provider_passes_every_check() -> None:
    await run_conformance(GoodProvider, SCENARIO)


async def test_a_factory_may_be_async() -> None:
    async def factory() -> GoodProvider:
        return GoodProvider()

    await run_conformance(factory, SCENARIO)


async def test_mutating_the_request_is_caught() -> None:
    scenario = dataclasses.replace(
        SCENARIO,
        request=ModelRequest(
            messages=(Message.assistant([ToolUseBlock(id="t0", name="lookup", input={"q": "y"})]),)
        ),
    )
    with pytest.raises(ConformanceError, match="mutated"):
        await check_request_not_mutated(MutatesRequest, scenario)


async def test_streams_sharing_state_are_caught() -> None:
    with pytest.raises(ConformanceError, match="stream"):
        await check_concurrent_calls_are_independent(SharedStreamBuffer, SCENARIO)


async def test_swallowed_cancellation_is_caught() -> None:
    with pytest.raises(ConformanceError, match="swallowed"):
        await check_cancellation_propagates(SwallowsCancellation, SCENARIO)


async def test_cancellation_turned_into_another_error_is_caught() -> None:
    with pytest.raises(ConformanceError, match="instead of CancelledError"):
        await check_cancellation_propagates(WrapsCancellation, SCENARIO)


async def test_a_call_that_cannot_be_caught_in_flight_is_reported() -> None:
    with pytest.raises(ConformanceError, match="before it could be cancelled"):
        await check_cancellation_propagates(NeverSuspends, SCENARIO)


async def test_a_stream_without_a_final_response_is_caught() -> None:
    with pytest.raises(ConformanceError, match="exactly one ModelResponse, got 0"):
        await check_stream_shape(NoFinalResponse, SCENARIO)


async def test_a_stream_with_two_final_responses_is_caught() -> None:
    with pytest.raises(ConformanceError, match="exactly one ModelResponse, got 2"):
        await check_stream_shape(TwoFinalResponses, SCENARIO)


async def test_deltas_that_do_not_add_up_to_the_message_are_caught() -> None:
    with pytest.raises(ConformanceError, match="text deltas"):
        await check_stream_shape(DeltasDisagree, SCENARIO)


async def test_stream_and_complete_disagreeing_is_caught() -> None:
    with pytest.raises(ConformanceError, match="usage"):
        await check_stream_matches_complete(StreamLosesUsage, SCENARIO)


async def test_an_unexpected_stop_reason_is_caught() -> None:
    with pytest.raises(ConformanceError, match="stop reason"):
        await check_usage_and_stop_reason(WrongStopReason, SCENARIO)


async def test_missing_usage_is_caught() -> None:
    with pytest.raises(ConformanceError, match="no usage"):
        await check_usage_and_stop_reason(NoUsage, SCENARIO)


class Undeclared:
    async def complete(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(REPLY, StopReason.TOOL_USE, USAGE, "tool_use")


class StreamingFlagIsAString(GoodProvider):
    supports_streaming = "yes"  # type: ignore[assignment]


class ClaimsToStreamWithoutStream(Undeclared):
    provider_name = "test"
    model = None
    supports_streaming = True
    supports_native_output = False


async def test_a_provider_that_does_not_declare_what_it_advertises_is_caught() -> None:
    with pytest.raises(ConformanceError) as caught:
        await check_declares_what_it_advertises(Undeclared, SCENARIO)  # type: ignore[arg-type]
    assert str(caught.value) == "the provider does not declare provider_name"


async def test_an_advertised_value_of_the_wrong_type_is_caught() -> None:
    with pytest.raises(ConformanceError) as caught:
        await check_declares_what_it_advertises(StreamingFlagIsAString, SCENARIO)  # type: ignore[arg-type]
    assert str(caught.value) == "supports_streaming is 'yes', not a bool"


async def test_claiming_to_stream_without_a_stream_method_is_caught() -> None:
    with pytest.raises(ConformanceError) as caught:
        await check_declares_what_it_advertises(ClaimsToStreamWithoutStream, SCENARIO)
    assert str(caught.value) == "supports_streaming is True but the provider has no stream()"


async def test_run_conformance_names_the_failing_check() -> None:
    with pytest.raises(ConformanceError, match=r"^check_usage_and_stop_reason: "):
        await run_conformance(WrongStopReason, SCENARIO)


class TestGoodProviderThroughTheBaseClass(ProviderConformance):
    def make_provider(self) -> GoodProvider:
        return GoodProvider()

    def scenario(self) -> ConformanceScenario:
        return SCENARIO


# --- the core's own test providers --------------------------------------------------

SCRIPTED_RESPONSE = ModelResponse(REPLY, StopReason.TOOL_USE, USAGE, "tool_use")
NOT_IN_FLIGHT = [c for c in ALL_CHECKS if c is not check_cancellation_propagates]


async def test_scripted_provider_passes_the_suite() -> None:
    # A scripted reply is ready at once: the call never waits, so there is no moment
    # to cancel it in flight (FunctionProvider below covers cancellation).
    await run_conformance(
        lambda: ScriptedProvider([SCRIPTED_RESPONSE] * 40), SCENARIO, checks=NOT_IN_FLIGHT
    )


async def test_scripted_provider_with_plain_messages_reports_no_usage() -> None:
    scenario = dataclasses.replace(
        SCENARIO, expected_usage=None, usage_reported=False, expected_raw_stop_reason="tool_use"
    )
    await run_conformance(lambda: ScriptedProvider([REPLY] * 40), scenario, checks=NOT_IN_FLIGHT)


class EventGate:
    """Holds the next FunctionProvider call until released."""

    def __init__(self) -> None:
        self.armed = False
        self.held = asyncio.Event()
        self.released = asyncio.Event()

    def hold_next(self) -> None:
        self.armed = True
        self.held.clear()
        self.released.clear()

    async def wait_until_held(self) -> None:
        await asyncio.wait_for(self.held.wait(), 5)

    def release(self) -> None:
        self.armed = False
        self.released.set()

    async def reply(self, request: ModelRequest) -> ModelResponse:
        if self.armed:
            self.armed = False
            self.held.set()
            await self.released.wait()
        return SCRIPTED_RESPONSE


async def test_function_provider_passes_the_whole_suite() -> None:
    gate = EventGate()
    await run_conformance(
        lambda: FunctionProvider(gate.reply), dataclasses.replace(SCENARIO, gate=gate)
    )
