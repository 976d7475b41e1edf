"""automata.core.providers: the base a provider author builds on, shown on a vendor
written against it here ("acme", an in-memory SDK): what a vendor implements is all
it needs, and the rules the base keeps hold for it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from automata.core.providers import (
    Delta,
    Message,
    MissingAPIKeyError,
    ModelRequest,
    ModelResponse,
    ProviderError,
    RetryPolicy,
    SDKProvider,
    StopReason,
    TextBlock,
    TextDelta,
)

REQUEST = ModelRequest(messages=(Message.user("hi"),))


class AcmeError(Exception):
    """The SDK's own error, with an HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class AcmeStream:
    """Yields scripted events; an exception in the script is raised when reached."""

    def __init__(self, events: Sequence[object]) -> None:
        self._events = list(events)
        self.closed = False

    async def __anext__(self) -> object:
        if not self._events:
            raise StopAsyncIteration
        event = self._events.pop(0)
        if isinstance(event, Exception):
            raise event
        return event

    async def close(self) -> None:
        self.closed = True


class AcmeClient:
    """An in-memory SDK client: each call takes the next scripted outcome."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.outcomes: list[object] = []
        self.closed = False

    def with_options(self, **options: Any) -> AcmeClient:
        copy = AcmeClient(**{**self.options, **options})
        copy.outcomes = self.outcomes
        return copy

    async def close(self) -> None:
        self.closed = True


class AcmeAssembler:
    """Events are strings; "." ends the reply."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.finished = False

    def feed(self, event: Any) -> Sequence[Delta]:
        if event == ".":
            self.finished = True
            return ()
        self.parts.append(event)
        return (TextDelta(event),)

    def response(self) -> ModelResponse:
        text = "".join(self.parts)
        return ModelResponse(Message.assistant([TextBlock(text=text)]), StopReason.END_TURN)


class AcmeProvider(SDKProvider[AcmeClient]):
    provider_name = "acme"
    client_class = AcmeClient
    api_key_env = "ACME_API_KEY"
    stream_end = "the final dot"

    def request_params(self, request: ModelRequest) -> dict[str, Any]:
        return {"model": self.model, "prompt": request.messages[-1].text}

    async def send(self, params: dict[str, Any]) -> Any:
        outcome = self.client.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return AcmeStream(outcome) if isinstance(outcome, list) else outcome

    def parse_response(self, raw: Any, /) -> ModelResponse:
        return ModelResponse(Message.assistant([TextBlock(text=raw)]), StopReason.END_TURN)

    def new_assembler(self) -> AcmeAssembler:
        return AcmeAssembler()

    def vendor_error(self, error: Exception) -> ProviderError | None:
        if isinstance(error, AcmeError):
            return self.status_error(error.status, "acme_error", str(error))
        return None


async def no_sleep(seconds: float) -> None:
    return None


def acme(*outcomes: object, **options: Any) -> AcmeProvider:
    provider = AcmeProvider("acme-1", api_key="k", sleep=no_sleep, **options)
    provider.client.outcomes.extend(outcomes)
    return provider


async def texts_until_error(provider: AcmeProvider) -> tuple[list[str], ProviderError]:
    texts: list[str] = []

    async def read() -> None:
        async for item in provider.stream(REQUEST):
            if isinstance(item, TextDelta):
                texts.append(item.text)

    with pytest.raises(ProviderError) as caught:
        await read()
    return texts, caught.value


async def test_a_vendor_implementing_the_hooks_completes_and_streams() -> None:
    provider = acme("whole", ["str", "eam", "."])
    assert (await provider.complete(REQUEST)).message.text == "whole"
    items = [item async for item in provider.stream(REQUEST)]
    assert items[:2] == [TextDelta("str"), TextDelta("eam")]
    assert isinstance(items[-1], ModelResponse)
    assert items[-1].message.text == "stream"


def test_the_declared_properties_have_their_defaults() -> None:
    provider = acme()
    declared = (
        provider.provider_name,
        provider.model,
        provider.supports_streaming,
        provider.supports_native_output,
    )
    assert declared == ("acme", "acme-1", True, False)


def test_the_clients_retries_are_switched_off() -> None:
    assert acme(timeout=5.0).client.options == {
        "api_key": "k",
        "base_url": None,
        "max_retries": 0,
        "timeout": 5.0,
    }


def test_a_missing_key_names_the_variable_and_the_argument(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ACME_API_KEY", raising=False)
    with pytest.raises(MissingAPIKeyError) as caught:
        AcmeProvider("acme-1")
    assert str(caught.value) == (
        "acme: no API key: set the ACME_API_KEY environment variable, "
        "or pass AcmeProvider(model, api_key=...)"
    )
    assert caught.value.provider == "acme"


async def test_a_passed_in_client_is_adopted_and_left_open() -> None:
    client = AcmeClient(max_retries=7)
    async with AcmeProvider("acme-1", client=client) as provider:
        assert provider.client.options == {"max_retries": 0}
    assert not client.closed
    assert provider.client is not client


async def test_an_own_client_is_closed_by_aclose() -> None:
    async with acme() as provider:
        pass
    assert provider.client.closed


async def test_a_retryable_failure_before_the_first_delta_is_retried() -> None:
    provider = acme(AcmeError(529, "busy"), ["ok", "."])
    items = [item async for item in provider.stream(REQUEST)]
    assert items[0] == TextDelta("ok")


async def test_a_retryable_failure_after_a_delta_is_final_and_keeps_its_status() -> None:
    provider = acme(["one", AcmeError(529, "busy")], ["two", "."])
    texts, error = await texts_until_error(provider)
    assert texts == ["one"]
    assert (str(error), error.status, error.retryable) == ("acme: 529 acme_error: busy", 529, False)


async def test_a_failure_that_is_not_the_vendors_is_final_and_names_its_type() -> None:
    provider = acme(KeyError("choices"), "never")
    with pytest.raises(ProviderError) as caught:
        await provider.complete(REQUEST)
    assert (str(caught.value), caught.value.retryable) == ("acme: KeyError: 'choices'", False)
    assert isinstance(caught.value.__cause__, KeyError)


async def test_a_failure_after_the_end_marker_keeps_the_whole_reply() -> None:
    provider = acme(["done", ".", AcmeError(500, "late")])
    items = [item async for item in provider.stream(REQUEST)]
    assert isinstance(items[-1], ModelResponse)
    assert items[-1].message.text == "done"


async def test_a_body_that_ends_early_after_a_delta_names_the_end_marker() -> None:
    provider = acme(["half"], retry_policy=RetryPolicy.never())
    texts, error = await texts_until_error(provider)
    assert texts == ["half"]
    assert (str(error), error.retryable) == ("acme: stream ended before the final dot", False)


class ComposedAcme(SDKProvider[AcmeClient]):
    """A vendor that writes `complete` and `stream` itself, top to bottom (build the
    body, make the call, read the reply), on the base's helpers: no `send`,
    `parse_response` or `new_assembler`."""

    provider_name = "acme"
    client_class = AcmeClient
    api_key_env = "ACME_API_KEY"
    stream_end = "the final dot"

    def request_params(self, request: ModelRequest) -> dict[str, Any]:
        return {"prompt": request.messages[-1].text}

    async def _call(self, params: dict[str, Any]) -> Any:
        outcome = self.client.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return AcmeStream(outcome) if isinstance(outcome, list) else outcome

    async def complete(self, request: ModelRequest) -> ModelResponse:
        params = self.request_params(request)
        return await self.call_reply(request.options, lambda: self._call(params), _whole)

    def stream(self, request: ModelRequest) -> Any:
        params = self.request_params(request)
        return self.stream_reply(request.options, lambda: self._call(params), AcmeAssembler)

    def vendor_error(self, error: Exception) -> ProviderError | None:
        if isinstance(error, AcmeError):
            return self.status_error(error.status, "acme_error", str(error))
        return None


def _whole(raw: Any) -> ModelResponse:
    if raw == "unreadable":
        raise KeyError("choices")
    return ModelResponse(Message.assistant([TextBlock(text=raw)]), StopReason.END_TURN)


def composed(*outcomes: object, **options: Any) -> ComposedAcme:
    provider = ComposedAcme("acme-1", api_key="k", sleep=no_sleep, **options)
    provider.client.outcomes.extend(outcomes)
    return provider


async def test_a_vendor_on_the_helpers_retries_maps_errors_and_streams_without_the_hooks() -> None:
    provider = composed(AcmeError(529, "busy"), "whole", AcmeError(503, "busy"), ["a", "b", "."])
    assert (await provider.complete(REQUEST)).message.text == "whole"
    items = [item async for item in provider.stream(REQUEST)]
    assert items[:2] == [TextDelta("a"), TextDelta("b")]
    assert isinstance(items[-1], ModelResponse)
    assert items[-1].message.text == "ab"
    assert provider.client.outcomes == []


async def test_a_reply_the_helpers_cannot_read_is_a_final_provider_error() -> None:
    provider = composed("unreadable", "never")
    with pytest.raises(ProviderError) as caught:
        await provider.complete(REQUEST)
    assert (str(caught.value), caught.value.retryable) == ("acme: KeyError: 'choices'", False)
    assert provider.client.outcomes == ["never"]


async def test_an_answer_stands_for_the_error_it_reads_before_any_delta() -> None:
    provider = composed(AcmeError(400, "bad call"), AcmeError(400, "bad call"))
    answer = ModelResponse(Message.assistant([TextBlock(text="fixed")]), StopReason.END_TURN)

    def answer_for(error: Exception) -> ModelResponse | None:
        return answer if isinstance(error, AcmeError) else None

    async def call() -> Any:
        return await provider._call({})

    whole = await provider.call_reply(REQUEST.options, call, _whole, answer=answer_for)
    streamed = [
        item
        async for item in provider.stream_reply(
            REQUEST.options, call, AcmeAssembler, answer=answer_for
        )
    ]
    assert (whole, streamed) == (answer, [answer])


def test_a_vendor_that_writes_neither_the_calls_nor_their_hooks_is_refused() -> None:
    class Half(SDKProvider[AcmeClient]):
        provider_name = "acme"
        client_class = AcmeClient
        api_key_env = "ACME_API_KEY"
        stream_end = "the final dot"

        def request_params(self, request: ModelRequest) -> dict[str, Any]:
            return {}

        async def complete(self, request: ModelRequest) -> ModelResponse:
            raise NotImplementedError

        def vendor_error(self, error: Exception) -> ProviderError | None:
            return None

    with pytest.raises(TypeError) as caught:
        Half("acme-1", api_key="k")
    assert str(caught.value) == (
        "Can't instantiate Half without send, new_assembler: the base's complete and "
        "stream call them (or write complete and stream on the base's helpers)"
    )


# --- retries made visible (docs/loop.md L99) ------------------------------------------


async def test_a_whole_reply_carries_how_many_failed_attempts_were_repeated() -> None:
    """L99: a whole reply carries its retries."""
    provider = acme(AcmeError(529, "busy"), AcmeError(429, "slow"), "ok")
    response = await provider.complete(REQUEST)
    assert (response.message.text, response.retries) == ("ok", 2)


async def test_a_streamed_reply_carries_the_retries_before_its_first_delta() -> None:
    """L99: a streamed reply carries the retries before its first delta."""
    provider = acme(AcmeError(529, "busy"), ["ok", "."])
    final = [item async for item in provider.stream(REQUEST)][-1]
    assert isinstance(final, ModelResponse)
    assert final.retries == 1


async def test_a_failure_after_a_delta_carries_the_retries_made_before_it() -> None:
    """L99: an error after content carries the retries made before it."""
    provider = acme(AcmeError(529, "busy"), ["one", AcmeError(529, "busy")])
    texts, error = await texts_until_error(provider)
    assert (texts, error.retries) == (["one"], 1)


async def test_the_last_error_of_spent_retries_carries_them_and_a_final_one_none() -> None:
    """L99: the error of spent retries carries them; a final error none."""
    spent = acme(AcmeError(529, "a"), AcmeError(529, "b"), AcmeError(529, "c"))
    with pytest.raises(ProviderError) as caught:
        await spent.complete(REQUEST)
    assert (str(caught.value), caught.value.retries) == ("acme: 529 acme_error: c", 2)
    final = acme(AcmeError(400, "bad"))
    with pytest.raises(ProviderError) as refused:
        await final.complete(REQUEST)
    assert refused.value.retries == 0


async def test_each_retry_is_an_event_on_the_span_current_during_the_call() -> None:
    """L99: each retry is an `automata.retry` event on the call's span."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    provider = acme(AcmeError(529, "busy"), KeyError("choices"), "never")
    tracer = tracer_provider.get_tracer("test")
    with tracer.start_as_current_span("chat"), pytest.raises(ProviderError):
        await provider.complete(REQUEST)
    (span,) = exporter.get_finished_spans()
    events = [(event.name, dict(event.attributes or {})) for event in span.events]
    assert events == [
        (
            "automata.retry",
            {
                "automata.retry.number": 1,
                "automata.retry.delay": events[0][1]["automata.retry.delay"],
                "error.type": "ProviderError",
                "http.response.status_code": 529,
            },
        )
    ]
    assert 0 <= float(events[0][1]["automata.retry.delay"]) <= 0.5  # type: ignore[arg-type]
