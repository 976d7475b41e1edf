"""Fixtures: one local Anthropic-speaking server per session, fresh providers per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing.fixtures import Providers, provider, server, sleeps, wire_server

from automata.anthropic import AnthropicProvider

__all__ = ["MODEL", "ProviderMaker", "make_provider", "provider", "server", "sleeps", "wire_server"]

MODEL = "claude-test"

ProviderMaker = Providers[AnthropicProvider]


@pytest.fixture
async def make_provider(server: WireServer, sleeps: list[float]) -> AsyncIterator[ProviderMaker]:
    """`AnthropicProvider`s on the local server, prompt caching off unless asked."""
    build = partial(AnthropicProvider, api_key="test-key", base_url=server.base_url)
    async with Providers(build, sleeps, model=MODEL, cache_prompt=False) as providers:
        yield providers
