"""A streamed reply chunk by chunk: the deltas handed on as each chunk arrives, and the
final reply built from what the chunks carried between them (usage is cumulative,
metadata and feedback may come on any chunk)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer, sse_data, stream_items

from automata.core import Message, ModelRequest, StopReason, TextDelta, ThinkingBlock, Usage
from automata.core.providers import ModelResponse, ProviderError, ThinkingDelta, ToolCallDelta

from .conftest import ProviderMaker

REQUEST = ModelRequest(messages=(Message.user("hi"),))


def chunk(parts: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    candidate.update(fields.pop("candidate", {}))
    return {"candidates": [candidate], **fields}


async def streamed(
    server: WireServer, make_provider: ProviderMaker, *chunks: dict[str, Any]
) -> Any:
    server.enqueue(Reply(events=[sse_data(c) for c in chunks]))
    return await stream_items(make_provider(), REQUEST)


async def test_thoughts_text_and_calls_are_handed_on_as_their_own_deltas_in_order(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    call = {"name": "weather", "args": {"city": "Oslo"}, "id": "fc_1"}
    items = await streamed(
        server,
        make_provider,
        chunk([{"text": "Hmm, ", "thought": True}]),
        chunk([{"text": "weather.", "thought": True, "thoughtSignature": "QUJD"}]),
        chunk([{"text": "Checking."}]),
        chunk([{"functionCall": call}], candidate={"finishReason": "STOP"}),
    )
    *deltas, final = items
    assert deltas == [
        ThinkingDelta("Hmm, "),
        ThinkingDelta("weather."),
        TextDelta("Checking."),
        ToolCallDelta("fc_1", "weather", json.dumps({"city": "Oslo"})),
    ]
    assert isinstance(final, ModelResponse)
    assert final.message.content[0] == ThinkingBlock(thinking="Hmm, weather.", signature="QUJD")
    assert final.stop_reason is StopReason.TOOL_USE


async def test_the_last_chunks_usage_and_model_are_the_replys(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    items = await streamed(
        server,
        make_provider,
        chunk(
            [{"text": "a"}],
            usageMetadata={"promptTokenCount": 10, "candidatesTokenCount": 1},
            modelVersion="gemini-early",
        ),
        chunk(
            [{"text": "b"}],
            candidate={"finishReason": "STOP"},
            usageMetadata={"promptTokenCount": 10, "candidatesTokenCount": 7},
            modelVersion="gemini-2.5-flash-001",
        ),
    )
    final = items[-1]
    assert final.usage == Usage(input_tokens=10, output_tokens=7)
    assert final.model == "gemini-2.5-flash-001"
    assert final.message.text == "ab"


async def test_metadata_and_feedback_of_earlier_chunks_are_kept_to_the_end(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    grounding = {"webSearchQueries": ["oslo weather"]}
    feedback: dict[str, Any] = {"safetyRatings": []}
    items = await streamed(
        server,
        make_provider,
        chunk(
            [{"text": "Snow"}], candidate={"groundingMetadata": grounding}, promptFeedback=feedback
        ),
        chunk([{"text": "."}], candidate={"finishReason": "STOP"}),
    )
    final = items[-1]
    assert final.message.extra == {
        "google": {"groundingMetadata": grounding, "promptFeedback": feedback}
    }
    assert (final.stop_reason, final.raw_stop_reason) == (StopReason.END_TURN, "STOP")


async def test_a_stream_that_stops_without_a_finish_reason_is_an_error(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(Reply(events=[sse_data(chunk([{"text": "cut"}]))]))
    with pytest.raises(ProviderError, match="finishReason"):
        await stream_items(make_provider(), REQUEST)
