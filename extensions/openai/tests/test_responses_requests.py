"""What OpenAIResponsesProvider puts on the Responses wire, as the local server
received it from the official SDK: the transcript as input items (reasoning sent back
verbatim, parallel calls and their results in order, images), options, native output,
`store` and `previous_response_id`."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from automata_wire_testing import WireServer, ask, sent_body, tool_message
from automata_wire_testing import responses as wire

from automata.core import (
    Agent,
    CallOptions,
    ImageBlock,
    Message,
    OutputSchema,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolSpec,
    ToolUseBlock,
    tool,
)
from automata.openai import OpenAIResponsesProvider

from .responses_support import ResponsesMaker, make_provider

__all__ = ["make_provider"]

PNG = b"\x89PNG\r\n\x1a\nfake"
PNG_URL = "data:image/png;base64,iVBORw0KGgpmYWtl"
WEATHER = ToolSpec(
    "weather", "Get the weather", {"type": "object", "properties": {"city": {"type": "string"}}}
)
SEALED = "gAAAAB-encrypted-reasoning"
OK = wire.reply(wire.response(wire.message("ok")))


def weather(city: str) -> str:
    """Current weather for a city."""
    return f"snow in {city}"


async def _input(
    server: WireServer, provider: OpenAIResponsesProvider, *messages: Message
) -> list[Any]:
    items: list[Any] = (await sent_body(server, provider, ask(*messages), OK))["input"]
    return items


# --- reasoning round trip ------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])
async def test_a_reasoning_item_is_sent_back_verbatim_with_its_encrypted_content(
    server: WireServer, make_provider: ResponsesMaker, streamed: bool
) -> None:
    """OR3: with store=False the request asks for the encrypted reasoning, and the next turn sends
    the reasoning item back verbatim before the call that followed it."""
    reasoning = wire.reasoning("Need the weather.", encrypted_content=SEALED)
    call = wire.function_call("call_1", "weather", {"city": "Oslo"})
    server.enqueue(
        wire.reply(wire.response(reasoning, call)),
        wire.reply(wire.response(wire.message("Snow."), response_id="resp_2")),
    )
    agent = Agent(make_provider(store=False), tools=[tool(weather)])
    if streamed:
        run = agent.stream("Weather in Oslo?")
        _ = [event async for event in run]
        output = run.result.output
    else:
        output = (await agent.run("Weather in Oslo?")).output
    assert output == "Snow."
    first, second = (r.body for r in server.received)
    assert (first["store"], first["include"]) == (False, ["reasoning.encrypted_content"])
    assert second["input"][1:] == [
        {
            "id": "rs_1",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Need the weather."}],
            "encrypted_content": SEALED,
        },
        {
            "type": "function_call",
            "id": "fc_call_1",
            "status": "completed",
            "call_id": "call_1",
            "name": "weather",
            "arguments": '{"city":"Oslo"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "snow in Oslo"},
    ]


async def test_an_answer_goes_back_as_its_message_item_after_its_reasoning(
    server: WireServer, make_provider: ResponsesMaker
) -> None:
    """OR3, OR4: a reply's reasoning and message items go back in order, the message with its id,
    status and annotations."""
    reasoning = wire.reasoning("Think.", encrypted_content=SEALED)
    annotation = {
        "type": "url_citation",
        "url": "https://example.com",
        "title": "Example",
        "start_index": 0,
        "end_index": 5,
    }
    server.enqueue(
        wire.reply(wire.response(reasoning, wire.message("Hello", annotations=[annotation])))
    )
    provider = make_provider()
    reply = await provider.complete(ask(Message.user("hi")))
    items = await _input(server, provider, Message.user("hi"), reply.message, Message.user("more"))
    assert items[1:] == [
        reasoning,
        {
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "id": "msg_1",
            "content": [{"type": "output_text", "text": "Hello", "annotations": [annotation]}],
        },
        {"role": "user", "content": "more"},
    ]


async def test_thinking_and_raw_blocks_of_other_providers_are_left_out(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR3, OR4, OR6: another vendor's thinking and raw blocks are not sent; its text goes as a
    plain assistant message."""
    assistant = Message.assistant(
        [
            ThinkingBlock(thinking="Claude thought", signature="sig"),
            RawBlock(provider="anthropic", data={"type": "redacted_thinking", "data": "x"}),
            TextBlock(text="Hi there."),
        ]
    )
    items = await _input(server, provider, Message.user("hi"), assistant, Message.user("bye"))
    assert items == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hi there."},
        {"role": "user", "content": "bye"},
    ]


async def test_an_item_the_core_does_not_model_is_kept_raw_and_sent_back_as_received(
    server: WireServer, make_provider: ResponsesMaker
) -> None:
    """OR6: an output item the core does not model is a raw block, sent back exactly as received."""
    search = {
        "id": "ws_1",
        "type": "web_search_call",
        "status": "completed",
        "action": {"type": "search", "query": "oslo weather"},
    }
    server.enqueue(wire.reply(wire.response(search, wire.message("Snow."))))
    provider = make_provider()
    reply = await provider.complete(ask(Message.user("hi")))
    assert reply.message.content[0] == RawBlock(provider="openai-responses", data=search)
    items = await _input(server, provider, Message.user("hi"), reply.message)
    assert items[1] == search


# --- tool calls ----------------------------------------------------------------------


async def test_two_calls_in_one_reply_run_and_both_results_go_back_in_order(
    server: WireServer, make_provider: ResponsesMaker
) -> None:
    """OR5: two calls in one reply both run; both calls, then both outputs, go back in the reply's
    order."""
    calls = (
        wire.function_call("call_a", "weather", {"city": "Oslo"}),
        wire.function_call("call_b", "weather", {"city": "Lima"}),
    )
    server.enqueue(
        wire.reply(wire.response(*calls)), wire.reply(wire.response(wire.message("Done.")))
    )
    result = await Agent(make_provider(), tools=[tool(weather)]).run("Oslo and Lima?")
    assert result.output == "Done."
    assert [c.id for c in result.messages[1].tool_calls] == ["call_a", "call_b"]
    follow_up = server.received[1].body["input"]
    assert [(i["type"], i["call_id"]) for i in follow_up[1:]] == [
        ("function_call", "call_a"),
        ("function_call", "call_b"),
        ("function_call_output", "call_a"),
        ("function_call_output", "call_b"),
    ]
    assert [i["output"] for i in follow_up[3:]] == ["snow in Oslo", "snow in Lima"]


async def test_a_failed_result_starts_with_error_and_returned_images_go_in_its_output(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR5: a failed result's output starts with `error: `; returned images go in the output."""
    call = Message.assistant([ToolUseBlock(id="call_1", name="shot", input={})])
    results = [
        tool_message(
            "call_1", TextBlock(text="here"), ImageBlock(media_type="image/png", data=PNG)
        ),
        tool_message("call_2", TextBlock(text="boom"), is_error=True),
    ]
    items = await _input(server, provider, Message.user("go"), call, *results)
    assert items[2:] == [
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [
                {"type": "input_text", "text": "here"},
                {"type": "input_image", "image_url": PNG_URL, "detail": "auto"},
            ],
        },
        {"type": "function_call_output", "call_id": "call_2", "output": "error: boom"},
    ]


async def test_a_result_keeps_its_text_image_text_order_in_its_output(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR5: text, image, text in one result go as three parts in that order."""
    call = Message.assistant([ToolUseBlock(id="call_1", name="shot", input={})])
    result = tool_message(
        "call_1",
        TextBlock(text="before"),
        ImageBlock(media_type="image/png", data=PNG),
        TextBlock(text="after"),
        is_error=True,
    )
    items = await _input(server, provider, Message.user("go"), call, result)
    assert items[2]["output"] == [
        {"type": "input_text", "text": "error: before"},
        {"type": "input_image", "image_url": PNG_URL, "detail": "auto"},
        {"type": "input_text", "text": "after"},
    ]


async def test_a_raw_part_of_this_wire_in_a_result_is_sent_as_it_is(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR5: a raw block of the Responses wire in a result is a part of its output;
    another provider's raw block is left out."""
    file = {"type": "input_file", "file_id": "file-abc"}
    call = Message.assistant([ToolUseBlock(id="call_1", name="fetch", input={})])
    result = tool_message(
        "call_1",
        RawBlock(provider="openai-responses", data=file),
        RawBlock(provider="anthropic", data={"type": "container_upload"}),
        TextBlock(text="the report"),
    )
    items = await _input(server, provider, Message.user("go"), call, result)
    assert items[2]["output"] == [file, {"type": "input_text", "text": "the report"}]


async def test_a_call_this_wire_did_not_read_goes_without_an_item_id(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR5: a call read elsewhere goes back as a function_call without an item id."""
    call = Message.assistant([ToolUseBlock(id="toolu_1", name="weather", input={"city": "Rome"})])
    items = await _input(server, provider, Message.user("go"), call, tool_message("toolu_1"))
    assert items[1] == {
        "type": "function_call",
        "call_id": "toolu_1",
        "name": "weather",
        "arguments": '{"city":"Rome"}',
    }


async def test_unreadable_arguments_go_back_exactly_as_the_model_wrote_them(
    server: WireServer, make_provider: ResponsesMaker
) -> None:
    """OR5: arguments that are not a JSON object set input_error and go back as written."""
    server.enqueue(wire.reply(wire.response(wire.function_call("c", "weather", '{"city": "Os'))))
    provider = make_provider()
    reply = await provider.complete(ask(Message.user("hi")))
    (call,) = reply.message.tool_calls
    assert call.input_error == 'arguments were cut off: \'{"city": "Os\''
    items = await _input(server, provider, Message.user("hi"), reply.message, tool_message("c"))
    assert items[1]["arguments"] == '{"city": "Os'


# --- user content and system prompts -------------------------------------------------


async def test_user_images_go_as_input_image_parts_by_data_url_or_url(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR2: user text and images become input_text and input_image parts."""
    user = Message.user(
        [
            TextBlock(text="Compare"),
            ImageBlock(media_type="image/png", data=PNG),
            ImageBlock(url="https://example.com/cat.jpg"),
        ]
    )
    (item,) = await _input(server, provider, user)
    assert item == {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "Compare"},
            {"type": "input_image", "image_url": PNG_URL, "detail": "auto"},
            {"type": "input_image", "image_url": "https://example.com/cat.jpg", "detail": "auto"},
        ],
    }


async def test_a_raw_part_of_this_wire_goes_in_the_user_message_as_is(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR2: a raw block of this wire in a user message is sent as the part it holds."""
    part = {"type": "input_file", "file_id": "file-1"}
    user = Message.user([TextBlock(text="Read"), RawBlock(provider="openai-responses", data=part)])
    (item,) = await _input(server, provider, user)
    assert item["content"] == [{"type": "input_text", "text": "Read"}, part]


async def test_system_messages_are_sent_in_place_with_the_chosen_role(
    server: WireServer, make_provider: ResponsesMaker
) -> None:
    """OR2: system messages go in place, with the chosen role."""
    provider = make_provider(system_role="developer")
    items = await _input(server, provider, Message.system("Be brief."), Message.user("hi"))
    assert items == [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]


# --- options -------------------------------------------------------------------------


async def test_tools_are_functions_sent_not_strict_and_any_means_required(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR7: tools are non-strict function tools; `any` is `required`."""
    request = ask(Message.user("hi"), tools=(WEATHER,), options=CallOptions(tool_choice="any"))
    body = await sent_body(server, provider, request, OK)
    assert body["tools"] == [
        {
            "type": "function",
            "name": "weather",
            "description": "Get the weather",
            "parameters": dict(WEATHER.input_schema),
            "strict": False,
        }
    ]
    assert body["tool_choice"] == "required"


async def test_a_named_tool_choice_names_the_function(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR7: a tool name as tool_choice names the function."""
    request = ask(Message.user("hi"), tools=(WEATHER,), options=CallOptions(tool_choice="weather"))
    body = await sent_body(server, provider, request, OK)
    assert body["tool_choice"] == {"type": "function", "name": "weather"}


async def test_call_options_map_onto_the_responses_parameters(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR7: max_tokens, temperature and a thinking budget map onto the Responses parameters; nothing
    else is sent."""
    options = CallOptions(max_tokens=300, temperature=0.2, thinking_budget=4000)
    body = await sent_body(server, provider, ask(Message.user("hi"), options=options), OK)
    assert (body["max_output_tokens"], body["temperature"]) == (300, 0.2)
    assert body["reasoning"] == {"effort": "medium", "summary": "auto"}
    assert not {"store", "include", "previous_response_id"} & body.keys()


async def test_stop_sequences_are_not_sent_and_warned_about_once(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR7: stop sequences are not sent, with one warning."""
    request = ask(Message.user("hi"), options=CallOptions(stop_sequences=("END",)))
    with pytest.warns(UserWarning, match="the Responses API takes no stop sequences"):
        body = await sent_body(server, provider, request, OK)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        await sent_body(server, provider, request, OK)
    assert "stop" not in body


async def test_native_output_is_sent_as_a_strict_json_schema_text_format(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR8: an output schema is sent as text.format json_schema, named and strict as for Chat
    Completions."""
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    output = OutputSchema("my output!", schema, strict_compatible=True)
    body = await sent_body(server, provider, ask(Message.user("hi"), output_schema=output), OK)
    assert body["text"] == {
        "format": {"type": "json_schema", "name": "my_output_", "schema": schema, "strict": True}
    }


# --- previous_response_id ------------------------------------------------------------


async def test_by_default_the_whole_transcript_is_sent(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR2, OR9: without the option the whole transcript goes and no previous_response_id."""
    server.enqueue(OK)
    reply = await provider.complete(ask(Message.user("hi")))
    body = await sent_body(
        server, provider, ask(Message.user("hi"), reply.message, Message.user("more")), OK
    )
    assert "previous_response_id" not in body
    assert len(body["input"]) == 3


async def test_previous_response_id_sends_only_what_follows_the_last_reply(
    server: WireServer, make_provider: ResponsesMaker
) -> None:
    """OR9: with use_previous_response_id the latest reply's id goes, with only the messages after
    it."""
    provider = make_provider(use_previous_response_id=True)
    server.enqueue(wire.reply(wire.response(wire.message("Hello"), response_id="resp_9")))
    first = ask(Message.system("Be brief."), Message.user("hi"))
    reply = await provider.complete(first)
    assert "previous_response_id" not in server.received[0].body
    later = ask(*first.messages, reply.message, Message.user("more"))
    body = await sent_body(server, provider, later, OK)
    assert body["previous_response_id"] == "resp_9"
    assert body["input"] == [{"role": "user", "content": "more"}]


def test_previous_response_id_cannot_be_combined_with_store_false() -> None:
    """OR9: use_previous_response_id with store=False is refused."""
    with pytest.raises(ValueError, match="cannot be combined with store=False"):
        OpenAIResponsesProvider("m", api_key="k", store=False, use_previous_response_id=True)
