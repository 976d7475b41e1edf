"""`Agent("anthropic:<model>")`: the extension registers itself under the core's
`automata.providers` entry points, and the string builds an `AnthropicProvider` with
the SDK's usual environment variables."""

from __future__ import annotations

import pytest
from automata_wire_testing import WireServer

from automata.anthropic import AnthropicProvider
from automata.core import Agent

from . import replies


async def test_a_model_string_runs_on_an_anthropic_provider_from_the_environment(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    server.enqueue(replies.reply(replies.message([{"type": "text", "text": "bonjour"}])))
    agent = Agent("anthropic:claude-test")
    assert isinstance(agent.provider, AnthropicProvider)
    result = await agent.run("hi")
    assert result.output == "bonjour"
    (request,) = server.received
    assert request.body["model"] == "claude-test"
    sent_key = request.headers.get("x-api-key") or request.headers.get("authorization", "")
    assert sent_key.removeprefix("Bearer ") == "sk-ant-from-env"
    await agent.provider.aclose()
