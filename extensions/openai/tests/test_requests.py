"""What OpenAIProvider puts on the wire, as received by the local server."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import WireServer, ask, sent_body

from automata.core import (
    CallOptions,
    ImageBlock,
    Message,
    ModelRequest,
    OutputSchema,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from automata.openai import OpenAIProvider

from . import replies
from .conftest import ProviderMaker

PNG = b"\x89PNG\r\n\x1a\nfake"
PNG_URL = "data:image/png;base64,iVBORw0KGgpmYWtl"
WEATHER = ToolSpec(
    "weather", "Get the weather", {"type": "object", "properties": {"city": {"type": "string"}}}
)
CLOCK = ToolSpec("clock", "Tell the time", {"type": "object", "properties": {}})
CALL = ToolUseBlock(id="call_1", name="weather", input={"city": "Paris"})
CALL_2 = ToolUseBlock(id="call_2", name="clock", input={})


async def sent(
    server: WireServer, provider: OpenAIProvider, request: ModelRequest
) -> dict[str, Any]:
    """The JSON body the server received for `request`."""
    return await sent_body(server, provider, request, replies.reply(replies.completion("ok")))


def results(*blocks: ToolResultBlock) -> Message:
    return Message(role="tool", content=blocks)


def result(*content: Any, is_error: bool = False, call_id: str = "call_1") -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=call_id, content=content, is_error=is_error)


# --- messages -----------------------------------------------------------------------


async def test_system_and_user_text_are_plain_string_messages(
    server: WireServer, provider: OpenAIProvider
) -> None:
    body = await sent(server, provider, ask(Message.system("Be brief."), Message.user("hi")))
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]


async def test_system_role_can_be_developer(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(system_role="developer")
    body = await sent(server, provider, ask(Message.system("Be brief."), Message.user("hi")))
    assert body["messages"][0] == {"role": "developer", "content": "Be brief."}


async def test_assistant_tool_calls_carry_compact_json_arguments(
    server: WireServer, provider: OpenAIProvider
) -> None:
    request = ask(
        Message.user("weather?"),
        Message.assistant([TextBlock(text="Checking."), CALL, CALL_2]),
        results(result(TextBlock(text="sunny")), result(call_id="call_2")),
    )
    body = await sent(server, provider, request)
    assert body["messages"][1] == {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city":"Paris"}'},
            },
            {"id": "call_2", "type": "function", "function": {"name": "clock", "arguments": "{}"}},
        ],
    }


async def test_each_tool_result_is_a_tool_message_in_order(
    server: WireServer, provider: OpenAIProvider
) -> None:
    request = ask(
        Message.user("weather?"),
        Message.assistant([CALL, CALL_2]),
        results(result(TextBlock(text="sunny")), result(TextBlock(text="noon"), call_id="call_2")),
    )
    body = await sent(server, provider, request)
    assert body["messages"][2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": "noon"},
    ]


async def test_failed_tool_result_text_is_prefixed_error(
    server: WireServer, provider: OpenAIProvider
) -> None:
    request = ask(
        Message.user("weather?"),
        Message.assistant([CALL]),
        results(result(TextBlock(text="city unknown"), is_error=True)),
    )
    body = await sent(server, provider, request)
    assert body["messages"][2]["content"] == "error: city unknown"


async def test_tool_result_images_follow_all_tool_messages_in_one_user_message(
    server: WireServer, provider: OpenAIProvider
) -> None:
    request = ask(
        Message.user("shots?"),
        Message.assistant([CALL, CALL_2]),
        results(
            result(TextBlock(text="captured"), ImageBlock(media_type="image/png", data=PNG)),
            result(ImageBlock(url="https://example.com/b.png"), call_id="call_2"),
        ),
        Message.user("describe them"),
    )
    body = await sent(server, provider, request)
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "user", "user"]
    first, second = body["messages"][2:4]
    assert first["content"].startswith("captured\n")
    assert "image" in first["content"]
    assert "image" in second["content"]
    images = [p for p in body["messages"][4]["content"] if p["type"] == "image_url"]
    assert images == [
        {"type": "image_url", "image_url": {"url": PNG_URL}},
        {"type": "image_url", "image_url": {"url": "https://example.com/b.png"}},
    ]
    assert body["messages"][5] == {"role": "user", "content": "describe them"}


async def test_user_images_are_sent_as_image_url_parts(
    server: WireServer, provider: OpenAIProvider
) -> None:
    request = ask(
        Message.user(
            [
                TextBlock(text="compare"),
                ImageBlock(media_type="image/png", data=PNG),
                ImageBlock(url="https://example.com/cat.jpg"),
            ]
        )
    )
    body = await sent(server, provider, request)
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": "compare"},
        {"type": "image_url", "image_url": {"url": PNG_URL}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
    ]


async def test_thinking_is_not_sent_back(server: WireServer, provider: OpenAIProvider) -> None:
    request = ask(
        Message.user("hi"),
        Message.assistant(
            [ThinkingBlock(thinking="hmm", signature="sig"), TextBlock(text="hello")]
        ),
        Message.user("again"),
    )
    body = await sent(server, provider, request)
    assert body["messages"][1] == {"role": "assistant", "content": "hello"}


async def test_an_assistant_turn_with_nothing_openai_can_take_is_omitted(
    server: WireServer, provider: OpenAIProvider
) -> None:
    foreign = RawBlock(provider="anthropic", data={"type": "redacted_thinking", "data": "x"})
    request = ask(
        Message.user("hi"),
        Message.assistant([foreign, ThinkingBlock(thinking="t", signature="s")]),
        Message.user("again"),
    )
    body = await sent(server, provider, request)
    assert body["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": "again"},
    ]


async def test_openai_raw_content_parts_are_passed_through_in_user_messages(
    server: WireServer, provider: OpenAIProvider
) -> None:
    audio = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
    request = ask(Message.user([TextBlock(text="listen"), RawBlock(provider="openai", data=audio)]))
    body = await sent(server, provider, request)
    assert body["messages"][0]["content"] == [{"type": "text", "text": "listen"}, audio]


async def test_other_providers_raw_blocks_are_left_out_of_user_messages(
    server: WireServer, provider: OpenAIProvider
) -> None:
    doc = RawBlock(provider="anthropic", data={"type": "document", "source": {}})
    body = await sent(server, provider, ask(Message.user([TextBlock(text="read"), doc])))
    assert body["messages"][0] == {"role": "user", "content": "read"}


# --- tools, options, output ---------------------------------------------------------


async def test_tools_are_sent_as_functions(server: WireServer, provider: OpenAIProvider) -> None:
    body = await sent(server, provider, ask(Message.user("hi"), tools=(WEATHER,)))
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "weather",
                "description": "Get the weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    assert "tool_choice" not in body


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("any", "required"),
        ("none", "none"),
        ("clock", {"type": "function", "function": {"name": "clock"}}),
    ],
)
async def test_tool_choice_maps_onto_openai_tool_choice(
    server: WireServer, provider: OpenAIProvider, choice: str, wire: Any
) -> None:
    options = CallOptions(tool_choice=choice)
    body = await sent(
        server, provider, ask(Message.user("hi"), tools=(WEATHER, CLOCK), options=options)
    )
    assert body["tool_choice"] == wire


async def test_tool_choice_is_not_sent_without_tools(
    server: WireServer, provider: OpenAIProvider
) -> None:
    options = CallOptions(tool_choice="any")
    body = await sent(server, provider, ask(Message.user("hi"), options=options))
    assert "tool_choice" not in body


async def test_call_options_map_onto_request_fields(
    server: WireServer, provider: OpenAIProvider
) -> None:
    options = CallOptions(temperature=0.3, max_tokens=222, stop_sequences=("END",))
    body = await sent(server, provider, ask(Message.user("hi"), options=options))
    assert (body["temperature"], body["max_completion_tokens"], body["stop"]) == (0.3, 222, ["END"])


async def test_max_tokens_field_can_be_the_legacy_one(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(max_tokens_field="max_tokens")
    body = await sent(server, provider, ask(Message.user("hi"), options=CallOptions(max_tokens=5)))
    assert body["max_tokens"] == 5
    assert "max_completion_tokens" not in body


async def test_unset_options_are_not_sent(server: WireServer, provider: OpenAIProvider) -> None:
    body = await sent(server, provider, ask(Message.user("hi")))
    assert set(body) == {"model", "messages"}


@pytest.mark.parametrize(("budget", "effort"), [(1024, "low"), (4096, "medium"), (16000, "high")])
async def test_thinking_budget_maps_onto_reasoning_effort(
    server: WireServer, provider: OpenAIProvider, budget: int, effort: str
) -> None:
    options = CallOptions(thinking_budget=budget)
    body = await sent(server, provider, ask(Message.user("hi"), options=options))
    assert body["reasoning_effort"] == effort


async def test_zero_thinking_budget_sends_no_reasoning_effort(
    server: WireServer, provider: OpenAIProvider
) -> None:
    body = await sent(
        server, provider, ask(Message.user("hi"), options=CallOptions(thinking_budget=0))
    )
    assert "reasoning_effort" not in body


async def test_explicit_reasoning_effort_wins_over_the_budget(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(reasoning_effort="minimal")
    options = CallOptions(thinking_budget=16000)
    body = await sent(server, provider, ask(Message.user("hi"), options=options))
    assert body["reasoning_effort"] == "minimal"


@pytest.mark.parametrize("strict", [True, False])
async def test_output_schema_maps_onto_response_format(
    server: WireServer, provider: OpenAIProvider, strict: bool
) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    request = ask(Message.user("hi"), output_schema=OutputSchema("City answer!", schema, strict))
    body = await sent(server, provider, request)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "City_answer_", "schema": schema, "strict": strict},
    }


def test_provider_declares_native_structured_output() -> None:
    assert OpenAIProvider.supports_native_output is True


async def test_streaming_asks_for_usage(server: WireServer, provider: OpenAIProvider) -> None:
    server.enqueue(replies.reply(replies.completion("ok")))
    _ = [item async for item in provider.stream(ask(Message.user("hi")))]
    body = server.received[-1].body
    assert (body["stream"], body["stream_options"]) == (True, {"include_usage": True})


async def test_streaming_usage_request_can_be_turned_off(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(stream_usage=False)
    server.enqueue(replies.reply(replies.completion("ok")))
    _ = [item async for item in provider.stream(ask(Message.user("hi")))]
    assert "stream_options" not in server.received[-1].body
