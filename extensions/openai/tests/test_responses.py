"""How OpenAIProvider reads completions, streamed and not."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer, final_response, sse_data

from automata.core import (
    Message,
    ModelRequest,
    ModelResponse,
    RawBlock,
    StopReason,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolUseBlock,
    Usage,
)
from automata.openai import FINISH_REASONS, OpenAIProvider

from . import replies

REQUEST = ModelRequest(messages=(Message.user("hi"),))
MODES = ["complete", "stream"]


async def answer(
    server: WireServer, provider: OpenAIProvider, body: dict[str, Any], mode: str
) -> ModelResponse:
    server.enqueue(replies.reply(body))
    return await final_response(provider, REQUEST, streamed=mode == "stream")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("raw", "mapped"),
    [
        ("stop", StopReason.END_TURN),
        ("length", StopReason.MAX_TOKENS),
        ("content_filter", StopReason.CONTENT_FILTER),
    ],
)
async def test_text_finish_reasons_are_mapped(
    server: WireServer, provider: OpenAIProvider, mode: str, raw: str, mapped: StopReason
) -> None:
    response = await answer(server, provider, replies.completion("hi", finish_reason=raw), mode)
    assert (response.stop_reason, response.raw_stop_reason) == (mapped, raw)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("raw", ["tool_calls", "function_call"])
async def test_tool_finish_reasons_are_mapped(
    server: WireServer, provider: OpenAIProvider, mode: str, raw: str
) -> None:
    body = replies.completion(tool_calls=[replies.tool_call("c1", "clock", {})], finish_reason=raw)
    response = await answer(server, provider, body, mode)
    assert (response.stop_reason, response.raw_stop_reason) == (StopReason.TOOL_USE, raw)


def test_the_finish_reason_table_covers_every_value_the_sdk_knows() -> None:
    from typing import get_args

    from openai.types.chat.chat_completion import Choice

    known = get_args(Choice.model_fields["finish_reason"].annotation)
    assert set(known) <= set(FINISH_REASONS)


@pytest.mark.parametrize("mode", MODES)
async def test_stop_with_tool_calls_from_a_compatible_server_is_a_tool_turn(
    server: WireServer, provider: OpenAIProvider, mode: str
) -> None:
    body = replies.completion(
        tool_calls=[replies.tool_call("c1", "clock", {})], finish_reason="stop"
    )
    response = await answer(server, provider, body, mode)
    assert (response.stop_reason, response.raw_stop_reason) == (StopReason.TOOL_USE, "stop")


@pytest.mark.parametrize("mode", MODES)
async def test_unknown_finish_reason_maps_to_unknown_and_keeps_the_raw_value(
    server: WireServer, provider: OpenAIProvider, mode: str
) -> None:
    body = replies.completion("hi", finish_reason="eos_token")
    response = await answer(server, provider, body, mode)
    assert (response.stop_reason, response.raw_stop_reason) == (StopReason.UNKNOWN, "eos_token")


@pytest.mark.parametrize("mode", MODES)
async def test_usage_takes_cached_and_cache_written_tokens_out_of_input(
    server: WireServer, provider: OpenAIProvider, mode: str
) -> None:
    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": 50,
        "total_tokens": 1050,
        "prompt_tokens_details": {"cached_tokens": 600, "cache_write_tokens": 100},
    }
    response = await answer(server, provider, replies.completion("hi", usage=usage), mode)
    assert response.usage == Usage(
        input_tokens=300, output_tokens=50, cache_read_tokens=600, cache_write_tokens=100
    )


@pytest.mark.parametrize("mode", MODES)
async def test_text_and_tool_calls_become_core_blocks(
    server: WireServer, provider: OpenAIProvider, mode: str
) -> None:
    body = replies.completion(
        "Checking both.",
        tool_calls=[
            replies.tool_call("c1", "weather", {"city": "Oslo"}),
            replies.tool_call("c2", "clock", {}),
        ],
        finish_reason="tool_calls",
    )
    response = await answer(server, provider, body, mode)
    assert response.message == Message.assistant(
        [
            TextBlock(text="Checking both."),
            ToolUseBlock(id="c1", name="weather", input={"city": "Oslo"}),
            ToolUseBlock(id="c2", name="clock", input={}),
        ]
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_from_compatible_servers_becomes_thinking(
    server: WireServer, provider: OpenAIProvider, mode: str, field: str
) -> None:
    body = replies.completion("Four.", extra={field: "Two plus two."})
    response = await answer(server, provider, body, mode)
    assert response.message.content == (
        ThinkingBlock(thinking="Two plus two.", extra={"openai": {"field": field}}),
        TextBlock(text="Four."),
    )


@pytest.mark.parametrize("mode", MODES)
async def test_a_refusal_is_kept_as_text_and_stops_as_content_filter(
    server: WireServer, provider: OpenAIProvider, mode: str
) -> None:
    body = replies.completion(None, refusal="I can't help with that.")
    response = await answer(server, provider, body, mode)
    assert response.message.content == (TextBlock(text="I can't help with that."),)
    assert (response.stop_reason, response.raw_stop_reason) == (StopReason.CONTENT_FILTER, "stop")


def call_reply(arguments: str) -> dict[str, Any]:
    return replies.completion(
        tool_calls=[replies.tool_call("c1", "weather", arguments)], finish_reason="tool_calls"
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        ('{"x": 4', "arguments were cut off: '{\"x\": 4'"),
        ('{"city": "Os', 'arguments were cut off: \'{"city": "Os\''),
        ("[1]", "arguments are not a JSON object: '[1]'"),
        ('"Oslo"', "arguments are not a JSON object: '\"Oslo\"'"),
        ("{city: Oslo}", "arguments are not valid JSON: '{city: Oslo}'"),
        ('{"x": NaN}', "arguments are not valid JSON: '{\"x\": NaN}'"),
    ],
)
async def test_unreadable_tool_arguments_set_input_error_and_keep_what_the_model_wrote(
    server: WireServer, provider: OpenAIProvider, mode: str, arguments: str, why: str
) -> None:
    response = await answer(server, provider, call_reply(arguments), mode)
    assert response.message.tool_calls == (
        ToolUseBlock(
            id="c1",
            name="weather",
            input={},
            input_error=why,
            extra={"openai": {"arguments": arguments}},
        ),
    )


@pytest.mark.parametrize("mode", MODES)
async def test_long_unreadable_arguments_are_clipped_in_the_error(
    server: WireServer, provider: OpenAIProvider, mode: str
) -> None:
    arguments = '{"text": "' + "a" * 500
    response = await answer(server, provider, call_reply(arguments), mode)
    (call,) = response.message.tool_calls
    assert call.input_error == (f"arguments were cut off: {arguments[:200]!r}... (510 characters)")
    assert call.extra == {"openai": {"arguments": arguments}}


@pytest.mark.parametrize("mode", MODES)
async def test_no_arguments_at_all_read_as_an_empty_object(
    server: WireServer, provider: OpenAIProvider, mode: str
) -> None:
    response = await answer(server, provider, call_reply(""), mode)
    assert response.message.tool_calls == (ToolUseBlock(id="c1", name="weather", input={}),)


async def test_a_stream_without_a_usage_chunk_reports_no_usage(
    server: WireServer, provider: OpenAIProvider
) -> None:
    events = replies.stream_events(replies.completion("hi"), include_usage=False)
    server.enqueue(Reply(events=events))
    items = [item async for item in provider.stream(REQUEST)]
    final = items[-1]
    assert isinstance(final, ModelResponse)
    assert final.usage is None
    assert final.stop_reason is StopReason.END_TURN


async def test_stream_hands_on_thinking_then_text_as_they_arrive(
    server: WireServer, provider: OpenAIProvider
) -> None:
    body = replies.completion("abcdef", extra={"reasoning_content": "wxyz"})
    server.enqueue(replies.reply(body))
    items = [item async for item in provider.stream(REQUEST)]
    deltas = [i for i in items if isinstance(i, TextDelta | ThinkingDelta)]
    assert [(type(i).__name__, i.text) for i in deltas] == [
        ("ThinkingDelta", "wx"),
        ("ThinkingDelta", "yz"),
        ("TextDelta", "abc"),
        ("TextDelta", "def"),
    ]
    assert len(deltas) == len(items) - 1


async def test_streamed_tool_calls_without_an_index_are_told_apart_by_their_heads(
    server: WireServer, provider: OpenAIProvider
) -> None:
    """Some servers send tool-call fragments without `index`: one naming a call starts
    it, the others continue the last; a choice without `index` is the first."""

    def chunk(*calls: dict[str, Any], finish: str | None = None) -> bytes:
        delta = {"tool_calls": list(calls)} if calls else {}
        choice = {"delta": delta, "finish_reason": finish}
        return sse_data({"id": "c", "model": "m", "choices": [choice]})

    events = [
        chunk({"id": "a", "function": {"name": "weather", "arguments": '{"city": '}}),
        chunk({"function": {"arguments": '"Oslo"}'}}),
        chunk(
            {"id": "b", "function": {"name": "clock", "arguments": "{}"}},
            {"id": "c", "function": {"name": "clock", "arguments": ""}},
        ),
        chunk(finish="tool_calls"),
        b"data: [DONE]\n\n",
    ]
    server.enqueue(Reply(events=events))
    response = await final_response(provider, REQUEST, streamed=True)
    assert response.message.tool_calls == (
        ToolUseBlock(id="a", name="weather", input={"city": "Oslo"}),
        ToolUseBlock(id="b", name="clock", input={}),
        ToolUseBlock(id="c", name="clock", input={}),
    )


async def test_a_custom_tool_call_is_kept_as_a_raw_block(
    server: WireServer, provider: OpenAIProvider
) -> None:
    custom = {"id": "c9", "type": "custom", "custom": {"name": "grammar", "input": "x = 1"}}
    body = replies.completion(
        "Sure.",
        tool_calls=[custom, replies.tool_call("c1", "clock", {})],
        finish_reason="tool_calls",
    )
    response = await answer(server, provider, body, "complete")
    assert response.message.content == (
        TextBlock(text="Sure."),
        ToolUseBlock(id="c1", name="clock", input={}),
        RawBlock(provider="openai", data=custom),
    )
