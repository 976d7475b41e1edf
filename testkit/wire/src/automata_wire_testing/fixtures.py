"""Pytest fixtures for provider tests against the local wire server.

Import them into a `conftest.py` (pytest collects fixtures it finds there):

    from automata_wire_testing.fixtures import provider, server, sleeps, wire_server

`wire_server` is one server per session; `server` is that server, reset before and
after each test; `sleeps` records every wait a provider asked for between retries.
`provider` is one provider from the conftest's own `make_provider` fixture (a
`Providers`). `Providers` builds providers for one test with `FAST_RETRIES` and a sleep that records
instead of waiting, and closes them all afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any, Generic, Protocol, Self, TypeVar

import pytest

from automata.core.providers import RetryPolicy
from automata_wire_testing._server import WireServer

__all__ = ["FAST_RETRIES", "Providers", "provider", "server", "sleeps", "wire_server"]

FAST_RETRIES = RetryPolicy(max_attempts=3, base_delay=0.5, max_delay=10.0, jitter=0)
"""Three attempts, waits of 0.5 s then 1 s (no jitter): retries that tests can predict."""


class _Closable(Protocol):
    async def aclose(self) -> None: ...


P = TypeVar("P", bound=_Closable)


class Providers(Generic[P]):
    """Call it with keyword arguments to build a provider through `build`: unless
    given, `retry_policy` is `FAST_RETRIES`, `sleep` records the wait in `sleeps`
    without waiting, and the other `defaults` apply. `aclose()` (or leaving
    `async with`) closes every provider built."""

    def __init__(self, build: Callable[..., P], sleeps: list[float], **defaults: Any) -> None:
        self._build = build
        self._sleeps = sleeps
        self._defaults = defaults
        self._made: list[P] = []

    async def _sleep(self, seconds: float) -> None:
        self._sleeps.append(seconds)
        await asyncio.sleep(0)

    def __call__(self, **kwargs: Any) -> P:
        options = {"retry_policy": FAST_RETRIES, "sleep": self._sleep, **self._defaults}
        provider = self._build(**{**options, **kwargs})
        self._made.append(provider)
        return provider

    async def aclose(self) -> None:
        for provider in self._made:
            await provider.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


@pytest.fixture(scope="session")
def wire_server() -> Iterator[WireServer]:
    """One local server for the whole session."""
    running = WireServer().start()
    yield running
    running.stop()


@pytest.fixture
def server(wire_server: WireServer) -> Iterator[WireServer]:
    """The session's server with nothing scripted or received, for one test."""
    wire_server.reset()
    yield wire_server
    wire_server.reset()


@pytest.fixture
def sleeps() -> list[float]:
    """Every wait a provider asked for between retries (none is really slept)."""
    return []


@pytest.fixture
def provider(make_provider: Providers[Any]) -> Any:
    """A provider with the defaults of `make_provider` (the conftest defines it)."""
    return make_provider()
