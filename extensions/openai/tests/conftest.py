"""Fixtures: one local OpenAI-speaking server per session, fresh providers per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing.fixtures import Providers, provider, server, sleeps, wire_server

from automata.openai import OpenAIProvider

from .older_client import through_create

__all__ = ["MODEL", "ProviderMaker", "make_provider", "provider", "server", "sleeps", "wire_server"]

MODEL = "gpt-test"

ProviderMaker = Providers[OpenAIProvider]


@pytest.fixture(params=[OpenAIProvider, through_create], ids=["post", "create"])
async def make_provider(
    request: pytest.FixtureRequest, server: WireServer, sleeps: list[float]
) -> AsyncIterator[ProviderMaker]:
    """`OpenAIProvider`s on the local server's `/v1`: each test runs twice, posting
    through the client's `post` (the default path) and through
    `chat.completions.create` (a client whose `post` cannot take the body: the SDK's
    models dumped into the same reader)."""
    build = partial(request.param, api_key="test-key", base_url=f"{server.base_url}/v1")
    async with Providers(build, sleeps, model=MODEL) as providers:
        yield providers
