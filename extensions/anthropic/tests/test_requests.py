"""What AnthropicProvider puts on the wire, as received by the local server."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import WireServer, ask, sent_body, tool_message

from automata.anthropic import AnthropicProvider
from automata.core import (
    CallOptions,
    ImageBlock,
    Message,
    ModelRequest,
    OutputSchema,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolSpec,
    ToolUseBlock,
)

from . import replies
from .conftest import ProviderMaker

PNG = b"\x89PNG\r\n\x1a\nfake"
PNG_B64 = "iVBORw0KGgpmYWtl"
WEATHER = ToolSpec(
    "weather", "Get the weather", {"type": "object", "properties": {"city": {"type": "string"}}}
)
CLOCK = ToolSpec("clock", "Tell the time", {"type": "object", "properties": {}})
CALL = ToolUseBlock(id="toolu_1", name="weather", input={"city": "Paris"})


OK = replies.reply(replies.message([{"type": "text", "text": "ok"}]))


async def sent(
    server: WireServer, provider: AnthropicProvider, request: ModelRequest
) -> dict[str, Any]:
    """The JSON body the server received for `request`."""
    return await sent_body(
        server, provider, request, replies.reply(replies.message([{"type": "text", "text": "ok"}]))
    )


def tool_result(*content: Any, is_error: bool = False) -> Message:
    return tool_message("toolu_1", *content, is_error=is_error)


# --- messages -----------------------------------------------------------------------


async def test_system_message_becomes_the_system_parameter(
    server: WireServer, provider: AnthropicProvider
) -> None:
    body = await sent(server, provider, ask(Message.system("Be brief."), Message.user("hi")))
    assert body["system"] == "Be brief."
    assert body["messages"] == [{"role": "user", "content": "hi"}]


async def test_later_system_message_is_sent_as_user_text(
    server: WireServer, provider: AnthropicProvider
) -> None:
    request = ask(
        Message.system("Be brief."),
        Message.user("hi"),
        Message.assistant("hello"),
        Message.system("Now answer in French."),
    )
    body = await sent(server, provider, request)
    assert body["system"] == "Be brief."
    assert body["messages"][-1] == {"role": "user", "content": "Now answer in French."}


async def test_tool_results_and_a_following_user_message_share_one_user_turn(
    server: WireServer, provider: AnthropicProvider
) -> None:
    request = ask(
        Message.user("weather?"),
        Message.assistant([CALL]),
        tool_result(TextBlock(text="sunny")),
        Message.user("and tomorrow?"),
    )
    body = await sent(server, provider, request)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": "sunny",
            "is_error": False,
        },
        {"type": "text", "text": "and tomorrow?"},
    ]


async def test_tool_call_is_sent_with_its_id_name_and_input(
    server: WireServer, provider: AnthropicProvider
) -> None:
    request = ask(Message.user("weather?"), Message.assistant([CALL]), tool_result())
    body = await sent(server, provider, request)
    assert body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}
    ]


async def test_failed_tool_result_keeps_is_error(
    server: WireServer, provider: AnthropicProvider
) -> None:
    request = ask(
        Message.user("weather?"),
        Message.assistant([CALL]),
        tool_result(TextBlock(text="city unknown"), is_error=True),
    )
    body = await sent(server, provider, request)
    result = body["messages"][2]["content"][0]
    assert result["is_error"] is True
    assert result["content"] == "city unknown"


async def test_signed_thinking_is_replayed_verbatim(
    server: WireServer, provider: AnthropicProvider
) -> None:
    thinking = ThinkingBlock(thinking="Let me check.", signature="sig-abc")
    request = ask(
        Message.user("weather?"),
        Message.assistant([thinking, CALL]),
        tool_result(TextBlock(text="sunny")),
    )
    body = await sent(server, provider, request)
    assert body["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "Let me check.",
        "signature": "sig-abc",
    }


async def test_unsigned_thinking_is_never_sent(
    server: WireServer, provider: AnthropicProvider
) -> None:
    request = ask(
        Message.user("hi"),
        Message.assistant([ThinkingBlock(thinking="from another model"), TextBlock(text="hello")]),
        Message.user("again"),
    )
    body = await sent(server, provider, request)
    assert body["messages"][1]["content"] == "hello"


async def test_anthropic_raw_blocks_are_replayed_byte_for_byte(
    server: WireServer, provider: AnthropicProvider
) -> None:
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}
    request = ask(
        Message.user("hi"),
        Message.assistant([RawBlock(provider="anthropic", data=redacted), CALL]),
        tool_result(TextBlock(text="sunny")),
    )
    body = await sent(server, provider, request)
    assert body["messages"][1]["content"][0] == redacted


async def test_other_providers_raw_blocks_are_left_out(
    server: WireServer, provider: AnthropicProvider
) -> None:
    foreign = RawBlock(provider="openai", data={"type": "refusal", "refusal": "no"})
    request = ask(
        Message.user("hi"), Message.assistant([foreign, TextBlock(text="hello")]), Message.user("?")
    )
    body = await sent(server, provider, request)
    assert body["messages"][1]["content"] == "hello"


async def test_a_turn_left_empty_by_dropped_blocks_is_omitted_and_its_neighbours_merge(
    server: WireServer, provider: AnthropicProvider
) -> None:
    request = ask(
        Message.user("first"),
        Message.assistant([ThinkingBlock(thinking="unsigned")]),
        Message.user("second"),
    )
    body = await sent(server, provider, request)
    assert body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}],
        }
    ]


async def test_empty_text_blocks_are_not_sent(
    server: WireServer, provider: AnthropicProvider
) -> None:
    request = ask(Message.user([TextBlock(text=""), TextBlock(text="hi")]))
    body = await sent(server, provider, request)
    assert body["messages"][0]["content"] == "hi"


async def test_lone_plain_text_goes_as_a_string_anything_richer_as_blocks(
    server: WireServer, provider: AnthropicProvider
) -> None:
    """The API reads a string as one text block; the string is cheaper to build, copy
    and send, so a turn or tool result that is exactly one plain text block goes as one."""
    request = ask(
        Message.user("weather?"),
        Message.assistant([TextBlock(text="Checking."), CALL]),
        tool_result(TextBlock(text="sunny"), TextBlock(text="and warm")),
    )
    body = await sent(server, provider, request)
    assert body["messages"][0]["content"] == "weather?"
    assert body["messages"][1]["content"][0] == {"type": "text", "text": "Checking."}
    assert body["messages"][2]["content"][0]["content"] == [
        {"type": "text", "text": "sunny"},
        {"type": "text", "text": "and warm"},
    ]


async def test_user_images_are_sent_inline_and_by_url(
    server: WireServer, provider: AnthropicProvider
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
    assert body["messages"][0]["content"][1:] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
    ]


async def test_tool_result_text_and_image_keep_their_order(
    server: WireServer, provider: AnthropicProvider
) -> None:
    request = ask(
        Message.user("shot?"),
        Message.assistant([CALL]),
        tool_result(TextBlock(text="captured"), ImageBlock(media_type="image/png", data=PNG)),
    )
    body = await sent(server, provider, request)
    assert body["messages"][2]["content"][0]["content"] == [
        {"type": "text", "text": "captured"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
    ]


# --- tools, options, output ---------------------------------------------------------


async def test_tools_are_sent_with_name_description_and_schema(
    server: WireServer, provider: AnthropicProvider
) -> None:
    body = await sent(server, provider, ask(Message.user("hi"), tools=(WEATHER,)))
    assert body["tools"] == [
        {
            "name": "weather",
            "description": "Get the weather",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ]
    assert "tool_choice" not in body


async def test_call_options_map_onto_request_fields(
    server: WireServer, provider: AnthropicProvider
) -> None:
    options = CallOptions(max_tokens=321, stop_sequences=("END", "STOP"))
    body = await sent(server, provider, ask(Message.user("hi"), options=options))
    assert (body["max_tokens"], body["stop_sequences"]) == (321, ["END", "STOP"])


async def test_temperature_is_not_sent_to_the_current_api_version_and_warns(
    server: WireServer, provider: AnthropicProvider
) -> None:
    request = ask(Message.user("hi"), options=CallOptions(temperature=0.2))
    with pytest.warns(UserWarning, match="does not send temperature"):
        body = await sent(server, provider, request)
    assert "temperature" not in body


async def test_temperature_is_sent_when_sampling_params_are_enabled(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(sampling_params=True)
    request = ask(Message.user("hi"), options=CallOptions(temperature=0.2))
    body = await sent(server, provider, request)
    assert body["temperature"] == 0.2


async def test_unset_options_are_not_sent_and_max_tokens_has_a_default(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    body = await sent(server, make_provider(max_tokens=1000), ask(Message.user("hi")))
    assert body["max_tokens"] == 1000
    assert not {"temperature", "stop_sequences", "thinking", "tool_choice", "system"} & set(body)


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", {"type": "auto"}),
        ("any", {"type": "any"}),
        ("none", {"type": "none"}),
        ("clock", {"type": "tool", "name": "clock"}),
    ],
)
async def test_tool_choice_maps_onto_anthropic_tool_choice(
    server: WireServer, provider: AnthropicProvider, choice: str, wire: dict[str, str]
) -> None:
    request = ask(
        Message.user("hi"), tools=(WEATHER, CLOCK), options=CallOptions(tool_choice=choice)
    )
    body = await sent(server, provider, request)
    assert body["tool_choice"] == wire


async def test_tool_choice_is_not_sent_without_tools(
    server: WireServer, provider: AnthropicProvider
) -> None:
    body = await sent(
        server, provider, ask(Message.user("hi"), options=CallOptions(tool_choice="any"))
    )
    assert "tool_choice" not in body


async def test_thinking_budget_enables_thinking_on_top_of_the_answer_budget(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(max_tokens=1000)
    body = await sent(
        server, provider, ask(Message.user("hi"), options=CallOptions(thinking_budget=2048))
    )
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 3048


async def test_explicit_max_tokens_is_kept_with_a_thinking_budget(
    server: WireServer, provider: AnthropicProvider
) -> None:
    options = CallOptions(thinking_budget=2048, max_tokens=8000)
    body = await sent(server, provider, ask(Message.user("hi"), options=options))
    assert body["max_tokens"] == 8000


async def test_adaptive_thinking_mode_lets_the_model_size_its_thinking(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(thinking_mode="adaptive")
    request = ask(Message.user("hi"), options=CallOptions(thinking_budget=2048))
    body = await sent(server, provider, request)
    assert body["thinking"] == {"type": "adaptive"}


async def test_effort_is_sent_in_output_config_beside_the_output_format(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(effort="high")
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    request = ask(Message.user("hi"), output_schema=OutputSchema("answer", schema, True))
    body = await sent(server, provider, request)
    assert body["output_config"] == {
        "effort": "high",
        "format": {"type": "json_schema", "schema": schema},
    }


async def test_output_schema_maps_onto_output_config_format(
    server: WireServer, provider: AnthropicProvider
) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    request = ask(Message.user("hi"), output_schema=OutputSchema("answer", schema, True))
    body = await sent(server, provider, request)
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": schema}}


def test_provider_declares_native_structured_output() -> None:
    assert AnthropicProvider.supports_native_output is True


# --- prompt caching -----------------------------------------------------------------

EPHEMERAL = {"type": "ephemeral"}


async def test_prompt_cache_breakpoint_closes_the_system_prefix(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(cache_prompt=True)
    request = ask(Message.system("Be brief."), Message.user("hi"), tools=(WEATHER, CLOCK))
    body = await sent(server, provider, request)
    assert body["system"] == [{"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}]
    assert all("cache_control" not in tool for tool in body["tools"])


async def test_prompt_cache_breakpoint_goes_on_the_last_tool_without_a_system_prompt(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(cache_prompt=True)
    body = await sent(server, provider, ask(Message.user("hi"), tools=(WEATHER, CLOCK)))
    assert [tool.get("cache_control") for tool in body["tools"]] == [None, EPHEMERAL]


async def test_prompt_caching_can_be_switched_off(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(cache_prompt=False)
    request = ask(Message.system("Be brief."), Message.user("hi"), tools=(WEATHER,))
    body = await sent(server, provider, request)
    assert body["system"] == "Be brief."
    assert "cache_control" not in body["tools"][0]


async def test_conversation_cache_marks_the_last_cacheable_block(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(cache_conversation=True)
    request = ask(
        Message.user("weather?"),
        Message.assistant([CALL]),
        tool_result(TextBlock(text="sunny")),
    )
    body = await sent(server, provider, request)
    marked = [
        (m, b["type"])
        for m, message in enumerate(body["messages"])
        for b in message["content"]
        if "cache_control" in b
    ]
    assert marked == [(2, "tool_result")]


async def test_conversation_cache_skips_thinking_blocks(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(cache_conversation=True)
    request = ask(
        Message.user("hi"),
        Message.assistant([TextBlock(text="partial"), ThinkingBlock(thinking="t", signature="s")]),
    )
    body = await sent(server, provider, request)
    text, thinking = body["messages"][1]["content"]
    assert text["cache_control"] == EPHEMERAL
    assert "cache_control" not in thinking


async def test_conversation_cache_is_off_by_default(
    server: WireServer, provider: AnthropicProvider
) -> None:
    body = await sent(server, provider, ask(Message.user("hi")))
    assert "cache_control" not in body["messages"][0]["content"][0]


CITATION = {"type": "char_location", "cited_text": "x", "document_index": 0}


async def test_anthropic_fields_kept_on_blocks_go_back_and_never_replace_modelled_ones(
    server: WireServer, provider: AnthropicProvider
) -> None:
    text = TextBlock(
        text="cited",
        extra={"anthropic": {"citations": [CITATION], "text": "not this"}, "openai": {"x": 1}},
    )
    call = ToolUseBlock(
        id="toolu_1",
        name="weather",
        input={},
        extra={"anthropic": {"caller": {"type": "code_execution_20250825", "tool_id": "s"}}},
    )
    body = await sent(server, provider, ask(Message.user("hi"), Message.assistant([text, call])))
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "cited", "citations": [CITATION]},
        {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "weather",
            "input": {},
            "caller": {"type": "code_execution_20250825", "tool_id": "s"},
        },
    ]
