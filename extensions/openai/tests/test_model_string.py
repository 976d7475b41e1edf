"""`Agent("openai:<model>")`: the extension registers itself under the core's
`automata.providers` entry points, and the string builds an `OpenAIProvider` with the
SDK's usual environment variables."""

from __future__ import annotations

import pytest
from automata_wire_testing import WireServer

from automata.core import Agent
from automata.openai import OpenAIProvider

from . import replies


async def test_a_model_string_runs_on_an_openai_provider_from_the_environment(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
    server.enqueue(replies.reply(replies.completion("bonjour")))
    agent = Agent("openai:gpt-4o-mini")
    assert isinstance(agent.provider, OpenAIProvider)
    result = await agent.run("hi")
    assert result.output == "bonjour"
    (request,) = server.received
    assert request.body["model"] == "gpt-4o-mini"
    assert request.headers["authorization"] == "Bearer sk-from-env"
    await agent.provider.aclose()
