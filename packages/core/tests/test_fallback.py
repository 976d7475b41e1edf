"""Fallback between providers: `FallbackProvider([first, second])` and
`Agent(first, fallback=[second])` move on to the next provider when a call fails
with a retryable error (or one the user named) before any content was handed on,
never after; the answering provider's reply is kept whole; every attempt is traced."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from automata.core import (
    Agent,
    ArgumentTypeError,
    FallbackExhaustedError,
    FallbackProvider,
    IncompleteResponseError,
    InvalidArgumentError,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderTimeoutError,
    ReplyTooLargeError,
    StopReason,
    TextBlock,
    TextEvent,
    ThinkingBlock,
    UnknownProviderError,
    Usage,
)
from automata.core.testing import BrokenStream, FunctionProvider, Reply, ScriptedProvider
from automata.core.testing.conformance import ConformanceScenario, ProviderConformance

REQUEST = ModelRequest(messages=(Message.user("hi"),))
FIRST_USAGE = Usage(input_tokens=100, output_tokens=1)
SECOND_USAGE = Usage(input_tokens=7, output_tokens=3)


class Primary(ScriptedProvider):
    provider_name = "primary"
    model = "primary-1"


class Secondary(ScriptedProvider):
    provider_name = "secondary"
    model = "secondary-1"


def overloaded() -> ProviderError:
    return ProviderError(
        "primary: 529 overloaded_error: Overloaded", provider="primary", status=529, retryable=True
    )


def answer(text: str = "from the second", usage: Usage = SECOND_USAGE) -> ModelResponse:
    return ModelResponse(
        Message.assistant(text), StopReason.MAX_TOKENS, usage, raw_stop_reason="length"
    )


def chain(
    first: list[Reply], second: list[Reply], **options: object
) -> tuple[FallbackProvider, Primary, Secondary]:
    primary, secondary = Primary(first), Secondary(second)
    return FallbackProvider([primary, secondary], **options), primary, secondary  # type: ignore[arg-type]


async def streamed(provider: FallbackProvider) -> list[object]:
    return [item async for item in provider.stream(REQUEST)]


# -- what switches ------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        overloaded(),
        ProviderError("primary: 429 rate_limit_error: slow down", status=429, retryable=True),
        ProviderError(
            "primary: connection to http://127.0.0.1:9/v1/messages failed: refused",
            retryable=True,
        ),
        ProviderTimeoutError("primary: timed out: no event for 30 s", retryable=True),
    ],
    ids=["overloaded-529", "rate-limited-429", "connection", "timeout"],
)
async def test_a_retryable_error_moves_the_call_on_to_the_next_provider(
    error: ProviderError,
) -> None:
    fallback, primary, secondary = chain([error], [answer()])
    response = await fallback.complete(REQUEST)
    assert response.message.text == "from the second"
    assert len(primary.requests) == len(secondary.requests) == 1
    assert secondary.requests[0] is REQUEST


async def test_an_error_of_a_type_the_user_named_moves_the_call_on() -> None:
    too_large = ReplyTooLargeError("primary: the reply is over 1 byte", limit=1)
    fallback, _, secondary = chain([too_large], [answer()], switch_on=[ReplyTooLargeError])
    response = await fallback.complete(REQUEST)
    assert response.message.text == "from the second"
    assert len(secondary.requests) == 1


async def test_a_user_named_type_switches_on_errors_that_are_not_provider_errors() -> None:
    class QuotaSpent(Exception):
        pass

    fallback, _, _ = chain([QuotaSpent("monthly quota")], [answer()], switch_on=[QuotaSpent])
    assert (await fallback.complete(REQUEST)).message.text == "from the second"


@pytest.mark.parametrize(
    "error",
    [
        ProviderError("primary: 400 invalid_request_error: bad", status=400),
        ReplyTooLargeError("primary: the reply is over 1 byte", limit=1),
        KeyError("content"),
    ],
    ids=["bad-request-400", "reply-too-large-unnamed", "not-a-provider-error"],
)
async def test_an_error_that_is_not_retryable_nor_named_is_raised_as_it_came(
    error: Exception,
) -> None:
    fallback, _, secondary = chain([error], [answer()])
    with pytest.raises(type(error)) as caught:
        await fallback.complete(REQUEST)
    assert caught.value is error
    assert secondary.requests == []
    with pytest.raises(type(error)):
        await streamed(chain([error], [answer()])[0])


async def test_cancellation_never_switches() -> None:
    started = asyncio.Event()

    class Slow(Primary):
        async def complete(self, request: ModelRequest) -> ModelResponse:
            started.set()
            await asyncio.sleep(60)
            raise AssertionError("not cancelled")

    secondary = Secondary([answer()])
    call = asyncio.create_task(FallbackProvider([Slow([]), secondary]).complete(REQUEST))
    await started.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert secondary.requests == []


# -- streaming ------------------------------------------------------------------------


async def test_a_stream_that_fails_before_its_first_delta_moves_on() -> None:
    fallback, primary, secondary = chain([overloaded()], ["Hello there"])
    items = await streamed(fallback)
    assert [type(item).__name__ for item in items] == ["TextDelta", "ModelResponse"]
    assert items[-1].message.text == "Hello there"  # type: ignore[attr-defined]
    assert len(primary.requests) == len(secondary.requests) == 1


async def test_a_stream_that_fails_after_content_was_handed_on_does_not_switch() -> None:
    broken = BrokenStream("Hel", overloaded())
    fallback, _, secondary = chain([broken], ["Hello there"])
    seen: list[object] = []

    async def read() -> None:
        async for item in fallback.stream(REQUEST):
            seen.append(item)

    with pytest.raises(ProviderError) as caught:
        await read()
    assert caught.value is broken.error  # retryable, and still not switched
    assert [getattr(item, "text", None) for item in seen] == ["Hel"]
    assert secondary.requests == []


async def test_a_streamed_run_keeps_the_partial_answer_and_never_asks_the_fallback() -> None:
    secondary = Secondary(["Hello there"])
    agent = Agent(Primary([BrokenStream("Hel", overloaded())]), fallback=[secondary])
    events: list[str] = []

    async def read() -> None:
        async for event in agent.stream("hi"):
            if isinstance(event, TextEvent):
                events.append(event.text)

    with pytest.raises(IncompleteResponseError) as caught:
        await read()
    assert events == ["Hel"]
    assert caught.value.result is not None
    assert caught.value.result.final_message == Message.assistant("Hel")
    assert secondary.requests == []


async def test_a_fallback_that_does_not_stream_is_shown_whole_in_a_streamed_run() -> None:
    secondary = Secondary(["Hello there"], streaming=False)
    agent = Agent(Primary([overloaded()]), fallback=secondary)
    texts = [e.text async for e in agent.stream("hi") if isinstance(e, TextEvent)]
    assert texts == ["Hello there"]


# -- the answering provider's reply -------------------------------------------------


async def test_the_reply_keeps_the_answering_providers_stop_reason_and_usage() -> None:
    spent = ProviderError("primary: 529", status=529, retryable=True, usage=FIRST_USAGE)
    for use_stream in (False, True):
        fallback, _, _ = chain([spent], [answer()])
        if use_stream:
            response = (await streamed(fallback))[-1]
        else:
            response = await fallback.complete(REQUEST)
        assert isinstance(response, ModelResponse)
        assert response.stop_reason is StopReason.MAX_TOKENS
        assert response.raw_stop_reason == "length"
        assert response.usage == SECOND_USAGE
        assert response.model == "secondary-1"  # the reply named none: the provider's


async def test_a_run_counts_the_answering_providers_usage_and_stop_reason() -> None:
    agent = Agent(Primary([overloaded()]), fallback=[Secondary([answer()])])
    result = await agent.run("hi")
    assert result.output == "from the second"
    assert result.usage == SECOND_USAGE
    assert result.raw_stop_reason == "length"


def retried(times: int) -> ProviderError:
    """A retryable failure after the provider's own `times` retries."""
    error = overloaded()
    error.retries = times
    return error


async def test_the_reply_counts_the_retries_of_the_providers_that_failed_before_it() -> None:
    """L99: the answering reply's retries add those of the failed attempts."""
    for use_stream in (False, True):
        third = Secondary([replace(answer(), retries=1)])
        primary, secondary = Primary([retried(2)]), Secondary([retried(3)])
        fallback = FallbackProvider([primary, secondary, third])
        if use_stream:
            response = (await streamed(fallback))[-1]
        else:
            response = await fallback.complete(REQUEST)
        assert isinstance(response, ModelResponse)
        assert response.retries == 2 + 3 + 1


async def test_a_run_counts_every_retry_of_the_chain_in_its_retries() -> None:
    """L99: a run through a chain counts every provider's retries, streamed or not."""
    agent = Agent(Primary([retried(2)]), fallback=[Secondary([replace(answer(), retries=1)])])
    assert (await agent.run("hi")).retries == 3
    streamed_run = Agent(Primary([retried(4)]), fallback=[Secondary([answer()])])
    events = streamed_run.stream("hi")
    async for _ in events:
        pass
    assert events.result.retries == 4


async def test_an_exhausted_chain_counts_the_retries_of_every_attempt() -> None:
    """L99: the exhaustion error, and the run's partial result, count every retry."""
    fallback, _, _ = chain([retried(2)], [retried(5)])
    with pytest.raises(FallbackExhaustedError) as caught:
        await fallback.complete(REQUEST)
    assert caught.value.retries == 7
    agent = Agent(Primary([retried(1)]), fallback=[Secondary([retried(2)])])
    with pytest.raises(FallbackExhaustedError) as in_run:
        await agent.run("hi")
    assert in_run.value.result is not None
    assert in_run.value.result.retries == 3


async def test_a_model_the_reply_names_is_kept() -> None:
    named = ModelResponse(Message.assistant("ok"), StopReason.END_TURN, model="secondary-1-0601")
    fallback, _, _ = chain([overloaded()], [named])
    assert (await fallback.complete(REQUEST)).model == "secondary-1-0601"


# -- when every provider failed ------------------------------------------------------


async def test_when_every_provider_fails_the_error_carries_every_attempt() -> None:
    first = ProviderError("primary: 529 overloaded", retryable=True, usage=FIRST_USAGE)
    second = ProviderTimeoutError("secondary: timed out: no event for 30 s", retryable=True)
    fallback, _, _ = chain([first], [second])
    with pytest.raises(FallbackExhaustedError) as caught:
        await fallback.complete(REQUEST)
    error = caught.value
    assert error.errors == (first, second)
    assert [(a.provider, a.model) for a in error.attempts] == [
        ("primary", "primary-1"),
        ("secondary", "secondary-1"),
    ]
    assert str(error) == (
        "fallback: all 2 providers failed: primary (primary-1): primary: 529 overloaded; "
        "secondary (secondary-1): secondary: timed out: no event for 30 s"
    )
    assert error.__cause__ is second
    assert error.retryable
    assert error.usage == FIRST_USAGE


async def test_a_run_whose_providers_all_fail_keeps_its_result_and_the_spent_usage() -> None:
    first = ProviderError("primary: 529", retryable=True, usage=FIRST_USAGE)
    agent = Agent(Primary([first]), fallback=[Secondary([overloaded()])])
    with pytest.raises(FallbackExhaustedError) as caught:
        await agent.run("hi")
    assert caught.value.result is not None
    assert caught.value.result.usage == FIRST_USAGE
    assert caught.value.result.stop_reason is StopReason.ERROR


async def test_an_exhaustion_by_a_named_error_that_is_not_retryable_is_not_retryable() -> None:
    too_large = ReplyTooLargeError("secondary: over", limit=1)
    fallback, _, _ = chain([overloaded()], [too_large], switch_on=[ReplyTooLargeError])
    with pytest.raises(FallbackExhaustedError) as caught:
        await streamed(fallback)
    assert not caught.value.retryable


# -- spelling ------------------------------------------------------------------------


async def test_agent_fallback_builds_a_chain_led_by_the_agents_provider() -> None:
    primary, secondary, third = Primary([]), Secondary([]), Secondary([])
    agent = Agent(primary, fallback=[secondary, third])
    assert isinstance(agent.provider, FallbackProvider)
    assert agent.provider.providers == (primary, secondary, third)
    assert Agent(primary, fallback=[]).provider is primary


def test_fallback_model_strings_are_resolved_through_the_installed_extensions() -> None:
    with pytest.raises(UnknownProviderError, match="no installed extension provides 'nope'"):
        Agent(Primary([]), fallback=["nope:model"])
    with pytest.raises(UnknownProviderError, match="no installed extension provides 'nope'"):
        FallbackProvider(["nope:model"])


def test_what_is_not_a_provider_is_refused_naming_the_call() -> None:
    with pytest.raises(ArgumentTypeError, match=r"Agent\(fallback=...\) needs a provider"):
        Agent(Primary([]), fallback=[42])  # type: ignore[list-item]
    with pytest.raises(ArgumentTypeError, match=r"FallbackProvider\(\) needs a provider"):
        FallbackProvider([None])  # type: ignore[list-item]
    with pytest.raises(InvalidArgumentError, match="at least one provider"):
        FallbackProvider([])
    with pytest.raises(ArgumentTypeError, match="takes exception classes"):
        FallbackProvider([Primary([])], switch_on=["ProviderError"])  # type: ignore[list-item]


def test_it_streams_when_any_provider_does_and_has_native_output_only_when_all_do() -> None:
    class Native(Secondary):
        supports_native_output = True

    both_plain = FallbackProvider([Primary([], streaming=False), Secondary([], streaming=False)])
    assert not both_plain.supports_streaming
    assert FallbackProvider([Primary([], streaming=False), Secondary([])]).supports_streaming
    assert not FallbackProvider([Native([]), Secondary([])]).supports_native_output
    assert FallbackProvider([Native([]), Native([])]).supports_native_output
    assert FallbackProvider([Primary([]), Secondary([])]).model == "primary-1"
    assert FallbackProvider([Primary([])]).provider_name == "fallback"


async def test_aclose_leaves_provider_objects_passed_in_open() -> None:
    closed: list[str] = []

    class Closable(Primary):
        async def aclose(self) -> None:
            closed.append("closed")

    async with FallbackProvider([Closable([])]):
        pass
    assert closed == []


# -- tracing -------------------------------------------------------------------------


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def tracer_provider(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def chat_spans(exporter: InMemorySpanExporter) -> tuple[ReadableSpan, list[ReadableSpan]]:
    """The run's model-call span and its attempts, in the order tried."""
    spans = exporter.get_finished_spans()
    call = next(s for s in spans if (s.attributes or {}).get("gen_ai.provider.name") == "fallback")
    attempts = [s for s in spans if s.parent and s.parent.span_id == call.context.span_id]
    return call, sorted(attempts, key=lambda s: s.start_time or 0)


@pytest.mark.parametrize("use_stream", [False, True], ids=["run", "stream"])
async def test_every_attempt_is_a_chat_span_under_the_runs_model_call(
    use_stream: bool, exporter: InMemorySpanExporter, tracer_provider: TracerProvider
) -> None:
    primary, secondary = Primary([overloaded()]), Secondary([answer()])
    agent = Agent(primary, fallback=[secondary], tracer_provider=tracer_provider)
    if use_stream:
        async for _ in agent.stream("hi"):
            pass
    else:
        await agent.run("hi")
    call, (first, second) = chat_spans(exporter)
    assert call.attributes is not None
    assert call.attributes["gen_ai.provider.name"] == "fallback"
    assert call.attributes["automata.fallback.provider"] == "secondary"
    assert call.attributes["automata.fallback.model"] == "secondary-1"
    assert call.attributes["automata.fallback.attempts"] == 2
    assert call.attributes["gen_ai.usage.input_tokens"] == SECOND_USAGE.input_tokens

    assert first.name == "chat primary-1"
    assert (
        dict(first.attributes or {}).items()
        >= {
            "gen_ai.provider.name": "primary",
            "gen_ai.request.model": "primary-1",
            "automata.fallback.attempt": 1,
            "error.type": "ProviderError",
        }.items()
    )
    assert first.status.status_code is StatusCode.ERROR
    assert first.status.description == "primary: 529 overloaded_error: Overloaded"

    assert second.name == "chat secondary-1"
    assert (
        dict(second.attributes or {}).items()
        >= {
            "gen_ai.provider.name": "secondary",
            "automata.fallback.attempt": 2,
            "gen_ai.response.finish_reasons": ("length",),
            "gen_ai.usage.output_tokens": SECOND_USAGE.output_tokens,
        }.items()
    )
    assert second.status.status_code is StatusCode.UNSET


async def test_a_failed_attempt_span_carries_what_the_call_reported_spending(
    exporter: InMemorySpanExporter, tracer_provider: TracerProvider
) -> None:
    spent = ProviderError("primary: 529", retryable=True, usage=FIRST_USAGE)
    fallback = FallbackProvider(
        [Primary([spent]), Secondary([answer()])], tracer_provider=tracer_provider
    )
    await fallback.complete(REQUEST)
    first = exporter.get_finished_spans()[0]
    assert first.attributes is not None
    assert first.attributes["gen_ai.usage.input_tokens"] == FIRST_USAGE.input_tokens


async def test_a_chain_given_its_own_tracer_provider_traces_there(
    exporter: InMemorySpanExporter, tracer_provider: TracerProvider
) -> None:
    fallback = FallbackProvider(
        [Primary([overloaded()]), Secondary([answer()])], tracer_provider=tracer_provider
    )
    await fallback.complete(REQUEST)
    names = [s.name for s in exporter.get_finished_spans()]
    assert names == ["chat primary-1", "chat secondary-1"]


async def test_an_agent_traces_the_attempts_of_a_chain_it_was_given(
    exporter: InMemorySpanExporter, tracer_provider: TracerProvider
) -> None:
    fallback = FallbackProvider([Primary([overloaded()]), Secondary([answer()])])
    agent = Agent(fallback, tracer_provider=tracer_provider)
    await agent.run("hi")
    _, attempts = chat_spans(exporter)
    assert [s.name for s in attempts] == ["chat primary-1", "chat secondary-1"]


async def test_an_attempt_a_caller_stops_reading_is_ended_without_an_error(
    exporter: InMemorySpanExporter, tracer_provider: TracerProvider
) -> None:
    fallback = FallbackProvider([Primary(["Hello there"])], tracer_provider=tracer_provider)
    items: AsyncIterator[object] = fallback.stream(REQUEST)
    await anext(items)
    await items.aclose()  # type: ignore[attr-defined]
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.UNSET


# -- the provider contract -------------------------------------------------------------

CONFORMANCE_REPLY = Message.assistant(
    [ThinkingBlock(thinking="hmm", signature="s"), TextBlock(text="hello")]
)


async def always_overloaded(request: ModelRequest) -> Reply:
    return overloaded()


async def answers_after_a_pause(request: ModelRequest) -> Reply:
    await asyncio.sleep(0.001)
    return ModelResponse(CONFORMANCE_REPLY, StopReason.END_TURN, SECOND_USAGE, "end_turn")


class TestAChainWhoseFirstProviderFailsKeepsTheProviderContract(ProviderConformance):
    def make_provider(self) -> FallbackProvider:
        return FallbackProvider(
            [FunctionProvider(always_overloaded), FunctionProvider(answers_after_a_pause)]
        )

    def scenario(self) -> ConformanceScenario:
        return ConformanceScenario(
            request=REQUEST,
            expected_stop_reason=StopReason.END_TURN,
            expected_message=CONFORMANCE_REPLY,
            expected_usage=SECOND_USAGE,
            expected_raw_stop_reason="end_turn",
        )
