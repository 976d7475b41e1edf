"""Real Anthropic traffic, replayed through the official SDK against the local server.

Each test sends what an agent loop would send for the recorded conversation and
checks both directions: the blocks, usage and stop reason we read from the vendor's
real reply, and that the follow-up request we build (signed thinking, raw server-tool
blocks, tool results, images) is the one the vendor accepted.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from automata_wire_testing import (
    RecordingChecks,
    WireServer,
    final_response,
    replay,
    tool_message,
)

from automata.core import (
    CallOptions,
    ImageBlock,
    Message,
    ModelRequest,
    ModelResponse,
    RawBlock,
    StopReason,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolSpec,
    ToolUseBlock,
    Usage,
)

from .conftest import ProviderMaker
from .recordings import FIXTURES, load, normalized


def first_user_message(recorded: dict[str, Any]) -> Message:
    return Message.user(recorded["messages"][0]["content"][0]["text"])


def tool_specs(recorded: dict[str, Any]) -> tuple[ToolSpec, ...]:
    return tuple(
        ToolSpec(t["name"], t["description"], t["input_schema"])
        for t in recorded.get("tools", [])
        if "input_schema" in t
    )


def signature_in(sse_events: Any) -> str:
    """The signature as the recorded stream carried it, read straight from the SSE."""
    parts = []
    for event in sse_events:
        for line in event.decode().splitlines():
            if line.startswith("data:") and "signature_delta" in line:
                parts.append(json.loads(line[5:])["delta"]["signature"])
    return "".join(parts)


# --- thinking + tool use round trip (non-streaming) --------------------------------

ROUNDTRIP = "anthropic_tool_use_with_thinking_roundtrip.yaml"


def roundtrip_request(recorded: dict[str, Any], *messages: Message) -> ModelRequest:
    return ModelRequest(
        messages=(first_user_message(recorded), *messages),
        tools=tool_specs(recorded),
        options=CallOptions(
            max_tokens=recorded["max_tokens"],
            thinking_budget=recorded["thinking"]["budget_tokens"],
            tool_choice="auto",
        ),
    )


async def test_roundtrip_first_request_matches_the_recorded_one(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(ROUNDTRIP)
    provider = replay(server, make_provider, first)
    await provider.complete(roundtrip_request(first.request))
    assert normalized(server.received[0].body) == normalized(first.request)


async def test_roundtrip_reply_keeps_signed_thinking_text_and_tool_call(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(ROUNDTRIP)
    provider = replay(server, make_provider, first)
    response = await provider.complete(roundtrip_request(first.request))
    recorded = first.reply.json_body["content"]
    assert response.message.content == (
        ThinkingBlock(thinking=recorded[0]["thinking"], signature=recorded[0]["signature"]),
        TextBlock(text=recorded[1]["text"]),
        ToolUseBlock(id=recorded[2]["id"], name="get_user_country", input={}),
    )
    assert (response.stop_reason, response.raw_stop_reason) == (StopReason.TOOL_USE, "tool_use")
    assert response.usage == Usage(input_tokens=398, output_tokens=155)
    assert response.model == "claude-sonnet-4-20250514"


async def test_roundtrip_replays_signed_thinking_and_tool_result_as_the_vendor_accepted(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(ROUNDTRIP)
    provider = replay(server, make_provider, first, second)
    reply = await provider.complete(roundtrip_request(first.request))
    call_id = reply.message.tool_calls[0].id
    final = await provider.complete(
        roundtrip_request(
            first.request, reply.message, tool_message(call_id, TextBlock(text="Mexico"))
        )
    )
    assert normalized(server.received[1].body) == normalized(second.request)
    assert final.message.text.startswith("Based on the information that you're from Mexico")
    assert final.stop_reason is StopReason.END_TURN
    assert final.usage == Usage(input_tokens=566, output_tokens=126)


# --- streamed thinking with a signature ---------------------------------------------

THINKING_STREAM = "anthropic_stream_thinking_signature.yaml"


def thinking_request(recorded: dict[str, Any]) -> ModelRequest:
    return ModelRequest(
        messages=(first_user_message(recorded),),
        options=CallOptions(
            max_tokens=recorded["max_tokens"], thinking_budget=recorded["thinking"]["budget_tokens"]
        ),
    )


async def test_stream_request_matches_the_recorded_one(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    (only,) = load(THINKING_STREAM)
    provider = replay(server, make_provider, only)
    await final_response(provider, thinking_request(only.request), streamed=True)
    sent = server.received[0].body
    assert sent["stream"] is True
    assert normalized(sent) == normalized(only.request)


async def test_stream_yields_thinking_then_text_and_keeps_the_signature(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    (only,) = load(THINKING_STREAM)
    provider = replay(server, make_provider, only)
    items = [item async for item in provider.stream(thinking_request(only.request))]
    final = items[-1]
    assert isinstance(final, ModelResponse)
    thinking = "".join(i.text for i in items if isinstance(i, ThinkingDelta))
    text = "".join(i.text for i in items if isinstance(i, TextDelta))
    kinds = [type(i).__name__ for i in items[:-1]]
    assert kinds.index("TextDelta") > max(n for n, k in enumerate(kinds) if k == "ThinkingDelta")
    assert final.message.content == (
        ThinkingBlock(thinking=thinking, signature=signature_in(only.reply.events)),
        TextBlock(text=text),
    )
    assert thinking.startswith("This is a straightforward question")
    assert text.startswith("Here are the basic steps")
    assert final.stop_reason is StopReason.END_TURN
    assert final.usage == Usage(input_tokens=43, output_tokens=282)


# --- streamed tool use with input_json_delta fragments and server-tool blocks -------

TOOL_STREAM = "anthropic_stream_tool_use.yaml"


def exchange_request(recorded: dict[str, Any], *messages: Message) -> ModelRequest:
    return ModelRequest(
        messages=(first_user_message(recorded), *messages),
        tools=tool_specs(recorded),
        options=CallOptions(max_tokens=recorded["max_tokens"], tool_choice="auto"),
    )


async def test_streamed_tool_call_is_assembled_from_json_fragments(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(TOOL_STREAM)
    provider = replay(server, make_provider, first)
    response = await final_response(provider, exchange_request(first.request), streamed=True)
    assert response.message.tool_calls == (
        ToolUseBlock(
            id="toolu_01EFn5wTNBYA8Reni8rbmnHT",
            name="get_exchange_rate",
            input={"from_currency": "USD", "to_currency": "EUR"},
        ),
    )
    assert (response.stop_reason, response.raw_stop_reason) == (StopReason.TOOL_USE, "tool_use")
    assert response.usage == Usage(input_tokens=1591, output_tokens=175)


async def test_streamed_server_tool_blocks_are_kept_raw_with_their_input(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(TOOL_STREAM)
    provider = replay(server, make_provider, first)
    response = await final_response(provider, exchange_request(first.request), streamed=True)
    raw = [b for b in response.message.content if isinstance(b, RawBlock)]
    assert [(b.provider, b.kind) for b in raw] == [
        ("anthropic", "server_tool_use"),
        ("anthropic", "tool_search_tool_result"),
    ]
    assert raw[0].data["input"] == {"query": "USD EUR exchange rate currency conversion"}


async def test_streamed_tool_turn_is_sent_back_as_the_vendor_accepted(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(TOOL_STREAM)
    provider = replay(server, make_provider, first, second)
    reply = await final_response(provider, exchange_request(first.request), streamed=True)
    call_id = reply.message.tool_calls[0].id
    final = await final_response(
        provider,
        exchange_request(
            first.request, reply.message, tool_message(call_id, TextBlock(text="1 USD = 0.92 EUR"))
        ),
        streamed=True,
    )
    # The recorded tools use server-side tool search, which ToolSpec does not model;
    # the conversation itself must match exactly.
    assert normalized(server.received[1].body)["messages"] == normalized(second.request)["messages"]
    assert final.stop_reason is StopReason.END_TURN
    assert final.usage == Usage(input_tokens=1007, output_tokens=59)


# --- images returned by a tool ------------------------------------------------------

IMAGES = "anthropic_images_in_tool_result.yaml"


def images_from(recorded_tool_result: dict[str, Any]) -> list[ImageBlock]:
    images = []
    for item in recorded_tool_result["content"]:
        source = item["source"]
        if source["type"] == "base64":
            data = base64.b64decode(source["data"])
            images.append(ImageBlock(media_type=source["media_type"], data=data))
        else:
            images.append(ImageBlock(url=source["url"]))
    return images


@pytest.mark.filterwarnings("ignore:The model 'claude-sonnet-4-5' is deprecated")
async def test_tool_result_images_are_sent_inline_and_by_url_as_the_vendor_accepted(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(IMAGES)
    provider = replay(server, make_provider, first, second)
    request = ModelRequest(
        messages=(first_user_message(first.request),),
        tools=tool_specs(first.request),
        options=CallOptions(max_tokens=first.request["max_tokens"], tool_choice="auto"),
    )
    reply = await provider.complete(request)
    recorded_result = second.request["messages"][2]["content"][0]
    call_id = reply.message.tool_calls[0].id
    final = await provider.complete(
        ModelRequest(
            messages=(
                *request.messages,
                reply.message,
                tool_message(call_id, *images_from(recorded_result)),
            ),
            tools=request.tools,
            options=request.options,
        )
    )
    assert normalized(server.received[0].body) == normalized(first.request)
    assert normalized(server.received[1].body) == normalized(second.request)
    assert final.message.content == (TextBlock(text="Kiwi"),)
    assert final.usage == Usage(input_tokens=1265, output_tokens=7)


# --- what every vendor's recordings are checked for ---------------------------------


class TestRecordings(RecordingChecks):
    fixtures = FIXTURES
    replayed = frozenset(
        {
            ROUNDTRIP,
            THINKING_STREAM,
            TOOL_STREAM,
            IMAGES,
            "anthropic_error_400.yaml",
            # replayed in test_recordings_features.py
            "anthropic_web_search_citations.yaml",
            "anthropic_stream_compaction_delta_iterations.yaml",
            "anthropic_usage_iterations_advisor.yaml",
        }
    )
    failure = "anthropic_error_400.yaml"
    failure_message = (
        "anthropic: 400 invalid_request_error: This model does not support effort level "
        "'xhigh'. Supported levels: high, low, max, medium."
    )
    failure_status = 400

    def first_request(self, recorded: dict[str, Any]) -> ModelRequest:
        return ModelRequest(messages=(first_user_message(recorded),))
