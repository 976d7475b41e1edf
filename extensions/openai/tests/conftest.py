"""Fixtures: one local OpenAI-speaking server per session, fresh providers per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing.fixtures import Providers, provider, server, sleeps, wire_server

from automata.openai import OpenAIProvider

__all__ = ["MODEL", "ProviderMaker", "make_provider", "provider", "server", "sleeps", "wire_server"]

MODEL = "gpt-test"

ProviderMaker = Providers[OpenAIProvider]


@pytest.fixture(params=[True, False], ids=["fast", "sdk"])
async def make_provider(
    request: pytest.FixtureRequest, server: WireServer, sleeps: list[float]
) -> AsyncIterator[ProviderMaker]:
    """`OpenAIProvider`s on the local server's `/v1`: each test runs twice, on the fast
    path and on the SDK's own (`fast_path=False`)."""
    build = partial(
        OpenAIProvider,
        api_key="test-key",
        base_url=f"{server.base_url}/v1",
        fast_path=request.param,
    )
    async with Providers(build, sleeps, model=MODEL) as providers:
        yield providers
