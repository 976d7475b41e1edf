"""What every `automata.core.providers.SDKProvider` must do, written once as tests.

Subclass `SDKProviderSuite` in a test module as `Test<Vendor>Provider`, give it the
vendor's reply shapes and the exact messages its errors carry, and provide the
`make_provider` fixture (`Providers` of the vendor's provider on the local server)
beside `server` and `sleeps` from `automata_wire_testing.fixtures`. The tests cover
client ownership, the declared properties, missing credentials, retries before the
first delta (and none after it), error mapping, and how a broken stream ends.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import pytest

from automata.core import Agent, IncompleteResponseError, TextEvent, ToolCallEvent, tool
from automata.core.providers import (
    Message,
    ModelRequest,
    ModelResponse,
    ProviderError,
    RetryPolicy,
    SDKProvider,
    StopReason,
    TextDelta,
    Usage,
)
from automata_wire_testing._server import Reply, Responder, WireServer, unreachable_url
from automata_wire_testing.fixtures import Providers

__all__ = ["REQUEST", "SDKProviderSuite"]

REQUEST = ModelRequest(messages=(Message.user("hi"),))
"""The request every test of the suite sends."""

_SHORT = "fine now"
_ANSWER = "It snows in Oslo."
_LONG = "one two three four"
_AnyProviders = Providers[SDKProvider[Any]]


def weather(city: str) -> str:
    """Current weather for a city."""
    return f"snow in {city}"


async def _drain(provider: SDKProvider[Any]) -> list[object]:
    return [item async for item in provider.stream(REQUEST)]


async def _read_texts(provider: SDKProvider[Any], texts: list[str]) -> None:
    async for item in provider.stream(REQUEST):
        if isinstance(item, TextDelta):
            texts.append(item.text)


async def _texts_until_error(provider: SDKProvider[Any]) -> tuple[list[str], ProviderError]:
    texts: list[str] = []
    with pytest.raises(ProviderError) as caught:
        await _read_texts(provider, texts)
    return texts, caught.value


class SDKProviderSuite(ABC):
    """The shared behaviour of SDK-backed providers; a vendor fills in the blanks."""

    provider_class: ClassVar[type[SDKProvider[Any]]]
    provider_name: ClassVar[str]
    model: ClassVar[str]
    api_path: ClassVar[str]
    """The path the SDK posts to, under the server's root, e.g. `/v1/messages`."""
    base_path: ClassVar[str] = ""
    """What `base_url` adds to the server's root (`/v1` for OpenAI)."""
    events_before_content: ClassVar[int]
    """How many SSE events of `stream_events(...)` come before the first text delta."""
    events_after_end: ClassVar[int] = 0
    """How many SSE events of `stream_events(...)` follow the end marker."""
    tool_call_stop: ClassVar[str]
    """The vendor's raw stop reason for a turn that calls tools."""
    credential_envs: ClassVar[tuple[str, ...]]
    """Every environment variable the provider takes credentials from."""

    missing_key_message: ClassVar[str]
    connection_message: ClassVar[str]
    """With `{url}` where the unreachable server's root goes."""
    ended_early_message: ClassVar[str]
    rate_limited_message: ClassVar[str]
    """The message of `error(429, "slow down")`."""
    late_error_message: ClassVar[str | None] = None
    """The message of `error_event(529, "late")` sent after the end marker, when the
    provider raises it (the server said the call failed); None when it keeps the
    reply (the event is only a lost tail)."""

    @abstractmethod
    def answer(self, text: str) -> Responder:
        """A reply of `text`: JSON, or SSE when the request streams."""

    @abstractmethod
    def stream_events(self, text: str) -> list[bytes]:
        """The SSE events of a streamed reply of `text` (two text deltas)."""

    @abstractmethod
    def error(self, status: int, text: str, *, headers: dict[str, str] | None = None) -> Reply:
        """The vendor's error response with this status and message."""

    @abstractmethod
    def error_event(self, status: int, text: str) -> bytes:
        """An error sent inside a stream, of a kind the provider maps to `status`."""

    @abstractmethod
    def client_errors(self) -> list[tuple[Reply, str]]:
        """Error responses for 400, 401, 403 and 404, each with its exact message."""

    @abstractmethod
    def agent_turns(self, tool_name: str) -> tuple[Responder, Responder]:
        """A turn calling `tool_name` with `{"city": "Oslo"}`, then the answer
        "It snows in Oslo.", each reporting 10 input and 5 output tokens."""

    @abstractmethod
    def new_client(self, base_url: str, *, max_retries: int) -> Any:
        """The vendor SDK's async client."""

    def sdk_retries(self, client: Any) -> int:
        """How often `client` (the vendor SDK's) repeats a failed request itself."""
        retries: int = client.max_retries
        return retries

    def is_closed(self, client: Any) -> bool:
        """Whether `client` (the vendor SDK's) was closed."""
        closed: bool = client.is_closed()
        return closed

    async def close_client(self, client: Any) -> None:
        """Close `client` (one of `new_client`'s)."""
        await client.close()

    def _client_for(self, server: WireServer, max_retries: int = 5) -> Any:
        return self.new_client(server.base_url + self.base_path, max_retries=max_retries)

    # --- what a provider declares --------------------------------------------------

    async def test_the_provider_declares_its_name_model_and_capabilities(
        self, make_provider: _AnyProviders
    ) -> None:
        provider = make_provider()
        declared = (
            provider.provider_name,
            provider.model,
            provider.supports_streaming,
            provider.supports_native_output,
        )
        assert declared == (self.provider_name, self.model, True, True)
        assert isinstance(provider, self.provider_class)  # a test's subclass names itself
        assert repr(provider) == f"{type(provider).__name__}(model={self.model!r})"

    # --- credentials and clients ---------------------------------------------------

    def test_a_missing_api_key_is_refused_at_construction_naming_the_variable(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        for name in self.credential_envs:
            monkeypatch.delenv(name, raising=False)
        with pytest.raises(ProviderError) as caught:
            self.provider_class("some-model")
        assert str(caught.value) == self.missing_key_message

    def test_an_api_key_from_the_environment_is_enough(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv(self.provider_class.api_key_env, "from-env")
        assert self.provider_class("some-model").model == "some-model"

    async def test_client_and_credentials_are_exclusive(self, server: WireServer) -> None:
        client = self._client_for(server)
        exactly = r"^pass either client or api_key/base_url, not both$"
        with pytest.raises(ValueError, match=exactly):
            self.provider_class("m", client=client, api_key="other")
        await self.close_client(client)

    async def test_a_server_that_cannot_be_reached_is_named_in_the_error(self) -> None:
        url = unreachable_url()
        provider = self.provider_class(
            "m", api_key="k", base_url=url + self.base_path, retry_policy=RetryPolicy.never()
        )
        async with provider:
            with pytest.raises(ProviderError) as caught:
                await provider.complete(REQUEST)
        assert str(caught.value) == self.connection_message.format(url=url)
        assert caught.value.retryable

    async def test_a_client_the_provider_built_is_closed_by_aclose(
        self, server: WireServer
    ) -> None:
        provider = self.provider_class("m", api_key="k", base_url=server.base_url + self.base_path)
        async with provider:
            pass
        assert self.is_closed(provider.client)

    async def test_a_passed_in_client_is_used_without_its_own_retries_and_left_open(
        self, server: WireServer
    ) -> None:
        client = self._client_for(server, max_retries=5)
        provider = self.provider_class("m", client=client, retry_policy=RetryPolicy.never())
        server.always(self.error(529, "overloaded"))
        try:
            async with provider:
                with pytest.raises(ProviderError):
                    await provider.complete(REQUEST)
            assert len(server.received) == 1
            assert self.sdk_retries(client) == 5
            assert not self.is_closed(client)
        finally:
            await self.close_client(client)

    async def test_the_sdks_own_retries_are_off(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        provider = make_provider(retry_policy=RetryPolicy.never())
        assert self.sdk_retries(provider.client) == 0
        server.always(self.error(503, "unavailable"))
        with pytest.raises(ProviderError):
            await provider.complete(REQUEST)
        assert len(server.received) == 1

    # --- retried before anything was streamed ------------------------------------

    async def test_rate_limit_is_retried_after_the_servers_retry_after(
        self, server: WireServer, make_provider: _AnyProviders, sleeps: list[float]
    ) -> None:
        limited = self.error(429, "slow down", headers={"retry-after": "2"})
        server.enqueue(limited, self.answer(_SHORT))
        response = await make_provider().complete(REQUEST)
        assert response.message.text == _SHORT
        assert sleeps == [2.0]
        assert len(server.received) == 2

    async def test_retry_after_ms_is_preferred_for_precision(
        self, server: WireServer, make_provider: _AnyProviders, sleeps: list[float]
    ) -> None:
        headers = {"retry-after": "1", "retry-after-ms": "250"}
        server.enqueue(self.error(429, "slow down", headers=headers), self.answer(_SHORT))
        await make_provider().complete(REQUEST)
        assert sleeps == [0.25]

    async def test_overload_529_is_retried_with_backoff(
        self, server: WireServer, make_provider: _AnyProviders, sleeps: list[float]
    ) -> None:
        overloaded = self.error(529, "overloaded")
        server.enqueue(overloaded, overloaded, self.answer(_SHORT))
        assert (await make_provider().complete(REQUEST)).message.text == _SHORT
        assert sleeps == [0.5, 1.0]

    async def test_unavailable_503_is_retried(
        self, server: WireServer, make_provider: _AnyProviders, sleeps: list[float]
    ) -> None:
        server.enqueue(self.error(503, "unavailable"), self.answer(_SHORT))
        assert (await make_provider().complete(REQUEST)).message.text == _SHORT
        assert len(sleeps) == 1

    async def test_retries_stop_at_the_policy_limit_with_the_last_error(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.always(self.error(429, "slow down"))
        with pytest.raises(ProviderError) as caught:
            await make_provider().complete(REQUEST)
        error = caught.value
        assert (str(error), error.status, error.retryable) == (
            self.rate_limited_message,
            429,
            True,
        )
        assert len(server.received) == 3

    async def test_a_stream_that_cannot_start_is_retried(
        self, server: WireServer, make_provider: _AnyProviders, sleeps: list[float]
    ) -> None:
        server.enqueue(self.error(429, "slow down"), self.answer(_SHORT))
        final = (await _drain(make_provider()))[-1]
        assert isinstance(final, ModelResponse)
        assert final.message.text == _SHORT
        assert len(sleeps) == 1

    async def test_an_error_event_before_any_content_is_retried(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        opening = self.stream_events(_SHORT)[: self.events_before_content]
        failing = Reply(events=[*opening, self.error_event(529, "overloaded")])
        server.enqueue(failing, self.answer(_SHORT))
        items = await _drain(make_provider())
        assert [i.text for i in items if isinstance(i, TextDelta)] == ["fine", " now"]
        assert len(server.received) == 2

    async def test_a_connection_dropped_before_any_content_is_retried(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        events = self.stream_events(_SHORT)
        server.enqueue(
            Reply(events=events, drop_after=self.events_before_content), self.answer(_SHORT)
        )
        assert isinstance((await _drain(make_provider()))[-1], ModelResponse)
        assert len(server.received) == 2

    async def test_a_stream_that_ends_early_before_any_content_is_retried(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        opening = self.stream_events(_SHORT)[: self.events_before_content]
        server.enqueue(Reply(events=opening), self.answer(_SHORT))
        assert isinstance((await _drain(make_provider()))[-1], ModelResponse)
        assert len(server.received) == 2

    # --- retries made visible (docs/loop.md L99) ---------------------------------------

    async def test_a_reply_after_an_overload_carries_its_one_retry(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(self.error(529, "overloaded"), self.answer(_SHORT))
        response = await make_provider().complete(REQUEST)
        assert (response.message.text, response.retries) == (_SHORT, 1)

    async def test_a_reply_at_the_first_try_carries_no_retries(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(self.answer(_SHORT))
        assert (await make_provider().complete(REQUEST)).retries == 0

    async def test_a_streamed_reply_after_a_rate_limit_carries_its_one_retry(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(self.error(429, "slow down"), self.answer(_SHORT))
        final = (await _drain(make_provider()))[-1]
        assert isinstance(final, ModelResponse)
        assert (final.message.text, final.retries) == (_SHORT, 1)

    async def test_an_error_past_the_retry_policy_carries_the_retries_it_made(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.always(self.error(429, "slow down"))
        with pytest.raises(ProviderError) as caught:
            await make_provider().complete(REQUEST)
        assert caught.value.retries == 2
        with pytest.raises(ProviderError) as streamed:
            await _drain(make_provider())
        assert streamed.value.retries == 2

    async def test_a_run_counts_its_calls_retries_and_traces_each_on_the_chat_span(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
        turn, answer = self.agent_turns("weather")
        server.enqueue(self.error(529, "overloaded"), turn, answer)
        agent = Agent(make_provider(), tools=[tool(weather)], tracer_provider=tracer_provider)
        result = await agent.run("Weather in Oslo?")
        assert (result.output, result.steps, result.retries) == (_ANSWER, 2, 1)
        chats = [s for s in exporter.get_finished_spans() if s.name.startswith("chat")]
        retried = [[dict(e.attributes or {}) for e in span.events] for span in chats]
        assert [
            [(e["automata.retry.number"], e.get("http.response.status_code")) for e in r]
            for r in retried
        ] == [[(1, 529)], []]

    async def test_a_run_that_fails_past_the_retry_policy_reports_its_retries(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.always(self.error(529, "overloaded"))
        with pytest.raises(ProviderError) as caught:
            await Agent(make_provider()).run("Weather in Oslo?")
        result = caught.value.result
        assert result is not None
        assert (result.steps, result.retries) == (1, 2)

    # --- raised at once ----------------------------------------------------------------

    async def test_client_errors_are_raised_at_once_with_status_and_vendor_message(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        provider = make_provider()
        for reply, message in self.client_errors():
            server.reset()
            server.always(reply)
            with pytest.raises(ProviderError) as caught:
                await provider.complete(REQUEST)
            error = caught.value
            assert (str(error), error.status, error.retryable, error.provider) == (
                message,
                reply.status,
                False,
                self.provider_name,
            )
            assert len(server.received) == 1

    async def test_internal_server_error_500_is_raised_at_once(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.always(self.error(500, "oops"))
        with pytest.raises(ProviderError) as caught:
            await make_provider().complete(REQUEST)
        assert (caught.value.status, caught.value.retryable) == (500, False)
        assert len(server.received) == 1

    async def test_statuses_to_retry_can_be_chosen(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        provider = make_provider(retry_statuses={429, 500, 503, 529})
        server.enqueue(self.error(500, "oops"), self.answer(_SHORT))
        assert (await provider.complete(REQUEST)).message.text == _SHORT

    async def test_a_single_attempt_policy_never_retries(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.always(self.error(429, "slow down"))
        with pytest.raises(ProviderError):
            await make_provider(retry_policy=RetryPolicy.never()).complete(REQUEST)
        assert len(server.received) == 1

    async def test_a_reply_that_cannot_be_parsed_is_a_provider_error_not_retried(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.always(Reply(json_body={"unexpected": True}))
        with pytest.raises(ProviderError) as caught:
            await make_provider().complete(REQUEST)
        assert str(caught.value).startswith(f"{self.provider_name}: ")
        assert not caught.value.retryable
        assert len(server.received) == 1

    # --- breaking after content was streamed ------------------------------------------

    async def test_an_error_event_after_content_raises_without_retrying(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        through_first = self.stream_events(_LONG)[: self.events_before_content + 1]
        events = [*through_first, self.error_event(529, "try later")]
        server.enqueue(Reply(events=events), self.answer(_LONG))
        texts, error = await _texts_until_error(make_provider())
        assert texts == ["one two t"]
        assert (error.status, error.retryable) == (529, False)
        assert "try later" in str(error)
        assert len(server.received) == 1

    async def test_a_connection_dropped_after_content_raises_without_retrying(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        dropped = Reply(events=self.stream_events(_LONG), drop_after=self.events_before_content + 1)
        server.enqueue(dropped, self.answer(_LONG))
        texts, error = await _texts_until_error(make_provider())
        assert texts == ["one two t"]
        assert not error.retryable
        assert len(server.received) == 1

    async def test_a_stream_that_ends_early_after_content_is_an_error(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        through_first = self.stream_events(_LONG)[: self.events_before_content + 1]
        server.enqueue(Reply(events=through_first), self.answer(_LONG))
        texts, error = await _texts_until_error(make_provider())
        assert texts == ["one two t"]
        assert (str(error), error.retryable) == (self.ended_early_message, False)

    async def test_an_error_event_after_the_reply_is_whole_is_raised_or_loses_only_the_tail(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        events = self.stream_events(_SHORT)
        whole = len(events) - self.events_after_end
        server.enqueue(Reply(events=[*events[:whole], self.error_event(529, "late")]))
        if self.late_error_message is None:
            final = (await _drain(make_provider()))[-1]
            assert isinstance(final, ModelResponse)
            assert final.message.text == _SHORT
            return
        with pytest.raises(ProviderError) as caught:
            await _drain(make_provider())
        assert (str(caught.value), caught.value.retryable) == (self.late_error_message, False)

    # --- under the agent loop -----------------------------------------------------------

    async def test_an_agent_runs_a_tool_call_then_answers(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(*self.agent_turns("weather"))
        result = await Agent(make_provider(), tools=[tool(weather)]).run("Weather in Oslo?")
        assert result.output == _ANSWER
        assert (result.steps, result.stop_reason) == (2, StopReason.END_TURN)
        assert result.usage == Usage(input_tokens=20, output_tokens=10)

    async def test_a_streamed_agent_run_emits_text_and_the_tool_call(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(*self.agent_turns("weather"))
        stream = Agent(make_provider(), tools=[tool(weather)]).stream("Weather in Oslo?")
        events = [event async for event in stream]
        assert "".join(e.text for e in events if isinstance(e, TextEvent)) == _ANSWER
        assert [e.call.name for e in events if isinstance(e, ToolCallEvent)] == ["weather"]
        assert stream.result.usage == Usage(input_tokens=20, output_tokens=10)

    async def test_a_stream_broken_after_text_fails_the_run_as_incomplete_with_the_partial_text(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        events = self.stream_events(_ANSWER)
        server.enqueue(Reply(events=events, drop_after=self.events_before_content + 1))
        stream = Agent(make_provider()).stream("Weather in Oslo?")
        with pytest.raises(IncompleteResponseError) as caught:
            _ = [event async for event in stream]
        result = caught.value.result
        assert result is not None
        assert result.stop_reason is StopReason.INCOMPLETE
        assert result.messages[-1].text == "It snows"
        assert len(server.received) == 1

    async def test_a_traced_run_reports_the_provider_model_and_usage_on_its_chat_spans(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
        server.enqueue(*self.agent_turns("weather"))
        agent = Agent(make_provider(), tools=[tool(weather)], tracer_provider=tracer_provider)
        await agent.run("Weather in Oslo?")
        chats = [s for s in exporter.get_finished_spans() if s.name.startswith("chat")]
        assert len(chats) == 2
        attributes = dict(chats[0].attributes or {})
        assert attributes["gen_ai.provider.name"] == self.provider_name
        assert attributes["gen_ai.request.model"] == self.model
        assert attributes["gen_ai.response.finish_reasons"] == (self.tool_call_stop,)
        usage = (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"])
        assert usage == (10, 5)
