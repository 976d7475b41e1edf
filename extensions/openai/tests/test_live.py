"""Against the real OpenAI API. Run with `pytest -m live`; skipped without a key.

The model defaults to gpt-5-mini; set OPENAI_LIVE_MODEL to change it.
"""

from __future__ import annotations

import os

import pytest
from automata_wire_testing.live import LiveSuite

from automata.core import Agent, tool
from automata.openai import OpenAIProvider

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="OPENAI_API_KEY is not set"),
]

MODEL = os.environ.get("OPENAI_LIVE_MODEL", "gpt-5-mini")


class TestLiveOpenAI(LiveSuite):
    invalid_key = "sk-invalid"

    def new_provider(self, api_key: str | None = None) -> OpenAIProvider:
        return OpenAIProvider(MODEL, api_key=api_key)


async def test_live_tool_round_trip() -> None:
    def lookup_country() -> str:
        """The user's country."""
        return "Mexico"

    async with OpenAIProvider(MODEL) as provider:
        agent = Agent(provider, tools=[tool(lookup_country)])
        result = await agent.run("Use the tool, then name the largest city in my country.")
    assert "Mexico City" in result.output
    assert result.steps == 2
