"""Fixtures for the Responses provider's tests: `OpenAIResponsesProvider`s on the local
server's `/v1`, closed after each test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing.fixtures import Providers

from automata.openai import OpenAIResponsesProvider

__all__ = ["MODEL", "ResponsesMaker", "make_provider"]

MODEL = "gpt-test"

ResponsesMaker = Providers[OpenAIResponsesProvider]


@pytest.fixture
async def make_provider(server: WireServer, sleeps: list[float]) -> AsyncIterator[ResponsesMaker]:
    """`OpenAIResponsesProvider`s on the local server's `/v1` (overrides the Chat
    Completions one of conftest in the modules that import it)."""
    build = partial(OpenAIResponsesProvider, api_key="test-key", base_url=f"{server.base_url}/v1")
    async with Providers(build, sleeps, model=MODEL) as providers:
        yield providers
