"""What comes back: each feature of a Gemini reply read into blocks, usage and stop
reasons, whole and streamed alike."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import WireServer, final_response
from automata_wire_testing import gemini as wire

from automata.core import (
    Message,
    ModelRequest,
    RawBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)
from automata.core.providers import ProviderError

from .conftest import ProviderMaker

REQUEST = ModelRequest(messages=(Message.user("hi"),))
BOTH = pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])


async def read(
    server: WireServer, make_provider: ProviderMaker, body: dict[str, Any], streamed: bool
) -> Any:
    server.enqueue(wire.answer(body))
    return await final_response(make_provider(), REQUEST, streamed=streamed)


@BOTH
async def test_usage_counts_cached_thinking_and_tool_use_prompt_tokens(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    usage = {
        "promptTokenCount": 1000,
        "cachedContentTokenCount": 600,
        "toolUsePromptTokenCount": 50,
        "candidatesTokenCount": 40,
        "thoughtsTokenCount": 25,
        "totalTokenCount": 1115,
    }
    reply = await read(
        server, make_provider, wire.response([{"text": "hi"}], usage=usage), streamed
    )
    assert reply.usage == Usage(
        input_tokens=450,
        output_tokens=65,
        cache_read_tokens=600,
        reasoning_tokens=25,
        extra={"google": {"toolUsePromptTokenCount": 50}},
    )
    assert reply.usage.total_tokens == 1115


@BOTH
@pytest.mark.parametrize(
    ("finish", "stop"),
    [
        ("STOP", StopReason.END_TURN),
        ("MAX_TOKENS", StopReason.MAX_TOKENS),
        ("SAFETY", StopReason.CONTENT_FILTER),
        ("RECITATION", StopReason.CONTENT_FILTER),
        ("PROHIBITED_CONTENT", StopReason.CONTENT_FILTER),
        ("MALFORMED_FUNCTION_CALL", StopReason.ERROR),
        ("OTHER", StopReason.UNKNOWN),
    ],
)
async def test_finish_reasons_map_to_stop_reasons_keeping_the_vendors(
    server: WireServer, make_provider: ProviderMaker, streamed: bool, finish: str, stop: StopReason
) -> None:
    ratings = [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH"}]
    body = wire.response(
        [{"text": "Partial"}], finish_reason=finish, candidate={"safetyRatings": ratings}
    )
    reply = await read(server, make_provider, body, streamed)
    assert (reply.stop_reason, reply.raw_stop_reason) == (stop, finish)
    assert reply.message.extra == {"google": {"safetyRatings": ratings}}


@BOTH
async def test_a_blocked_prompt_is_a_content_filter_stop_with_its_feedback(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    feedback = {"blockReason": "SAFETY", "safetyRatings": []}
    reply = await read(server, make_provider, wire.response([], prompt_feedback=feedback), streamed)
    assert (reply.stop_reason, reply.raw_stop_reason) == (StopReason.CONTENT_FILTER, "SAFETY")
    assert reply.message.content == ()
    assert reply.message.extra == {"google": {"promptFeedback": feedback}}


@BOTH
async def test_thoughts_and_signatures_are_read_onto_their_blocks(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    parts: list[dict[str, Any]] = [
        {"text": "Thinking it over.", "thought": True, "thoughtSignature": "QUJD"},
        {"text": "The answer is 4."},
        {"text": "", "thoughtSignature": "REVG"},
    ]
    reply = await read(server, make_provider, wire.response(parts), streamed)
    assert reply.message.content == (
        ThinkingBlock(thinking="Thinking it over.", signature="QUJD"),
        TextBlock(
            text="The answer is 4.", extra={"google": {"part": {"thoughtSignature": "REVG"}}}
        ),
    )


@BOTH
async def test_calls_without_ids_get_ones_that_are_never_sent_back(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    parts = [
        {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}},
        {"functionCall": {"name": "weather", "args": {"city": "Rome"}}},
    ]
    reply = await read(server, make_provider, wire.response(parts), streamed)
    assert [(b.id, b.input) for b in reply.message.content if isinstance(b, ToolUseBlock)] == [
        ("call_0", {"city": "Oslo"}),
        ("call_1", {"city": "Rome"}),
    ]
    assert reply.stop_reason is StopReason.TOOL_USE


@BOTH
async def test_grounding_and_code_execution_are_kept_with_their_metadata(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    code = {"executableCode": {"language": "PYTHON", "code": "print(6*7)"}}
    result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n"}}
    grounding = {
        "webSearchQueries": ["answer to everything"],
        "groundingChunks": [{"web": {"uri": "https://example.org/42", "title": "42"}}],
        "groundingSupports": [
            {
                "segment": {"startIndex": 0, "endIndex": 6, "text": "It's 42"},
                "groundingChunkIndices": [0],
            }
        ],
        "searchEntryPoint": {"renderedContent": "<div>42</div>"},
    }
    urls = {
        "urlMetadata": [
            {
                "retrievedUrl": "https://example.org/42",
                "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS",
            }
        ]
    }
    body = wire.response(
        [code, result, {"text": "It's 42."}],
        candidate={"groundingMetadata": grounding, "urlContextMetadata": urls},
    )
    reply = await read(server, make_provider, body, streamed)
    assert reply.message.content == (
        RawBlock(provider="google", data=code),
        RawBlock(provider="google", data=result),
        TextBlock(text="It's 42."),
    )
    assert reply.message.extra == {
        "google": {"groundingMetadata": grounding, "urlContextMetadata": urls}
    }


@BOTH
async def test_arguments_that_are_not_an_object_are_reported_not_run(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    parts = [{"functionCall": {"id": "fc_1", "name": "weather", "args": ["Oslo"]}}]
    server.enqueue(wire.answer(wire.response(parts, validate=False), check=False))
    reply = await final_response(make_provider(), REQUEST, streamed=streamed)
    (call,) = reply.message.content
    assert isinstance(call, ToolUseBlock)
    assert (call.input, call.input_error) == ({}, "arguments are not a JSON object: '[\"Oslo\"]'")


async def test_a_reply_that_is_not_json_says_so(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    from automata_wire_testing import Reply

    server.enqueue(Reply(body=b"<html>proxy error</html>", headers={"content-type": "text/html"}))
    with pytest.raises(ProviderError) as caught:
        await make_provider().complete(REQUEST)
    assert str(caught.value).startswith("google: ")
    assert not caught.value.retryable


async def test_a_rate_limit_without_retry_after_waits_the_errors_retry_delay(
    server: WireServer, make_provider: ProviderMaker, sleeps: list[float]
) -> None:
    from automata_wire_testing import Reply

    detail = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s"}
    body = {
        "error": {
            "code": 429,
            "message": "quota",
            "status": "RESOURCE_EXHAUSTED",
            "details": [detail],
        }
    }
    server.enqueue(Reply(status=429, json_body=body), wire.answer(wire.response([{"text": "ok"}])))
    reply = await make_provider().complete(REQUEST)
    assert reply.message.text == "ok"
    assert sleeps == [3.0]


@BOTH
async def test_a_prompt_blocked_for_any_reason_is_a_content_filter_stop(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    feedback = {"blockReason": "OTHER"}
    reply = await read(server, make_provider, wire.response([], prompt_feedback=feedback), streamed)
    assert (reply.stop_reason, reply.raw_stop_reason) == (StopReason.CONTENT_FILTER, "OTHER")


@BOTH
async def test_the_model_version_that_answered_is_the_replys_model(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    body = wire.response([{"text": "hi"}], model="gemini-2.5-flash-preview-05-20")
    reply = await read(server, make_provider, body, streamed)
    assert reply.model == "gemini-2.5-flash-preview-05-20"


@BOTH
async def test_a_signed_part_closes_its_block_and_each_call_keeps_its_own_part_fields(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    parts: list[dict[str, Any]] = [
        {"text": "First.", "thoughtSignature": "QQ=="},
        {"text": "Second."},
        {"functionCall": {"name": "weather", "args": {}}, "thoughtSignature": "Qg=="},
        {"functionCall": {"name": "clock", "args": {}}},
    ]
    reply = await read(server, make_provider, wire.response(parts), streamed)
    first, second, weather, clock = reply.message.content
    assert (first, second) == (
        TextBlock(text="First.", extra={"google": {"part": {"thoughtSignature": "QQ=="}}}),
        TextBlock(text="Second."),
    )
    assert isinstance(weather, ToolUseBlock)
    assert isinstance(clock, ToolUseBlock)
    assert weather.extra == {"google": {"part": {"thoughtSignature": "Qg=="}, "synthetic_id": True}}
    assert clock.extra == {"google": {"synthetic_id": True}}
