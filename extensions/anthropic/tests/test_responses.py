"""How AnthropicProvider reads replies, streamed and not."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer, final_response

from automata.anthropic import STOP_REASONS, AnthropicProvider
from automata.core import (
    Message,
    ModelRequest,
    ModelResponse,
    RawBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)

from . import replies
from .conftest import ProviderMaker

REQUEST = ModelRequest(messages=(Message.user("hi"),))
MODES = ["complete", "stream"]


async def answer(
    server: WireServer, provider: AnthropicProvider, body: dict[str, Any], mode: str
) -> ModelResponse:
    server.enqueue(replies.reply(body))
    return await final_response(provider, REQUEST, streamed=mode == "stream")


TEXT = [{"type": "text", "text": "hello there"}]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("raw", "mapped"),
    [
        ("end_turn", StopReason.END_TURN),
        ("stop_sequence", StopReason.END_TURN),
        ("tool_use", StopReason.TOOL_USE),
        ("max_tokens", StopReason.MAX_TOKENS),
        ("model_context_window_exceeded", StopReason.MAX_TOKENS),
        ("refusal", StopReason.CONTENT_FILTER),
        ("pause_turn", StopReason.PAUSED),
    ],
)
async def test_every_stop_reason_is_mapped(
    server: WireServer, provider: AnthropicProvider, mode: str, raw: str, mapped: StopReason
) -> None:
    response = await answer(server, provider, replies.message(TEXT, stop_reason=raw), mode)
    assert (response.stop_reason, response.raw_stop_reason) == (mapped, raw)


def test_the_stop_reason_table_covers_every_value_the_sdk_knows() -> None:
    from typing import get_args

    from anthropic.types import StopReason as SDKStopReason

    assert set(get_args(SDKStopReason)) <= set(STOP_REASONS)


@pytest.mark.parametrize("mode", MODES)
async def test_unknown_stop_reason_maps_to_unknown_and_keeps_the_raw_value(
    server: WireServer, provider: AnthropicProvider, mode: str
) -> None:
    body = replies.message(TEXT, stop_reason="brand_new_reason")
    response = await answer(server, provider, body, mode)
    assert (response.stop_reason, response.raw_stop_reason) == (
        StopReason.UNKNOWN,
        "brand_new_reason",
    )


@pytest.mark.parametrize("mode", MODES)
async def test_usage_reports_uncached_input_and_cache_reads_and_writes_apart(
    server: WireServer, provider: AnthropicProvider, mode: str
) -> None:
    usage = {
        "input_tokens": 10,
        "output_tokens": 20,
        "cache_read_input_tokens": 300,
        "cache_creation_input_tokens": 40,
    }
    response = await answer(server, provider, replies.message(TEXT, usage=usage), mode)
    assert response.usage == Usage(
        input_tokens=10, output_tokens=20, cache_read_tokens=300, cache_write_tokens=40
    )


@pytest.mark.parametrize("mode", MODES)
async def test_text_thinking_and_tool_use_become_core_blocks(
    server: WireServer, provider: AnthropicProvider, mode: str
) -> None:
    content: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": "Let me look it up.", "signature": "sig-1"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_9", "name": "weather", "input": {"city": "Oslo"}},
    ]
    response = await answer(
        server, provider, replies.message(content, stop_reason="tool_use"), mode
    )
    assert response.message == Message.assistant(
        [
            ThinkingBlock(thinking="Let me look it up.", signature="sig-1"),
            TextBlock(text="Checking."),
            ToolUseBlock(id="toolu_9", name="weather", input={"city": "Oslo"}),
        ]
    )


@pytest.mark.parametrize("mode", MODES)
async def test_redacted_thinking_is_kept_as_an_anthropic_raw_block(
    server: WireServer, provider: AnthropicProvider, mode: str
) -> None:
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}
    response = await answer(server, provider, replies.message([redacted, *TEXT]), mode)
    assert response.message.content[0] == RawBlock(provider="anthropic", data=redacted)


@pytest.mark.parametrize("mode", MODES)
async def test_unknown_block_types_are_kept_raw_as_sent(
    server: WireServer, provider: AnthropicProvider, mode: str
) -> None:
    novel = {"type": "hologram", "payload": {"frames": [1, 2, 3]}, "note": None}
    response = await answer(server, provider, replies.message([*TEXT, novel]), mode)
    assert response.message.content[1] == RawBlock(provider="anthropic", data=novel)


@pytest.mark.parametrize("mode", MODES)
async def test_signed_thinking_with_omitted_text_is_kept(
    server: WireServer, provider: AnthropicProvider, mode: str
) -> None:
    content = [{"type": "thinking", "thinking": "", "signature": "sig-only"}, *TEXT]
    response = await answer(server, provider, replies.message(content), mode)
    assert response.message.content[0] == ThinkingBlock(thinking="", signature="sig-only")


@pytest.mark.parametrize("mode", MODES)
async def test_the_served_model_is_reported(
    server: WireServer, provider: AnthropicProvider, mode: str
) -> None:
    response = await answer(server, provider, replies.message(TEXT, model="claude-x-2099"), mode)
    assert response.model == "claude-x-2099"


async def test_stream_takes_final_counts_from_message_delta(
    server: WireServer, provider: AnthropicProvider
) -> None:
    body = replies.message(TEXT, usage={"input_tokens": 10, "output_tokens": 99})
    events = replies.stream_events(body)
    # message_start carries output_tokens=1; only message_delta has the final 99.
    server.enqueue(Reply(events=events))
    items = [item async for item in provider.stream(REQUEST)]
    final = items[-1]
    assert isinstance(final, ModelResponse)
    assert final.usage == Usage(input_tokens=10, output_tokens=99)


async def test_stream_hands_on_text_as_it_arrives(
    server: WireServer, provider: AnthropicProvider
) -> None:
    server.enqueue(replies.reply(replies.message([{"type": "text", "text": "abcdef"}])))
    items = [item async for item in provider.stream(REQUEST)]
    assert [getattr(i, "text", None) for i in items[:-1]] == ["abc", "def"]


async def test_complete_streams_under_the_hood_for_very_long_answers(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    # The SDK refuses non-streaming calls it expects to run past ten minutes.
    provider = make_provider(max_tokens=64_000)
    server.enqueue(replies.reply(replies.message(TEXT)))
    response = await provider.complete(REQUEST)
    assert server.received[0].body["stream"] is True
    assert response.message.text == "hello there"
