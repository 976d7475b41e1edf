"""OpenAI-compatible servers that bend the format, replayed from real recordings through
the official SDK against the local server (see docs/providers.md, "OpenAI-compatible
servers checked"): what each sends is read without loss, and the follow-up request
carries back what the server needs."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from automata_wire_testing import (
    Reply,
    WireServer,
    final_response,
    replay,
    sse_data,
    tool_message,
)

from automata.core import (
    Agent,
    CallOptions,
    IncompleteResponseError,
    Message,
    ModelRequest,
    ModelResponse,
    RetryPolicy,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ThinkingDelta,
    ToolSpec,
    ToolUseBlock,
    Usage,
    dump_messages,
    load_messages,
    tool,
)

from . import replies
from .conftest import ProviderMaker
from .recordings import load, normalized

TEXT_PLAIN = "compatible_text_plain_200.yaml"
MISTRAL = "mistral_tool_calls_without_type.yaml"
MAGISTRAL = "mistral_magistral_list_content.yaml"
SNOWFLAKE = "snowflake_no_finish_reason.yaml"
SNOWFLAKE_STREAM = "snowflake_stream_no_finish_reason.yaml"
GEMINI = "gemini_tool_call_without_id.yaml"
DEEPSEEK = "deepseek_reasoning_content_followup.yaml"
OPENROUTER = "openrouter_stream_reasoning_details.yaml"

COMPAT = frozenset(
    {TEXT_PLAIN, MISTRAL, MAGISTRAL, SNOWFLAKE, SNOWFLAKE_STREAM, GEMINI, DEEPSEEK, OPENROUTER}
)
"""Every compatible-server recording these tests replay."""

MODES = ["complete", "stream"]


def messages_of(recorded: dict[str, Any]) -> tuple[Message, ...]:
    """The recorded request's leading system and user messages."""
    out = []
    for message in recorded["messages"]:
        content = message["content"]
        text = content if isinstance(content, str) else content[0]["text"]
        if message["role"] == "system":
            out.append(Message.system(text))
        elif message["role"] == "user":
            out.append(Message.user(text))
        else:
            break
    return tuple(out)


def tool_specs(recorded: dict[str, Any]) -> tuple[ToolSpec, ...]:
    return tuple(
        ToolSpec(t["function"]["name"], t["function"]["description"], t["function"]["parameters"])
        for t in recorded.get("tools", [])
    )


def recorded_request(recorded: dict[str, Any], *messages: Message) -> ModelRequest:
    return ModelRequest(
        messages=(*messages_of(recorded), *messages),
        tools=tool_specs(recorded),
        options=CallOptions(tool_choice="auto") if "tool_choice" in recorded else CallOptions(),
    )


def choice_of(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "finish_reason": finish}


def without_call_index(message: dict[str, Any]) -> dict[str, Any]:
    message = copy.deepcopy(message)
    for call in message.get("tool_calls") or []:
        call.pop("index", None)
    return message


# --- Mistral: tool calls without "type": "function" ------------------------------------


async def test_mistral_tool_calls_without_a_type_are_read_as_tool_calls(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(MISTRAL)
    provider = replay(server, make_provider, first)
    reply = await provider.complete(recorded_request(first.request))
    assert reply.message.content == (ToolUseBlock(id="FI5qQGzDE", name="get_image", input={}),)
    assert (reply.stop_reason, reply.raw_stop_reason) == (StopReason.TOOL_USE, "tool_calls")
    assert reply.usage == Usage(input_tokens=65, output_tokens=16)


async def test_mistral_streamed_tool_calls_without_a_type_are_read_as_tool_calls(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    call = {"index": 0, "id": "FI5qQGzDE", "function": {"name": "get_image", "arguments": "{}"}}
    events = [
        sse_data({"id": "m", "model": "pixtral", "choices": [choice_of({"tool_calls": [call]})]}),
        sse_data({"id": "m", "model": "pixtral", "choices": [choice_of({}, "tool_calls")]}),
        b"data: [DONE]\n\n",
    ]
    server.enqueue(Reply(events=events))
    reply = await final_response(
        make_provider(), ModelRequest(messages=(Message.user("hi"),)), streamed=True
    )
    assert reply.message.content == (ToolUseBlock(id="FI5qQGzDE", name="get_image", input={}),)


async def test_mistral_tool_turn_goes_back_as_the_server_accepted_it(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(MISTRAL)
    provider = replay(server, make_provider, first, second)
    request = recorded_request(first.request)
    reply = await provider.complete(request)
    final = await provider.complete(
        ModelRequest(
            messages=(
                *request.messages,
                reply.message,
                tool_message("FI5qQGzDE", TextBlock(text="See file 241a70")),
            ),
            tools=request.tools,
            options=request.options,
        )
    )
    sent = normalized(server.received[1].body)["messages"]
    recorded = normalized(second.request)["messages"]
    assert sent[1]["tool_calls"] == without_call_index(recorded[1])["tool_calls"]
    assert sent[2] == recorded[2]
    assert final.message.text.startswith("The image shows a kiwi fruit")


# --- Mistral Magistral: content as a list of chunks ------------------------------------

MAGISTRAL_CONTENT = [
    {"type": "thinking", "thinking": [{"type": "text", "text": "Two and two make four."}]},
    {"type": "text", "text": "4"},
]


async def test_magistral_plain_reply_is_read(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    (only,) = load(MAGISTRAL)
    provider = replay(server, make_provider, only)
    reply = await provider.complete(recorded_request(only.request))
    assert reply.message.content == (TextBlock(text="4"),)
    assert reply.usage == Usage(input_tokens=28, output_tokens=2)


@pytest.mark.parametrize("mode", MODES)
async def test_magistral_content_chunks_become_thinking_and_text(
    server: WireServer, make_provider: ProviderMaker, mode: str
) -> None:
    (only,) = load(MAGISTRAL)
    body = copy.deepcopy(only.reply.json_body)
    body["choices"][0]["message"]["content"] = MAGISTRAL_CONTENT
    if mode == "stream":
        chunks = [{"content": [part]} for part in MAGISTRAL_CONTENT]
        events = [
            *(sse_data({**body, "choices": [choice_of(c)]}) for c in chunks),
            sse_data({**body, "choices": [choice_of({}, "stop")]}),
            b"data: [DONE]\n\n",
        ]
        server.enqueue(Reply(events=events))
    else:
        server.enqueue(Reply(json_body=body))
    provider = make_provider(model="magistral-small-latest")
    reply = await final_response(
        provider, recorded_request(only.request), streamed=mode == "stream"
    )
    assert reply.message.content == (
        ThinkingBlock(thinking="Two and two make four."),
        TextBlock(text="4"),
    )
    assert reply.stop_reason is StopReason.END_TURN


# --- Snowflake Cortex: no finish reason -----------------------------------------------


@pytest.mark.parametrize("recording", [SNOWFLAKE, SNOWFLAKE_STREAM])
async def test_snowflake_reply_without_a_finish_reason_is_a_whole_end_turn(
    server: WireServer, make_provider: ProviderMaker, recording: str
) -> None:
    (only,) = load(recording)
    provider = replay(server, make_provider, only)
    request = recorded_request(only.request)
    reply = await final_response(provider, request, streamed=only.streamed)
    assert reply.message.content == (TextBlock(text="4"),)
    assert (reply.stop_reason, reply.raw_stop_reason) == (StopReason.END_TURN, "")
    assert reply.usage == Usage(input_tokens=22, output_tokens=5)
    assert normalized(server.received[0].body) == normalized(only.request)


@pytest.mark.parametrize("mode", MODES)
async def test_tool_calls_without_a_finish_reason_are_a_tool_turn(
    server: WireServer, make_provider: ProviderMaker, mode: str
) -> None:
    body = replies.completion(tool_calls=[replies.tool_call("c1", "clock", {})], finish_reason="")
    server.enqueue(replies.reply(body))
    reply = await final_response(
        make_provider(), ModelRequest(messages=(Message.user("hi"),)), streamed=mode == "stream"
    )
    assert (reply.stop_reason, reply.raw_stop_reason) == (StopReason.TOOL_USE, "")


async def test_a_snowflake_streamed_run_completes_under_the_agent(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    (only,) = load(SNOWFLAKE_STREAM)
    stream = Agent(replay(server, make_provider, only)).stream("What is 2 + 2?")
    _ = [event async for event in stream]
    assert (stream.result.output, stream.result.stop_reason) == ("4", StopReason.END_TURN)


async def test_a_stream_with_neither_finish_reason_nor_usage_chunk_is_incomplete(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    """Without either, a whole stream cannot be told from one cut short."""
    (only,) = load(SNOWFLAKE_STREAM)
    events = [e for e in only.reply.events or () if b'"usage"' not in e]
    server.enqueue(Reply(events=events))
    provider = make_provider(retry_policy=RetryPolicy.never())
    stream = Agent(provider).stream("What is 2 + 2?")
    with pytest.raises(IncompleteResponseError):
        _ = [event async for event in stream]


# --- Gemini: tool calls without an id, thought signatures ------------------------------


async def test_gemini_tool_call_without_an_id_gets_one_used_on_its_result(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(GEMINI)
    provider = replay(server, make_provider, first, second)

    def get_current_time() -> str:
        """Get the current time."""
        return "Noon"

    result = await Agent(provider, tools=[tool(get_current_time)]).run("What is the current time?")
    assert result.output == "The current time is Noon."
    call = result.messages[1].tool_calls[0]
    assert call.id.startswith("call_")
    assert len(call.id) == 29
    sent = normalized(server.received[1].body)["messages"]
    assert sent[1]["tool_calls"][0]["id"] == sent[2]["tool_call_id"] == call.id
    recorded = normalized(second.request)["messages"]
    recorded_id = recorded[2]["tool_call_id"]
    expected = json.loads(json.dumps(recorded).replace(recorded_id, call.id))
    message = first.reply.json_body["choices"][0]["message"]
    expected[1]["extra_content"] = message["extra_content"]
    assert sent == expected


async def test_gemini_message_thought_signature_is_kept_as_received(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(GEMINI)
    provider = replay(server, make_provider, first)
    reply = await provider.complete(recorded_request(first.request))
    message = first.reply.json_body["choices"][0]["message"]
    (call,) = reply.message.content
    assert isinstance(call, ToolUseBlock)
    assert call.extra == {
        "openai": {
            "message": {
                "extra_content": message["extra_content"],
                "thought_signature": message["thought_signature"],
            }
        }
    }


SIGNED_CALL = {
    **replies.tool_call("", "clock", {}),
    "extra_content": {"google": {"thought_signature": "c2lnbmVk"}},
}


@pytest.mark.parametrize("mode", MODES)
async def test_a_tool_call_thought_signature_goes_back_on_that_call(
    server: WireServer, make_provider: ProviderMaker, mode: str
) -> None:
    body = replies.completion(tool_calls=[SIGNED_CALL], finish_reason="tool_calls")
    if mode == "stream":
        head = {"index": 0, "type": "function", "extra_content": SIGNED_CALL["extra_content"]}
        function = {"name": "clock", "arguments": "{}"}
        events = [
            sse_data({**body, "choices": [choice_of({"tool_calls": [head]})]}),
            sse_data(
                {
                    **body,
                    "choices": [choice_of({"tool_calls": [{"index": 0, "function": function}]})],
                }
            ),
            sse_data({**body, "choices": [choice_of({}, "tool_calls")]}),
            b"data: [DONE]\n\n",
        ]
        server.enqueue(Reply(events=events), replies.reply(replies.completion("Noon.")))
    else:
        server.enqueue(replies.reply(body), replies.reply(replies.completion("Noon.")))
    provider = make_provider()
    question = Message.user("Time?")
    reply = await final_response(
        provider, ModelRequest(messages=(question,)), streamed=mode == "stream"
    )
    (call,) = reply.message.tool_calls
    assert call.extra == {"openai": {"call": {"extra_content": SIGNED_CALL["extra_content"]}}}
    await provider.complete(
        ModelRequest(
            messages=(question, reply.message, tool_message(call.id, TextBlock(text="12:00")))
        )
    )
    sent = server.received[1].body["messages"]
    assert sent[1]["tool_calls"] == [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": "clock", "arguments": "{}"},
            "extra_content": SIGNED_CALL["extra_content"],
        }
    ]
    assert sent[2]["tool_call_id"] == call.id


# --- DeepSeek: reasoning_content sent back on assistant turns ------------------------


async def test_deepseek_reasoning_is_thinking_sent_back_as_the_server_accepted(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second, third = load(DEEPSEEK)
    provider = replay(server, make_provider, first, second, third)
    reply1 = await provider.complete(recorded_request(first.request))
    thinking = first.reply.json_body["choices"][0]["message"]["reasoning_content"]
    assert reply1.message.content[0] == ThinkingBlock(
        thinking=thinking, extra={"openai": {"field": "reasoning_content"}}
    )
    discovered = second.request["messages"][6]["content"]
    made_up = Message.assistant(
        [
            ToolUseBlock(
                id="auto_load_eb5fc31bb581b4e7",
                name="search_tools",
                input={"queries": ["DICE_ROLL"]},
            )
        ]
    )
    history = (
        reply1.message,
        tool_message(reply1.message.tool_calls[0].id, TextBlock(text="{}")),
        made_up,
        tool_message("auto_load_eb5fc31bb581b4e7", TextBlock(text=discovered)),
    )
    reply2 = await provider.complete(recorded_request(second.request, *history))
    name_call, dice_call = reply2.message.tool_calls
    final = await provider.complete(
        recorded_request(
            third.request,
            *history,
            reply2.message,
            tool_message(name_call.id, TextBlock(text="Anne")),
            tool_message(dice_call.id, TextBlock(text="4")),
        )
    )
    for sent, recorded in zip(server.received, (first, second, third), strict=True):
        assert normalized(sent.body) == normalized(recorded.request)
    assert final.message.text.startswith("\U0001f389 **Congratulations, Anne!**")
    assert final.usage == Usage(
        input_tokens=80,
        output_tokens=61,
        cache_read_tokens=896,
        reasoning_tokens=25,
        extra={"openai": {"prompt_cache_hit_tokens": 896, "prompt_cache_miss_tokens": 80}},
    )


# --- OpenRouter: streamed reasoning_details -------------------------------------------


async def test_openrouter_streamed_reasoning_details_are_kept_and_sent_back(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    (only,) = load(OPENROUTER)
    provider = replay(server, make_provider, only)
    question = Message.user("What is 2+2?")
    items = [item async for item in provider.stream(ModelRequest(messages=(question,)))]
    reply = items[-1]
    assert isinstance(reply, ModelResponse)
    reasoning = "This is a simple arithmetic question. 2+2 equals 4."
    assert "".join(i.text for i in items if isinstance(i, ThinkingDelta)) == reasoning
    signature = (
        "Et0BCkgIChACGAIqQA2s7h7tA7IG35fbwVkou9PM2hANVJNUwcEM4q12fTRDK6y3v6YoEvJ+7bko8wnW/GLsQFXa"
        "daJPAEMCpLkhI9ISDLjFkeR1aVUIvdCtyBoMrUTovh0jwk+wpnZWIjANV3e6VVdgbGSsEyyTHO6KMmVtqqs79f9"
        "blnVdJmmMIwMyTi6bEtG59+jTU7v1zlsqQ2IKGZILOlr6adh0Aam7zYttvisys+wjyZZXU1y/Srz0nmp1cFgVOJe"
        "1BLKQI3SSRrjsqQC0uAEUZy0GX0Rq1AXjvIcYAQ=="
    )
    details = [
        {
            "type": "reasoning.text",
            "text": reasoning,
            "signature": signature,
            "format": "anthropic-claude-v1",
            "index": 0,
        }
    ]
    assert reply.message.content == (
        ThinkingBlock(
            thinking=reasoning,
            extra={"openai": {"field": "reasoning", "reasoning_details": details}},
        ),
        TextBlock(text="2 + 2 = 4"),
    )
    cost = {
        "cost": 0.000669,
        "is_byok": False,
        "cost_details": {
            "upstream_inference_cost": None,
            "upstream_inference_prompt_cost": 0.000129,
            "upstream_inference_completions_cost": 0.00054,
        },
    }
    assert reply.usage == Usage(
        input_tokens=43, output_tokens=36, reasoning_tokens=13, extra={"openai": cost}
    )
    server.enqueue(replies.reply(replies.completion("Yes.")))
    follow_up = ModelRequest(messages=(question, reply.message, Message.user("Sure?")))
    await provider.complete(follow_up)
    assert server.received[1].body["messages"][1] == {
        "role": "assistant",
        "content": "2 + 2 = 4",
        "reasoning_details": details,
    }


async def test_openrouter_whole_reply_details_sharing_an_index_are_kept_apart(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    """A whole reply's `reasoning_details` are whole entries: a summary and an
    encrypted entry both at `index` 0 stay two entries, sent back as received."""
    details = [
        {
            "type": "reasoning.summary",
            "summary": "Adding two and two.",
            "id": None,
            "format": "openai-responses-v1",
            "index": 0,
        },
        {
            "type": "reasoning.encrypted",
            "data": "gAAAAB-sealed",
            "id": "rs_1",
            "format": "openai-responses-v1",
            "index": 0,
        },
    ]
    body = replies.completion(
        "4", extra={"reasoning": "Adding two and two.", "reasoning_details": details}
    )
    server.enqueue(replies.reply(body), replies.reply(replies.completion("Yes.")))
    provider = make_provider()
    question = Message.user("What is 2+2?")
    reply = await provider.complete(ModelRequest(messages=(question,)))
    thinking = reply.message.content[0]
    assert isinstance(thinking, ThinkingBlock)
    assert thinking.extra == {"openai": {"field": "reasoning", "reasoning_details": details}}
    await provider.complete(ModelRequest(messages=(question, reply.message, Message.user("?"))))
    assert server.received[1].body["messages"][1]["reasoning_details"] == details


async def test_kept_vendor_fields_survive_a_saved_transcript(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    (only,) = load(OPENROUTER)
    provider = replay(server, make_provider, only)
    question = Message.user("What is 2+2?")
    reply = await final_response(provider, ModelRequest(messages=(question,)), streamed=True)
    saved = load_messages(dump_messages([question, reply.message]))
    server.enqueue(
        replies.reply(replies.completion("Yes.")), replies.reply(replies.completion("Yes."))
    )
    for history in ([question, reply.message], saved):
        await provider.complete(ModelRequest(messages=(*history, Message.user("Sure?"))))
    assert server.received[1].body["messages"] == server.received[2].body["messages"]
    assert "reasoning_details" in server.received[2].body["messages"][1]
