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


@pytest.fixture(params=[True, False], ids=["fast", "sdk"])
async def make_provider(
    request: pytest.FixtureRequest, server: WireServer, sleeps: list[float]
) -> AsyncIterator[ProviderMaker]:
    """`AnthropicProvider`s on the local server, prompt caching off unless asked: each
    test runs twice, on the fast path and on the SDK's own (`fast_path=False`)."""
    build = partial(
        AnthropicProvider, api_key="test-key", base_url=server.base_url, fast_path=request.param
    )
    async with Providers(build, sleeps, model=MODEL, cache_prompt=False) as providers:
        yield providers
