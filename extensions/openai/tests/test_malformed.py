"""Malformed replies raise `ProviderError` saying what was wrong, in JSON and in streams:
never a bare KeyError, AttributeError, TypeError, ValueError or pydantic error."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer, final_response, sse_data

from automata.core import Message, ModelRequest, ProviderError, RetryPolicy

from . import replies
from .conftest import ProviderMaker
from .recordings import load

REQUEST = ModelRequest(messages=(Message.user("hi"),))


async def error_of(provider: Any, *, streamed: bool) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await final_response(provider, REQUEST, streamed=streamed)
    return caught.value


def with_choice(**fields: Any) -> dict[str, Any]:
    body = replies.completion("hi")
    body["choices"][0].update(fields)
    return body


def with_message(**fields: Any) -> dict[str, Any]:
    body = replies.completion("hi")
    body["choices"][0]["message"].update(fields)
    return body


def without_choices() -> dict[str, Any]:
    body = replies.completion("hi")
    del body["choices"]
    return body


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (without_choices(), "openai: malformed reply: no choices"),
        ({**replies.completion("hi"), "choices": []}, "openai: malformed reply: no choices"),
        (
            {**replies.completion("hi"), "choices": "all"},
            "openai: malformed reply: choices is not a list: 'all'",
        ),
        (
            with_choice(message="hi"),
            "openai: malformed reply: the first choice has no message object: 'hi'",
        ),
        (
            with_choice(message=None),
            "openai: malformed reply: the first choice has no message object: None",
        ),
        (
            with_message(content=5),
            "openai: malformed reply: content is neither text nor a list of parts: 5",
        ),
        (
            with_message(content=[{"type": "audio"}]),
            "openai: malformed reply: unknown content part type 'audio'",
        ),
        (
            with_message(tool_calls="weather"),
            "openai: malformed reply: tool_calls is not a list: 'weather'",
        ),
        (
            with_message(tool_calls=["weather"]),
            "openai: malformed reply: a tool call is not an object: 'weather'",
        ),
        (
            with_message(tool_calls=[replies.tool_call("c1", 7, "{}")]),  # type: ignore[arg-type]
            "openai: malformed reply: a tool call's name is not text: 7",
        ),
        (with_message(refusal=["no"]), "openai: malformed reply: refusal is not text: ['no']"),
        (with_choice(finish_reason=3), "openai: malformed reply: finish_reason is not text: 3"),
    ],
)
async def test_a_malformed_completion_is_a_provider_error_saying_what_is_wrong(
    server: WireServer, make_provider: ProviderMaker, body: dict[str, Any], message: str
) -> None:
    server.enqueue(Reply(json_body=body))
    error = await error_of(make_provider(), streamed=False)
    assert (str(error), error.retryable) == (message, False)


async def test_usage_of_the_wrong_shape_is_left_out(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(Reply(json_body={**replies.completion("hi"), "usage": "lots"}))
    response = await make_provider().complete(REQUEST)
    assert (response.message.text, response.usage) == ("hi", None)


async def test_a_200_text_plain_body_is_a_provider_error_quoting_it(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    (recorded,) = load("compatible_text_plain_200.yaml")
    server.enqueue(recorded.reply)
    error = await error_of(make_provider(), streamed=False)
    assert str(error) == (
        "openai: the reply is not a chat completion: "
        "'method=POST pathname=/bin/chat/completions Content-Type=text/plain'"
    )
    assert not error.retryable


async def test_a_200_text_plain_body_to_a_stream_request_is_a_stream_that_ended_early(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    (recorded,) = load("compatible_text_plain_200.yaml")
    server.enqueue(recorded.reply)
    provider = make_provider(retry_policy=RetryPolicy.never())
    error = await error_of(provider, streamed=True)
    assert str(error) == "openai: stream ended before a finish reason"


def chunk(**fields: Any) -> bytes:
    return sse_data({"id": "c", "object": "chat.completion.chunk", "model": "m", **fields})


def choice(delta: Any, finish: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "finish_reason": finish}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (sse_data([1]), "openai: malformed reply: a chunk is not a chat completion chunk: [1]"),
        (chunk(choices="x"), "openai: malformed reply: a chunk's choices is not a list: 'x'"),
        (chunk(choices=[7]), "openai: malformed reply: a chunk's choice is not an object: 7"),
        (
            chunk(choices=[choice("hi")]),
            "openai: malformed reply: a chunk's delta is not an object: 'hi'",
        ),
        (
            chunk(choices=[choice({"content": 5})]),
            "openai: malformed reply: content is neither text nor a list of parts: 5",
        ),
        (
            chunk(choices=[choice({"tool_calls": "x"})]),
            "openai: malformed reply: tool_calls is not a list: 'x'",
        ),
        (
            chunk(
                choices=[choice({"tool_calls": [{"index": "first", "function": {"name": "w"}}]})]
            ),
            "openai: malformed reply: a tool call fragment's index is not a number: 'first'",
        ),
        (
            chunk(choices=[choice({"tool_calls": [3]})]),
            "openai: malformed reply: a tool call fragment is not an object: 3",
        ),
        (
            chunk(choices=[choice({}, finish=["stop"])]),  # type: ignore[arg-type]
            "openai: malformed reply: finish_reason is not text: ['stop']",
        ),
    ],
)
@pytest.mark.parametrize("after_content", [False, True])
async def test_a_malformed_chunk_is_a_provider_error_saying_what_is_wrong(
    server: WireServer,
    make_provider: ProviderMaker,
    bad: bytes,
    message: str,
    after_content: bool,
) -> None:
    first = [chunk(choices=[choice({"content": "Hel"})])] if after_content else []
    server.enqueue(Reply(events=[*first, bad, b"data: [DONE]\n\n"]))
    error = await error_of(make_provider(), streamed=True)
    assert (str(error), error.retryable) == (message, False)
    assert len(server.received) == 1
