"""Chat Completions usage through the official SDK from the local server: the reasoning
part of `completion_tokens` is `Usage.reasoning_tokens`, JSON and SSE alike."""

from __future__ import annotations

import pytest
from automata_wire_testing import WireServer, ask, final_response

from automata.core import Message, Usage
from automata.openai import OpenAIProvider

from . import replies


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])
async def test_completion_reasoning_tokens_are_reported_within_the_output(
    server: WireServer, provider: OpenAIProvider, streamed: bool
) -> None:
    usage = {
        "prompt_tokens": 50,
        "completion_tokens": 40,
        "total_tokens": 90,
        "prompt_tokens_details": {"cached_tokens": 10},
        "completion_tokens_details": {"reasoning_tokens": 32, "audio_tokens": 0},
    }
    server.enqueue(replies.reply(replies.completion("ok", usage=usage)))
    response = await final_response(provider, ask(Message.user("hi")), streamed=streamed)
    assert response.usage == Usage(
        input_tokens=40, output_tokens=40, cache_read_tokens=10, reasoning_tokens=32
    )
