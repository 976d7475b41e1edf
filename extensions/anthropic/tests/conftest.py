"""Fixtures: one local Anthropic-speaking server per session, fresh providers per test."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import pytest
from anthropic import AsyncAnthropic
from automata_wire_testing import WireServer
from automata_wire_testing.fixtures import Providers, provider, server, sleeps, wire_server
from automata_wire_testing.older_clients import without_raw_post

from automata.anthropic import AnthropicProvider

__all__ = [
    "MODEL",
    "OlderAnthropic",
    "ProviderMaker",
    "make_provider",
    "provider",
    "server",
    "sleeps",
    "through_create",
    "wire_server",
]

MODEL = "claude-test"

ProviderMaker = Providers[AnthropicProvider]


OlderAnthropic = without_raw_post(AsyncAnthropic)
"""A client whose `post` no longer takes the body as JSON data, `body` (an SDK that
changed it): the provider goes through `messages.create` with it."""


def through_create(model: str, **options: Any) -> AnthropicProvider:
    """An `AnthropicProvider` whose clients are `OlderAnthropic`s (it builds them as
    it builds its own, with the same options): every call goes through
    `messages.create` and the SDK's models, dumped into the one reader."""
    provider = AnthropicProvider.__new__(AnthropicProvider)
    setattr(provider, "client_class", OlderAnthropic)  # noqa: B010 - a ClassVar, per instance
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "AnthropicProvider: calls go through")
        provider.__init__(model, **options)  # type: ignore[misc]
    assert not provider.posts_raw
    return provider


@pytest.fixture(params=[AnthropicProvider, through_create], ids=["raw", "create"])
async def make_provider(
    request: pytest.FixtureRequest, server: WireServer, sleeps: list[float]
) -> AsyncIterator[ProviderMaker]:
    """`AnthropicProvider`s on the local server, prompt caching off unless asked: each
    test runs twice, posting through the client's `post` (the default) and through
    `messages.create` (a client whose `post` does not take those requests)."""
    build = partial(request.param, api_key="test-key", base_url=server.base_url)
    async with Providers(build, sleeps, model=MODEL, cache_prompt=False) as providers:
        yield providers
