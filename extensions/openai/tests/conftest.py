"""Fixtures: one local OpenAI-speaking server per session, fresh providers per test."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from automata.core._retry import RetryPolicy
from automata.openai import OpenAIProvider

from .wire_server import WireServer

MODEL = "gpt-test"
FAST_RETRIES = RetryPolicy(max_attempts=3, base_delay=0.5, max_delay=10.0, jitter=0)


@pytest.fixture(scope="session")
def wire_server() -> Iterator[WireServer]:
    server = WireServer().start()
    yield server
    server.stop()


@pytest.fixture
def server(wire_server: WireServer) -> Iterator[WireServer]:
    wire_server.reset()
    yield wire_server
    wire_server.reset()


@pytest.fixture
def sleeps() -> list[float]:
    """Every wait a provider asked for between retries (none is really slept)."""
    return []


ProviderMaker = Callable[..., OpenAIProvider]


@pytest.fixture
async def make_provider(server: WireServer, sleeps: list[float]) -> AsyncIterator[ProviderMaker]:
    made: list[OpenAIProvider] = []

    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)
        await asyncio.sleep(0)

    def make(**kwargs: Any) -> OpenAIProvider:
        kwargs.setdefault("retry_policy", FAST_RETRIES)
        kwargs.setdefault("sleep", fake_sleep)
        provider = OpenAIProvider(
            kwargs.pop("model", MODEL),
            api_key="test-key",
            base_url=f"{server.base_url}/v1",
            **kwargs,
        )
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()


@pytest.fixture
def provider(make_provider: ProviderMaker) -> OpenAIProvider:
    return make_provider()
