"""A reusable conformance suite for `Provider` implementations.

Any provider (the vendor extensions, a test double, your own) can prove from its own
tests that it keeps the provider contract of `automata.core._provider`:

- it declares what it advertises (`provider_name`, `model`, `supports_streaming`,
  `supports_native_output`) with the right types, and has `stream` when it says it
  streams;
- the request it is given is never mutated;
- concurrent calls on one provider instance are independent;
- cancelling a call in flight raises `asyncio.CancelledError` (not a provider error)
  and leaves the provider usable;
- a streaming provider yields only deltas and then exactly one `ModelResponse`, its
  deltas add up to that response's text and thinking, and streaming and non-streaming
  calls give the same final message, stop reason and usage;
- usage and stop reasons are reported as the scenario expects.

Use the check functions directly, `run_conformance` for all of them, or subclass
`ProviderConformance` in a pytest module (it collects as a test class when your
subclass is named `Test...`). Nothing here imports pytest: failures raise
`ConformanceError`, an `AssertionError`, so any runner reports them.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, cast, runtime_checkable

from automata.core._blocks import Message, ThinkingBlock
from automata.core._provider import (
    ModelRequest,
    ModelResponse,
    Provider,
    StreamProvider,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from automata.core._stop import StopReason
from automata.core._usage import Usage

__all__ = [
    "ALL_CHECKS",
    "CONCURRENT_CALLS",
    "ConformanceError",
    "ConformanceScenario",
    "ProviderConformance",
    "ProviderFactory",
    "RequestGate",
    "StreamOutcome",
    "check_cancellation_propagates",
    "check_concurrent_calls_are_independent",
    "check_declares_what_it_advertises",
    "check_request_not_mutated",
    "check_stream_matches_complete",
    "check_stream_shape",
    "check_usage_and_stop_reason",
    "collect_stream",
    "run_conformance",
]

CONCURRENT_CALLS = 8
"""How many calls `check_concurrent_calls_are_independent` makes at once (per mode)."""

ProviderFactory = Callable[[], Provider | Awaitable[Provider]]
"""Makes a fresh provider for one check. A provider it returns must be able to answer
the scenario's request at least `CONCURRENT_CALLS * 2 + 4` times."""


class ConformanceError(AssertionError):
    """A provider broke the provider contract; the message says how."""


@dataclass(frozen=True, slots=True)
class ConformanceScenario:
    """One request and what the provider under test must answer to it.

    `expected_message`, `expected_stop_reason`, `expected_usage` and
    `expected_raw_stop_reason` are compared exactly when given (`expected_usage=None`
    with `usage_reported=False` asserts that no usage is reported). `gate`, when given,
    lets the cancellation check cancel a call while the provider is known to be waiting
    mid-call (for example, on a local test server holding the request); without it the
    check cancels at the provider's first suspension point.
    """

    request: ModelRequest
    expected_stop_reason: StopReason
    expected_message: Message | None = None
    expected_usage: Usage | None = None
    usage_reported: bool = True
    expected_raw_stop_reason: str | None = None
    gate: RequestGate | None = None


@runtime_checkable
class RequestGate(Protocol):
    """Holds one call of the provider under test mid-flight, on request."""

    def hold_next(self) -> None:
        """Make the next call the provider makes wait until `release()`."""

    async def wait_until_held(self) -> None:
        """Return once the held call has arrived and is waiting."""

    def release(self) -> None:
        """Let a held call finish (or give up holding, if none arrived)."""


@dataclass(frozen=True, slots=True)
class StreamOutcome:
    """Everything one `stream()` call produced, split by kind."""

    text: str
    thinking: str
    responses: tuple[ModelResponse, ...]
    items: tuple[object, ...]

    @property
    def response(self) -> ModelResponse:
        if len(self.responses) != 1:
            raise ConformanceError(
                f"a stream must end with exactly one ModelResponse, got {len(self.responses)}"
            )
        return self.responses[0]


def _streaming(provider: Provider) -> StreamProvider | None:
    """The provider as a `StreamProvider` when it says it streams, else None."""
    if getattr(provider, "supports_streaming", False) is True:
        return cast(StreamProvider, provider)
    return None


async def check_declares_what_it_advertises(
    factory: ProviderFactory, scenario: ConformanceScenario
) -> None:
    """`provider_name` is a non-empty str, `model` a str or None, `supports_streaming`
    and `supports_native_output` bools, and a provider that streams has `stream`."""
    provider = await _make(factory)
    expected: dict[str, tuple[type, ...]] = {
        "provider_name": (str,),
        "model": (str, type(None)),
        "supports_streaming": (bool,),
        "supports_native_output": (bool,),
    }
    for name, types in expected.items():
        if not hasattr(provider, name):
            raise ConformanceError(f"the provider does not declare {name}")
        value = getattr(provider, name)
        if not isinstance(value, types):
            wanted = " or ".join("None" if t is type(None) else t.__name__ for t in types)
            raise ConformanceError(f"{name} is {value!r}, not a {wanted}")
    if not provider.provider_name:
        raise ConformanceError("provider_name is empty")
    if provider.supports_streaming and not callable(getattr(provider, "stream", None)):
        raise ConformanceError("supports_streaming is True but the provider has no stream()")


async def _make(factory: ProviderFactory) -> Provider:
    made = factory()
    return await made if inspect.isawaitable(made) else made


async def collect_stream(provider: StreamProvider, request: ModelRequest) -> StreamOutcome:
    """Drain `provider.stream(request)` and sort what it yields."""
    text: list[str] = []
    thinking: list[str] = []
    responses: list[ModelResponse] = []
    items: list[object] = []
    async for item in provider.stream(request):
        items.append(item)
        if isinstance(item, TextDelta):
            text.append(item.text)
        elif isinstance(item, ThinkingDelta):
            thinking.append(item.text)
        elif isinstance(item, ModelResponse):
            responses.append(item)
        elif not isinstance(item, ToolCallDelta):
            raise ConformanceError(f"a stream yielded {type(item).__name__}, not a delta")
    return StreamOutcome("".join(text), "".join(thinking), tuple(responses), tuple(items))


def _thinking_text(message: Message) -> str:
    return "".join(b.thinking for b in message.content if isinstance(b, ThinkingBlock))


def _check_response(response: object, scenario: ConformanceScenario, how: str) -> ModelResponse:
    if not isinstance(response, ModelResponse):
        raise ConformanceError(f"{how} returned {type(response).__name__}, not a ModelResponse")
    if response.message.role != "assistant":
        raise ConformanceError(f"{how} returned a {response.message.role!r} message")
    if scenario.expected_message is not None and response.message != scenario.expected_message:
        raise ConformanceError(
            f"{how} returned an unexpected message:\n  got      {response.message!r}\n"
            f"  expected {scenario.expected_message!r}"
        )
    return response


async def check_request_not_mutated(
    factory: ProviderFactory, scenario: ConformanceScenario
) -> None:
    """Calling the provider (both ways, if it streams) leaves the request as it was."""
    provider = await _make(factory)
    request = scenario.request
    before = copy.deepcopy(request)
    await provider.complete(request)
    if request != before:
        raise ConformanceError("complete() mutated the request it was given")
    streaming = _streaming(provider)
    if streaming is not None:
        await collect_stream(streaming, request)
        if request != before:
            raise ConformanceError("stream() mutated the request it was given")


async def check_usage_and_stop_reason(
    factory: ProviderFactory, scenario: ConformanceScenario
) -> None:
    """The response reports the expected stop reason (raw value too) and usage."""
    provider = await _make(factory)
    response = _check_response(await provider.complete(scenario.request), scenario, "complete()")
    if not isinstance(response.stop_reason, StopReason):
        raise ConformanceError(f"stop_reason {response.stop_reason!r} is not a StopReason")
    if response.stop_reason != scenario.expected_stop_reason:
        raise ConformanceError(
            f"stop reason {response.stop_reason!r}, expected {scenario.expected_stop_reason!r}"
        )
    raw = scenario.expected_raw_stop_reason
    if raw is not None and response.raw_stop_reason != raw:
        raise ConformanceError(f"raw stop reason {response.raw_stop_reason!r}, expected {raw!r}")
    if not scenario.usage_reported:
        if response.usage is not None:
            raise ConformanceError(f"usage {response.usage!r} reported where none was expected")
        return
    if response.usage is None:
        raise ConformanceError("no usage reported")
    if scenario.expected_usage is not None and response.usage != scenario.expected_usage:
        raise ConformanceError(f"usage {response.usage!r}, expected {scenario.expected_usage!r}")


async def check_stream_shape(factory: ProviderFactory, scenario: ConformanceScenario) -> None:
    """A stream yields deltas, then exactly one `ModelResponse` as its last item, and
    its text and thinking deltas concatenate to the final message's text and thinking;
    tool-call argument deltas, if any, name its calls and join into their arguments."""
    provider = _streaming(await _make(factory))
    if provider is None:
        return
    outcome = await collect_stream(provider, scenario.request)
    response = outcome.response
    if outcome.items[-1] is not response:
        raise ConformanceError("the ModelResponse must be the last item of a stream")
    _check_response(response, scenario, "stream()")
    if outcome.text != response.message.text:
        raise ConformanceError(
            f"text deltas {outcome.text!r} differ from the final text {response.message.text!r}"
        )
    if outcome.thinking != _thinking_text(response.message):
        raise ConformanceError("thinking deltas differ from the final thinking blocks")
    if any(isinstance(i, TextDelta | ThinkingDelta) and not i.text for i in outcome.items):
        raise ConformanceError("a stream yielded an empty delta")
    _check_argument_deltas(outcome.items, response.message)


def _check_argument_deltas(items: tuple[object, ...], message: Message) -> None:
    """Tool-call argument deltas are non-empty, name a call of the final message (same
    id and name), and join into that call's argument text when it parsed."""
    calls = {c.id: c for c in message.tool_calls}
    written: dict[str, list[str]] = {}
    for item in items:
        if not isinstance(item, ToolCallDelta):
            continue
        if not item.arguments:
            raise ConformanceError("a stream yielded an empty tool-call delta")
        call = calls.get(item.id)
        if call is None or call.name != item.name:
            raise ConformanceError(
                f"a tool-call delta names {item.id!r} ({item.name!r}), not a call of the reply"
            )
        written.setdefault(item.id, []).append(item.arguments)
    for call_id, parts in written.items():
        call = calls[call_id]
        if call.input_error is None and json.loads("".join(parts)) != call.input:
            raise ConformanceError(f"the argument deltas of {call_id!r} differ from its input")


async def check_stream_matches_complete(
    factory: ProviderFactory, scenario: ConformanceScenario
) -> None:
    """Streaming and not streaming give the same message, stop reason and usage."""
    provider = _streaming(await _make(factory))
    if provider is None:
        return
    whole = _check_response(await provider.complete(scenario.request), scenario, "complete()")
    streamed = (await collect_stream(provider, scenario.request)).response
    if streamed.message != whole.message:
        raise ConformanceError(
            f"stream() and complete() disagree on the message:\n  stream   {streamed.message!r}"
            f"\n  complete {whole.message!r}"
        )
    if (streamed.stop_reason, streamed.raw_stop_reason) != (
        whole.stop_reason,
        whole.raw_stop_reason,
    ):
        raise ConformanceError(
            f"stream() stopped with {streamed.stop_reason!r}/{streamed.raw_stop_reason!r}, "
            f"complete() with {whole.stop_reason!r}/{whole.raw_stop_reason!r}"
        )
    if streamed.usage != whole.usage:
        raise ConformanceError(f"stream() usage {streamed.usage!r}, complete() {whole.usage!r}")


async def check_concurrent_calls_are_independent(
    factory: ProviderFactory, scenario: ConformanceScenario, *, calls: int = CONCURRENT_CALLS
) -> None:
    """Many calls in flight at once on one provider each get a whole, unmixed reply."""
    provider = await _make(factory)
    responses = await asyncio.gather(*(provider.complete(scenario.request) for _ in range(calls)))
    first = _check_response(responses[0], scenario, "complete()")
    for response in responses[1:]:
        _check_response(response, scenario, "complete()")
        if response.message != first.message or response.usage != first.usage:
            raise ConformanceError("concurrent complete() calls returned different replies")
    streaming = _streaming(provider)
    if streaming is None:
        return
    outcomes = await asyncio.gather(
        *(collect_stream(streaming, scenario.request) for _ in range(calls))
    )
    for outcome in outcomes:
        response = _check_response(outcome.response, scenario, "stream()")
        if outcome.text != response.message.text or response.message != first.message:
            raise ConformanceError("concurrent stream() calls mixed their deltas or replies")


async def _cancel_in_flight(
    call: Awaitable[object], scenario: ConformanceScenario, how: str
) -> None:
    gate = scenario.gate
    if gate is not None:
        gate.hold_next()
    task: asyncio.Task[object] = asyncio.ensure_future(call)
    try:
        if gate is not None:
            await gate.wait_until_held()
        else:
            await asyncio.sleep(0)
        if task.done():
            raise ConformanceError(
                f"{how} finished before it could be cancelled; give the scenario a "
                "`gate` that holds the call in flight"
            )
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        except Exception as error:
            raise ConformanceError(
                f"cancelling {how} raised {type(error).__name__}: {error} instead of CancelledError"
            ) from error
        else:
            raise ConformanceError(f"{how} swallowed its cancellation and returned")
    finally:
        if not task.done():
            task.cancel()
        if gate is not None:
            gate.release()


async def _drain(provider: StreamProvider, request: ModelRequest) -> None:
    async for _ in provider.stream(request):
        pass


async def check_cancellation_propagates(
    factory: ProviderFactory, scenario: ConformanceScenario
) -> None:
    """Cancelling a call in flight raises CancelledError from it, and the provider
    answers the next call normally."""
    provider = await _make(factory)
    await _cancel_in_flight(provider.complete(scenario.request), scenario, "complete()")
    streaming = _streaming(provider)
    if streaming is not None:
        await _cancel_in_flight(_drain(streaming, scenario.request), scenario, "stream()")
    _check_response(await provider.complete(scenario.request), scenario, "complete() after cancel")


ALL_CHECKS: Sequence[Callable[[ProviderFactory, ConformanceScenario], Awaitable[None]]] = (
    check_declares_what_it_advertises,
    check_request_not_mutated,
    check_usage_and_stop_reason,
    check_stream_shape,
    check_stream_matches_complete,
    check_concurrent_calls_are_independent,
    check_cancellation_propagates,
)


async def run_conformance(
    factory: ProviderFactory,
    scenario: ConformanceScenario,
    *,
    checks: Sequence[Callable[[ProviderFactory, ConformanceScenario], Awaitable[None]]] = (),
) -> None:
    """Run the checks (all of them by default), each on a fresh provider from
    `factory`; raise on the first failure."""
    for check in checks or ALL_CHECKS:
        try:
            await check(factory, scenario)
        except ConformanceError as error:
            raise ConformanceError(f"{check.__name__}: {error}") from error


class ProviderConformance:
    """The suite as test methods. Subclass it as `class TestMyProvider(ProviderConformance)`
    and override `make_provider` and `scenario`; pytest (with async tests enabled) then
    runs one test per check."""

    def make_provider(self) -> Provider | Awaitable[Provider]:
        raise NotImplementedError("override make_provider() to return the provider under test")

    def scenario(self) -> ConformanceScenario:
        raise NotImplementedError("override scenario() to describe a request and its answer")

    async def test_declares_what_it_advertises(self) -> None:
        await check_declares_what_it_advertises(self.make_provider, self.scenario())

    async def test_request_is_not_mutated(self) -> None:
        await check_request_not_mutated(self.make_provider, self.scenario())

    async def test_usage_and_stop_reason_are_reported(self) -> None:
        await check_usage_and_stop_reason(self.make_provider, self.scenario())

    async def test_stream_yields_deltas_then_one_response(self) -> None:
        await check_stream_shape(self.make_provider, self.scenario())

    async def test_stream_and_complete_agree(self) -> None:
        await check_stream_matches_complete(self.make_provider, self.scenario())

    async def test_concurrent_calls_are_independent(self) -> None:
        await check_concurrent_calls_are_independent(self.make_provider, self.scenario())

    async def test_cancellation_propagates(self) -> None:
        await check_cancellation_propagates(self.make_provider, self.scenario())
