"""Fixtures: one local OpenAI-speaking server per session, fresh providers per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing.fixtures import Providers, server, sleeps, wire_server

from automata.openai import OpenAIProvider

__all__ = ["MODEL", "ProviderMaker", "make_provider", "provider", "server", "sleeps", "wire_server"]

MODEL = "gpt-test"

ProviderMaker = Providers[OpenAIProvider]


@pytest.fixture
async def make_provider(server: WireServer, sleeps: list[float]) -> AsyncIterator[ProviderMaker]:
    """`OpenAIProvider`s on the local server's `/v1`."""

    def build(*, model: str = MODEL, **kwargs: Any) -> OpenAIProvider:
        return OpenAIProvider(model, api_key="test-key", base_url=f"{server.base_url}/v1", **kwargs)

    providers = Providers(build, sleeps)
    yield providers
    await providers.aclose()


@pytest.fixture
def provider(make_provider: ProviderMaker) -> OpenAIProvider:
    return make_provider()
