"""Against the real Anthropic API. Run with `pytest -m live`; skipped without a key.

The model defaults to claude-sonnet-4-6; set ANTHROPIC_LIVE_MODEL to change it.
"""

from __future__ import annotations

import os

import pytest

from automata.anthropic import AnthropicProvider
from automata.core import (
    Agent,
    CallOptions,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderError,
    StopReason,
    TextDelta,
    ThinkingBlock,
    tool,
)

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not os.environ.get("ANTHROPIC_API_KEY"), reason="ANTHROPIC_API_KEY is not set"
    ),
]

MODEL = os.environ.get("ANTHROPIC_LIVE_MODEL", "claude-sonnet-4-6")
ASK = ModelRequest(
    messages=(Message.system("Answer in one word."), Message.user("What colour is the sky?")),
    options=CallOptions(max_tokens=50),
)


async def test_live_complete_answers_with_usage() -> None:
    async with AnthropicProvider(MODEL) as provider:
        response = await provider.complete(ASK)
    assert response.message.text.strip()
    assert response.stop_reason is StopReason.END_TURN
    assert response.usage is not None
    assert response.usage.input_tokens > 0


async def test_live_stream_deltas_add_up_to_the_answer() -> None:
    async with AnthropicProvider(MODEL) as provider:
        items = [item async for item in provider.stream(ASK)]
    final = items[-1]
    assert isinstance(final, ModelResponse)
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == final.message.text


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


async def test_live_bad_key_is_an_authentication_error() -> None:
    async with AnthropicProvider(MODEL, api_key="sk-ant-invalid") as provider:
        with pytest.raises(ProviderError) as caught:
            await provider.complete(ASK)
    assert caught.value.status == 401
    assert not caught.value.retryable
