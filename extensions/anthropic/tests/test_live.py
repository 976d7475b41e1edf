"""Against the real Anthropic API. Run with `pytest -m live`; skipped without a key.

The model defaults to claude-sonnet-4-6; set ANTHROPIC_LIVE_MODEL to change it.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from automata_wire_testing.live import ASK, LiveSuite

from automata.anthropic import AnthropicProvider
from automata.core import Agent, CallOptions, ThinkingBlock, tool

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not os.environ.get("ANTHROPIC_API_KEY"), reason="ANTHROPIC_API_KEY is not set"
    ),
]

MODEL = os.environ.get("ANTHROPIC_LIVE_MODEL", "claude-sonnet-4-6")


class TestLiveAnthropic(LiveSuite):
    invalid_key = "sk-ant-invalid"
    ask = replace(ASK, options=CallOptions(max_tokens=50))

    def new_provider(self, api_key: str | None = None) -> AnthropicProvider:
        return AnthropicProvider(MODEL, api_key=api_key)


async def test_live_signed_thinking_is_accepted_back_after_a_tool_call() -> None:
    def lookup_country() -> str:
        """The user's country."""
        return "Mexico"

    async with AnthropicProvider(MODEL) as provider:
        agent = Agent(
            provider,
            tools=[tool(lookup_country)],
            call_options=CallOptions(thinking_budget=1024, max_tokens=2048),
        )
        result = await agent.run("Use the tool, then name the largest city in my country.")
    assert "Mexico City" in result.output
    signed = [
        b
        for m in result.messages
        for b in m.content
        if isinstance(b, ThinkingBlock) and b.signature
    ]
    assert signed, "the tool turn's thinking was signed and sent back"
