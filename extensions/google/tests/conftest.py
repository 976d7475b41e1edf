"""Fixtures: one local Gemini-speaking server per session, fresh providers per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing.fixtures import Providers, provider, server, sleeps, wire_server
from automata_wire_testing.gemini import MODEL

from automata.google import GoogleProvider

__all__ = ["MODEL", "ProviderMaker", "make_provider", "provider", "server", "sleeps", "wire_server"]

ProviderMaker = Providers[GoogleProvider]


@pytest.fixture
async def make_provider(server: WireServer, sleeps: list[float]) -> AsyncIterator[ProviderMaker]:
    """`GoogleProvider`s on the local server (the Gemini API's URL shape)."""
    build = partial(GoogleProvider, api_key="test-key", base_url=server.base_url)
    async with Providers(build, sleeps, model=MODEL) as providers:
        yield providers
