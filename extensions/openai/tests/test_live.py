"""Against the real OpenAI API. Run with `pytest -m live`; skipped without a key.

The model defaults to gpt-5-mini; set OPENAI_LIVE_MODEL to change it.
"""

from __future__ import annotations

import os

import pytest

from automata.core import (
    Agent,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderError,
    StopReason,
    TextDelta,
    tool,
)
from automata.openai import OpenAIProvider

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="OPENAI_API_KEY is not set"),
]

MODEL = os.environ.get("OPENAI_LIVE_MODEL", "gpt-5-mini")
ASK = ModelRequest(
    messages=(Message.system("Answer in one word."), Message.user("What colour is the sky?")),
)


async def test_live_complete_answers_with_usage() -> None:
    async with OpenAIProvider(MODEL) as provider:
        response = await provider.complete(ASK)
    assert response.message.text.strip()
    assert response.stop_reason is StopReason.END_TURN
    assert response.usage is not None
    assert response.usage.input_tokens > 0


async def test_live_stream_deltas_add_up_to_the_answer_and_report_usage() -> None:
    async with OpenAIProvider(MODEL) as provider:
        items = [item async for item in provider.stream(ASK)]
    final = items[-1]
    assert isinstance(final, ModelResponse)
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == final.message.text
    assert final.usage is not None


async def test_live_tool_round_trip() -> None:
    def lookup_country() -> str:
        """The user's country."""
        return "Mexico"

    async with OpenAIProvider(MODEL) as provider:
        agent = Agent(provider, tools=[tool(lookup_country)])
        result = await agent.run("Use the tool, then name the largest city in my country.")
    assert "Mexico City" in result.output
    assert result.steps == 2


async def test_live_bad_key_is_an_authentication_error() -> None:
    async with OpenAIProvider(MODEL, api_key="sk-invalid") as provider:
        with pytest.raises(ProviderError) as caught:
            await provider.complete(ASK)
    assert caught.value.status == 401
    assert not caught.value.retryable
