"""Real OpenAI traffic, replayed through the official SDK against the local server.

Each test sends what an agent loop would send for the recorded conversation and
checks both directions: the blocks, usage and finish reason we read from the real
reply, and that the follow-up request we build (assistant tool calls, tool results,
images) is the one the vendor accepted.
"""

from __future__ import annotations

import base64
from typing import Any

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
    OutputSchema,
    StopReason,
    TextBlock,
    TextDelta,
    ToolSpec,
    ToolUseBlock,
    Usage,
)

from .conftest import ProviderMaker
from .recordings import FIXTURES, load, normalized
from .test_compat import COMPAT


def first_user_message(recorded: dict[str, Any]) -> Message:
    return Message.user(recorded["messages"][0]["content"])


def tool_specs(recorded: dict[str, Any]) -> tuple[ToolSpec, ...]:
    return tuple(
        ToolSpec(t["function"]["name"], t["function"]["description"], t["function"]["parameters"])
        for t in recorded.get("tools", [])
    )


# --- streamed tool call with argument fragments --------------------------------------

STREAM = "openai_stream_tool_calls.yaml"


def capital_request(recorded: dict[str, Any], *messages: Message) -> ModelRequest:
    return ModelRequest(
        messages=(first_user_message(recorded), *messages),
        tools=tool_specs(recorded),
        options=CallOptions(tool_choice="auto"),
    )


async def test_streamed_request_matches_the_recorded_one(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(STREAM)
    provider = replay(server, make_provider, first)
    await final_response(provider, capital_request(first.request), streamed=True)
    sent = server.received[0].body
    assert sent["stream"] is True
    assert normalized(sent) == normalized(first.request)


async def test_streamed_tool_call_is_assembled_from_argument_fragments(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(STREAM)
    provider = replay(server, make_provider, first)
    response = await final_response(provider, capital_request(first.request), streamed=True)
    assert response.message.content == (
        ToolUseBlock(
            id="call_ZR5UUuTt3pf61kjwAJIYdVMj", name="get_capital", input={"country": "UK"}
        ),
    )
    assert (response.stop_reason, response.raw_stop_reason) == (StopReason.TOOL_USE, "tool_calls")
    assert response.usage == Usage(input_tokens=53, output_tokens=15)
    assert response.model == "gpt-4o-mini-2024-07-18"


async def test_streamed_tool_turn_is_sent_back_as_the_vendor_accepted(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(STREAM)
    provider = replay(server, make_provider, first, second)
    reply = await final_response(provider, capital_request(first.request), streamed=True)
    call_id = reply.message.tool_calls[0].id
    request = capital_request(
        first.request, reply.message, tool_message(call_id, TextBlock(text="London"))
    )
    items = [item async for item in provider.stream(request)]
    final = items[-1]
    assert isinstance(final, ModelResponse)
    assert normalized(server.received[1].body) == normalized(second.request)
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == (
        "The capital of the UK is London."
    )
    assert final.message.content == (TextBlock(text="The capital of the UK is London."),)
    assert final.stop_reason is StopReason.END_TURN
    assert final.usage == Usage(input_tokens=78, output_tokens=9)


# --- native JSON schema output -------------------------------------------------------

NATIVE = "openai_native_json_schema_output.yaml"


def native_request(recorded: dict[str, Any], *messages: Message) -> ModelRequest:
    response_format = recorded["response_format"]["json_schema"]
    return ModelRequest(
        messages=(first_user_message(recorded), *messages),
        tools=tool_specs(recorded),
        options=CallOptions(tool_choice="auto"),
        output_schema=OutputSchema(
            response_format["name"], response_format["schema"], response_format["strict"]
        ),
    )


async def test_native_output_requests_match_the_recorded_ones(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(NATIVE)
    provider = replay(server, make_provider, first, second)
    reply = await provider.complete(native_request(first.request))
    call_id = reply.message.tool_calls[0].id
    await provider.complete(
        native_request(
            first.request, reply.message, tool_message(call_id, TextBlock(text="Mexico"))
        )
    )
    assert normalized(server.received[0].body) == normalized(first.request)
    assert normalized(server.received[1].body) == normalized(second.request)


async def test_native_output_reply_is_the_json_text(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(NATIVE)
    server.enqueue(second.reply)
    provider = make_provider(model=first.request["model"])
    response = await provider.complete(native_request(first.request))
    assert response.message.text == '{"city":"Mexico City","country":"Mexico"}'
    assert response.stop_reason is StopReason.END_TURN
    assert response.usage == Usage(input_tokens=92, output_tokens=15)


# --- final answer through a tool call ------------------------------------------------

TOOL_OUTPUT = "openai_tool_output.yaml"


async def test_required_tool_choice_round_trip_matches_the_recording(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(TOOL_OUTPUT)
    provider = replay(server, make_provider, first, second)
    request = ModelRequest(
        messages=(first_user_message(first.request),),
        tools=tool_specs(first.request),
        options=CallOptions(tool_choice="any"),
    )
    reply = await provider.complete(request)
    call_id = reply.message.tool_calls[0].id
    final = await provider.complete(
        ModelRequest(
            messages=(
                *request.messages,
                reply.message,
                tool_message(call_id, TextBlock(text="Mexico")),
            ),
            tools=request.tools,
            options=request.options,
        )
    )
    assert normalized(server.received[0].body) == normalized(first.request)
    assert normalized(server.received[1].body) == normalized(second.request)
    assert final.message.content == (
        ToolUseBlock(
            id="call_gmD2oUZUzSoCkmNmp3JPUF7R",
            name="final_result",
            input={"city": "Mexico City", "country": "Mexico"},
        ),
    )
    assert final.stop_reason is StopReason.TOOL_USE


# --- images returned by a tool -------------------------------------------------------

IMAGES = "openai_images_in_tool_result.yaml"


def images_in(recorded_user_message: dict[str, Any]) -> list[ImageBlock]:
    images = []
    for part in recorded_user_message["content"]:
        if part["type"] != "image_url":
            continue
        url = part["image_url"]["url"]
        if url.startswith("data:"):
            header, encoded = url.split(",", 1)
            media_type = header.removeprefix("data:").removesuffix(";base64")
            images.append(ImageBlock(media_type=media_type, data=base64.b64decode(encoded)))
        else:
            images.append(ImageBlock(url=url))
    return images


async def test_images_returned_by_a_tool_reach_the_model_in_a_follow_up_user_message(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(IMAGES)
    provider = replay(server, make_provider, first, second)
    request = ModelRequest(
        messages=(first_user_message(first.request),),
        tools=tool_specs(first.request),
        options=CallOptions(tool_choice="auto"),
    )
    reply = await provider.complete(request)
    call_id = reply.message.tool_calls[0].id
    recorded = second.request["messages"]
    final = await provider.complete(
        ModelRequest(
            messages=(
                *request.messages,
                reply.message,
                tool_message(call_id, *images_in(recorded[3])),
            ),
            tools=request.tools,
            options=request.options,
        )
    )
    sent = normalized(server.received[1].body)["messages"]
    assert sent[:2] == normalized(second.request)["messages"][:2]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user"]
    assert sent[2]["tool_call_id"] == call_id
    recorded_images = [p for p in recorded[3]["content"] if p["type"] == "image_url"]
    assert [p for p in sent[3]["content"] if p["type"] == "image_url"] == recorded_images
    assert final.message.text == "Kiwi"
    assert final.usage == Usage(input_tokens=765, output_tokens=75, reasoning_tokens=64)


# --- what every vendor's recordings are checked for ---------------------------------


class TestRecordings(RecordingChecks):
    fixtures = FIXTURES
    failure = "openai_error_404.yaml"
    replayed = frozenset({STREAM, NATIVE, TOOL_OUTPUT, IMAGES, failure, *COMPAT})
    failure_message = (
        "openai: 404 model_not_found: The model `gpt-5.2-proo` does not exist or you do "
        "not have access to it."
    )
    failure_status = 404

    def first_request(self, recorded: dict[str, Any]) -> ModelRequest:
        return ModelRequest(messages=(first_user_message(recorded),))
