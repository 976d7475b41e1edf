"""Malformed Messages API bodies end in `ProviderError`, never in the Python error that
reading them happened to raise; a field the API may leave out is read leniently."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer, final_response, sse_event

from automata.anthropic import AnthropicProvider
from automata.core import Message, ModelRequest, ProviderError, StopReason, TextBlock, Usage

from . import replies
from .conftest import ProviderMaker

REQUEST = ModelRequest(messages=(Message.user("hi"),))
TEXT = [{"type": "text", "text": "hello there"}]


def events(*items: tuple[str, Any]) -> Reply:
    return Reply(events=[sse_event(kind, data) for kind, data in items])


START = ("message_start", {"type": "message_start", "message": replies.message([], usage={})})
STOP = ("message_stop", {"type": "message_stop"})


def text_start(index: int = 0) -> tuple[str, Any]:
    block = {"type": "text", "text": ""}
    return (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": block},
    )


def delta(data: dict[str, Any], index: int = 0) -> tuple[str, Any]:
    return ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": data})


BLOCK_STOP = ("content_block_stop", {"type": "content_block_stop", "index": 0})


async def failure(server: WireServer, provider: AnthropicProvider, reply: Reply) -> ProviderError:
    server.enqueue(reply)
    with pytest.raises(ProviderError) as caught:
        await final_response(provider, REQUEST, streamed=reply.events is not None)
    assert caught.value.provider == "anthropic"
    assert not caught.value.retryable
    assert caught.value.__cause__ is not None
    return caught.value


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {**replies.message(TEXT), "content": None},
            "anthropic: TypeError: 'NoneType' object is not iterable",
        ),
        (
            {**replies.message(TEXT), "content": 5},
            "anthropic: TypeError: 'int' object is not iterable",
        ),
        (replies.message([{"type": "text"}]), "anthropic: KeyError: 'text'"),
        (
            replies.message([{"type": "tool_use", "name": "f", "input": {}}]),
            "anthropic: KeyError: 'id'",
        ),
        (
            {**replies.message(TEXT), "content": ["text"]},
            "anthropic: TypeError: a content block is not an object: 'text'",
        ),
    ],
    ids=["content-null", "content-int", "text-missing", "id-missing", "block-str"],
)
async def test_a_malformed_json_reply_is_a_provider_error(
    server: WireServer, provider: AnthropicProvider, body: Any, message: str
) -> None:
    error = await failure(server, provider, Reply(json_body=body))
    assert str(error) == message


@pytest.mark.parametrize(
    ("body", "shown"), [([1, 2], "[1, 2]"), ("a string", "'a string'")], ids=["list", "str"]
)
async def test_a_json_reply_that_is_not_an_object_is_not_a_message(
    server: WireServer, make_provider: ProviderMaker, body: Any, shown: str
) -> None:
    server.enqueue(Reply(json_body=body))
    with pytest.raises(ProviderError) as caught:
        await make_provider().complete(REQUEST)
    assert str(caught.value).startswith("anthropic: the reply is not a message")
    assert str(caught.value).endswith(f": {shown}")
    assert not caught.value.retryable


async def test_a_200_text_plain_reply_is_a_provider_error_quoting_it(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    # The shape of a compatible endpoint's answer recorded in
    # openai/tests/fixtures/compatible_text_plain_200.yaml, here on the Messages path.
    page = "method=POST pathname=/v1/messages Content-Type=text/plain"
    server.enqueue(Reply(body=page.encode(), headers={"content-type": "text/plain"}))
    provider = make_provider()
    with pytest.raises(ProviderError) as caught:
        await provider.complete(REQUEST)
    # A raw post has the HTTP reply and names its content type; through
    # `messages.create` the SDK hands on the body's text alone.
    named = " (text/plain)" if provider.posts_raw else ""
    assert str(caught.value) == f"anthropic: the reply is not a message{named}: {page!r}"
    assert (caught.value.provider, caught.value.retryable) == ("anthropic", False)


async def test_a_json_text_of_the_wrong_type_is_a_provider_error(
    server: WireServer, provider: AnthropicProvider
) -> None:
    error = await failure(
        server, provider, Reply(json_body=replies.message([{"type": "text", "text": 5}]))
    )
    assert str(error).startswith("anthropic: ValidationError: 1 validation error for TextBlock")


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (
            events(
                START, ("content_block_start", {"type": "content_block_start", "index": 0}), STOP
            ),
            "anthropic: a content_block_start without a content_block object",
        ),
        (
            events(
                START,
                text_start(),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "x"}},
                ),
                STOP,
            ),
            "anthropic: a content_block_delta for block None, which is not open",
        ),
        (
            events(START, text_start(), delta({"type": "text_delta", "text": 5}), BLOCK_STOP, STOP),
            "anthropic: a text_delta whose text is not a string",
        ),
        (
            events(
                START,
                text_start(),
                delta({"type": "input_json_delta", "partial_json": "{}"}),
                BLOCK_STOP,
                STOP,
            ),
            "anthropic: unexpected input_json_delta in a text block",
        ),
        (
            Reply(events=[b"event: message_start\ndata: {not json\n\n"]),
            "anthropic: JSONDecodeError: Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1)",
        ),
    ],
    ids=["start-without-block", "delta-without-index", "text-int", "json-in-text", "not-json"],
)
async def test_a_malformed_stream_is_a_provider_error(
    server: WireServer, provider: AnthropicProvider, reply: Reply, message: str
) -> None:
    error = await failure(server, provider, reply)
    assert str(error) == message


async def test_a_message_delta_without_usage_keeps_the_usage_of_message_start(
    server: WireServer, provider: AnthropicProvider
) -> None:
    start = (
        "message_start",
        {
            "type": "message_start",
            "message": replies.message([], usage={"input_tokens": 9, "output_tokens": 1}),
        },
    )
    server.enqueue(
        events(
            start,
            text_start(),
            delta({"type": "text_delta", "text": "hi"}),
            BLOCK_STOP,
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
            STOP,
        )
    )
    response = await final_response(provider, REQUEST, streamed=True)
    assert response.message.content == (TextBlock(text="hi"),)
    assert (response.stop_reason, response.usage) == (
        StopReason.END_TURN,
        Usage(input_tokens=9, output_tokens=1),
    )


async def test_a_message_delta_without_its_delta_or_a_start_without_message_still_reads(
    server: WireServer, provider: AnthropicProvider
) -> None:
    server.enqueue(
        events(
            ("message_start", {"type": "message_start"}),
            text_start(),
            delta({"type": "text_delta", "text": "hi"}),
            BLOCK_STOP,
            ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 4}}),
            STOP,
        )
    )
    response = await final_response(provider, REQUEST, streamed=True)
    assert response.message.content == (TextBlock(text="hi"),)
    assert (response.raw_stop_reason, response.usage) == ("", Usage(output_tokens=4))


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_missing_or_mistyped_usage_counts_read_as_zero(
    server: WireServer, provider: AnthropicProvider, streamed: bool
) -> None:
    body = replies.message(TEXT, usage={"input_tokens": "twelve", "output_tokens": None})
    server.enqueue(Reply(events=replies.stream_events(body)) if streamed else Reply(json_body=body))
    response = await final_response(provider, REQUEST, streamed=streamed)
    # A stream's message_delta leaves output_tokens out: message_start's 1 stands.
    assert response.usage == Usage(output_tokens=1 if streamed else 0)
    body = {k: v for k, v in replies.message(TEXT).items() if k != "usage"}
    server.enqueue(Reply(json_body=body))
    assert (await provider.complete(REQUEST)).usage == Usage()


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_a_negative_usage_count_reads_as_zero_and_never_lowers_the_usage(
    server: WireServer, provider: AnthropicProvider, streamed: bool
) -> None:
    usage = {"input_tokens": -7, "output_tokens": -5, "cache_read_input_tokens": -3}
    body = replies.message(TEXT, usage=usage)
    server.enqueue(Reply(events=replies.stream_events(body)) if streamed else Reply(json_body=body))
    response = await final_response(provider, REQUEST, streamed=streamed)
    assert response.usage == Usage()
