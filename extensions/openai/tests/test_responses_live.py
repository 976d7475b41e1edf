"""The Responses provider against the real OpenAI API. Run with `pytest -m live`;
skipped without a key.

The model defaults to gpt-5-mini; set OPENAI_LIVE_MODEL to change it.
"""

from __future__ import annotations

import os

import pytest
from automata_wire_testing.live import LiveSuite

from automata.core import Agent, CallOptions, tool
from automata.openai import OpenAIResponsesProvider

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="OPENAI_API_KEY is not set"),
]

MODEL = os.environ.get("OPENAI_LIVE_MODEL", "gpt-5-mini")


class TestLiveOpenAIResponses(LiveSuite):
    invalid_key = "sk-invalid"

    def new_provider(self, api_key: str | None = None) -> OpenAIResponsesProvider:
        return OpenAIResponsesProvider(MODEL, api_key=api_key)


async def test_live_stateless_tool_round_trip_sends_the_encrypted_reasoning_back() -> None:
    def lookup_country() -> str:
        """The user's country."""
        return "Mexico"

    async with OpenAIResponsesProvider(MODEL, store=False) as provider:
        options = CallOptions(thinking_budget=1024)
        agent = Agent(provider, tools=[tool(lookup_country)], call_options=options)
        result = await agent.run("Use the tool, then name the largest city in my country.")
    assert "Mexico City" in result.output
    assert result.steps == 2
