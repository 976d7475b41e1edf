"""The deadlines every `automata.core.providers.SDKProvider` keeps, written once as tests.

Subclass `DeadlineSuite` in a test module as `Test<Vendor>Deadlines`, give it the
vendor's reply shapes and its keepalive, and provide the `make_provider` fixture
(`Providers` of the vendor's provider on the local server) beside `server` and
`sleeps` from `automata_wire_testing.fixtures`. Every test runs against a real
socket with short limits and must end within a few seconds: a keepalive flood after
content, a stall mid-stream, a stall after the end marker, a server that never
answers (streamed and not), and limits set per call through `CallOptions`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import pytest

from automata.core import Agent, CallOptions, IncompleteResponseError, RunStream, TextEvent
from automata.core.providers import (
    Message,
    ModelRequest,
    ModelResponse,
    ProviderTimeoutError,
    SDKProvider,
    TextDelta,
)
from automata_wire_testing._server import Reply, Responder, WireServer
from automata_wire_testing.fixtures import Providers

__all__ = ["DeadlineSuite"]

_TEXT = "hello there"
_FIRST_HALF = "hello"
_ENOUGH = 10.0
"""Seconds any of these tests may take: limits are 0.3 to 1 s (1 s wherever events
must flow before the stall, so a loaded machine does not trip them), so this only fails
when a limit is not kept (the SDK's own timeout is 600 s)."""

_AnyProviders = Providers[SDKProvider[Any]]


def _request(**options: Any) -> ModelRequest:
    return ModelRequest(messages=(Message.user("hi"),), options=CallOptions(**options))


async def _read(provider: SDKProvider[Any], request: ModelRequest, items: list[object]) -> None:
    async for item in provider.stream(request):
        items.append(item)


async def _texts(run: RunStream[Any], texts: list[str]) -> None:
    async for event in run:
        if isinstance(event, TextEvent):
            texts.append(event.text)


class DeadlineSuite(ABC):
    """The call deadline and the stream idle limit; a vendor fills in the blanks."""

    provider_name: ClassVar[str]
    events_before_content: ClassVar[int]
    """How many SSE events of `stream_events(...)` come before the first text delta."""
    events_after_end: ClassVar[int] = 0
    """How many SSE events of `stream_events(...)` follow the end marker."""
    keepalive: ClassVar[bytes]
    """What the vendor sends to keep an idle stream open (an event or a comment)."""

    @abstractmethod
    def answer(self, text: str) -> Responder:
        """A whole reply carrying `text` (JSON, or SSE when the request streams)."""

    @abstractmethod
    def stream_events(self, text: str) -> list[bytes]:
        """The SSE events of a streamed reply carrying `text`."""

    def stalled(self, *, after: int, keepalive: bool = False) -> Reply:
        return Reply(
            events=self.stream_events(_TEXT),
            stall_after=after,
            keepalive=self.keepalive if keepalive else None,
        )

    def timed_out(self, reason: str) -> str:
        return f"{self.provider_name}: timed out: {reason}"

    # ------------------------------------------------------------ after content

    async def test_keepalives_after_content_do_not_outlast_the_call_deadline(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(self.stalled(after=self.events_before_content + 1, keepalive=True))
        provider = make_provider(call_timeout=1.0, stream_idle_timeout=30)
        items: list[object] = []
        started = time.monotonic()
        with pytest.raises(ProviderTimeoutError) as caught:
            await _read(provider, _request(), items)
        assert time.monotonic() - started < _ENOUGH
        assert items == [TextDelta(_FIRST_HALF)]
        assert str(caught.value) == self.timed_out("the call took longer than 1 s")
        assert not caught.value.retryable

    async def test_a_stream_that_stalls_after_content_ends_at_the_idle_limit(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(self.stalled(after=self.events_before_content + 1))
        provider = make_provider(stream_idle_timeout=1.0)
        items: list[object] = []
        started = time.monotonic()
        with pytest.raises(ProviderTimeoutError) as caught:
            await _read(provider, _request(), items)
        assert time.monotonic() - started < _ENOUGH
        assert items == [TextDelta(_FIRST_HALF)]
        assert str(caught.value) == self.timed_out("no event for 1 s")
        assert not caught.value.retryable

    async def test_a_stall_after_the_end_marker_keeps_the_whole_reply(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        events = self.stream_events(_TEXT)
        server.enqueue(self.stalled(after=len(events) - self.events_after_end))
        provider = make_provider(stream_idle_timeout=1.0)
        items: list[object] = []
        started = time.monotonic()
        await _read(provider, _request(), items)
        assert time.monotonic() - started < _ENOUGH
        final = items[-1]
        assert isinstance(final, ModelResponse)
        assert final.message.text == _TEXT

    async def test_a_deadline_after_content_fails_the_run_as_incomplete(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(self.stalled(after=self.events_before_content + 1, keepalive=True))
        agent = Agent(make_provider(call_timeout=1.0, stream_idle_timeout=30))
        texts: list[str] = []
        run = agent.stream("hi")
        with pytest.raises(IncompleteResponseError) as caught:
            await _texts(run, texts)
        assert texts == [_FIRST_HALF]
        assert isinstance(caught.value.__cause__, ProviderTimeoutError)

    # ----------------------------------------------------------- before content

    async def test_a_server_that_never_answers_a_stream_is_retried_then_given_up(
        self, server: WireServer, make_provider: _AnyProviders, sleeps: list[float]
    ) -> None:
        server.enqueue(*[Reply(stall_before=True)] * 3)
        provider = make_provider(stream_idle_timeout=0.3)
        started = time.monotonic()
        with pytest.raises(ProviderTimeoutError) as caught:
            await _read(provider, _request(), [])
        assert time.monotonic() - started < _ENOUGH
        assert str(caught.value) == self.timed_out("no event for 0.3 s")
        assert caught.value.retryable
        assert (len(server.received), sleeps) == (3, [0.5, 1.0])

    async def test_a_server_that_never_answers_a_call_is_retried_then_given_up(
        self, server: WireServer, make_provider: _AnyProviders, sleeps: list[float]
    ) -> None:
        server.enqueue(*[Reply(stall_before=True)] * 3)
        provider = make_provider(call_timeout=0.3)
        started = time.monotonic()
        with pytest.raises(ProviderTimeoutError) as caught:
            await provider.complete(_request())
        assert time.monotonic() - started < _ENOUGH
        assert str(caught.value) == self.timed_out("the call took longer than 0.3 s")
        assert (len(server.received), sleeps) == (3, [0.5, 1.0])

    async def test_a_stall_before_the_first_delta_is_retried(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(self.stalled(after=self.events_before_content), self.answer(_TEXT))
        provider = make_provider(stream_idle_timeout=1.0)
        items: list[object] = []
        await _read(provider, _request(), items)
        final = items[-1]
        assert isinstance(final, ModelResponse)
        assert final.message.text == _TEXT
        assert len(server.received) == 2

    # ------------------------------------------------------------------ settings

    async def test_call_options_set_the_limits_of_one_call(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(self.stalled(after=self.events_before_content + 1, keepalive=True))
        provider = make_provider()  # the defaults: 30 minutes, 5 minutes
        items: list[object] = []
        with pytest.raises(ProviderTimeoutError) as caught:
            await _read(provider, _request(call_timeout=1.0), items)
        assert str(caught.value) == self.timed_out("the call took longer than 1 s")

    async def test_per_run_options_merge_with_the_agents_field_by_field(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.enqueue(self.stalled(after=self.events_before_content + 1))
        agent = Agent(make_provider(), call_options=CallOptions(stream_idle_timeout=1.0))
        run = agent.stream("hi", call_options=CallOptions(call_timeout=60))
        with pytest.raises(IncompleteResponseError) as caught:
            await _texts(run, [])
        assert str(caught.value.__cause__) == self.timed_out("no event for 1 s")

    def test_limits_must_be_positive(self, make_provider: _AnyProviders) -> None:
        with pytest.raises(ValueError, match=r"^call_timeout must be positive or None, got 0$"):
            make_provider(call_timeout=0)
        with pytest.raises(
            ValueError, match=r"^stream_idle_timeout must be positive or None, got -1$"
        ):
            make_provider(stream_idle_timeout=-1)
