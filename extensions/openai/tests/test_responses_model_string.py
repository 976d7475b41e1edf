"""`Agent("openai-responses:<model>")`: the extension registers the Responses provider
under the core's `automata.providers` entry points, built with the SDK's usual
environment variables."""

from __future__ import annotations

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing import responses as wire

from automata.core import Agent
from automata.openai import OpenAIResponsesProvider


async def test_a_model_string_runs_on_a_responses_provider_from_the_environment(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OR1: `openai-responses:<model>` builds the provider from the environment and posts to
    /v1/responses."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
    server.enqueue(wire.reply(wire.response(wire.message("bonjour"))))
    agent = Agent("openai-responses:gpt-5-mini")
    assert isinstance(agent.provider, OpenAIResponsesProvider)
    result = await agent.run("hi")
    assert result.output == "bonjour"
    (request,) = server.received
    assert (request.path, request.body["model"]) == ("/v1/responses", "gpt-5-mini")
    await agent.provider.aclose()
