"""Fixtures: one local Anthropic-speaking server per session, fresh providers per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing.fixtures import Providers, server, sleeps, wire_server

from automata.anthropic import AnthropicProvider

__all__ = ["MODEL", "ProviderMaker", "make_provider", "provider", "server", "sleeps", "wire_server"]

MODEL = "claude-test"

ProviderMaker = Providers[AnthropicProvider]


@pytest.fixture
async def make_provider(server: WireServer, sleeps: list[float]) -> AsyncIterator[ProviderMaker]:
    """`AnthropicProvider`s on the local server (prompt caching off unless asked)."""

    def build(
        *, model: str = MODEL, cache_prompt: bool = False, **kwargs: Any
    ) -> AnthropicProvider:
        return AnthropicProvider(
            model, api_key="test-key", base_url=server.base_url, cache_prompt=cache_prompt, **kwargs
        )

    providers = Providers(build, sleeps)
    yield providers
    await providers.aclose()


@pytest.fixture
def provider(make_provider: ProviderMaker) -> AnthropicProvider:
    return make_provider()
