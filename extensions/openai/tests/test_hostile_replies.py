"""Replies an untrusted OpenAI-compatible server can send that must be refused at the
call, with a typed error, on both paths (the fast path and the SDK's)."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import Reply, Responder, WireServer, ask, final_response, sse_data

from automata.core import Message, ProviderError, TextBlock, dump_messages
from automata.core.providers import RetryPolicy

from . import replies
from .conftest import ProviderMaker


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def with_vendor_field(value: dict[str, Any]) -> Responder:
    """A reply whose message (or, streamed, whose first delta) carries `extra_content`."""
    body = replies.completion("Hi.", extra={"extra_content": value})

    def respond(request: dict[str, Any]) -> Reply:
        if not request.get("stream"):
            return Reply(json_body=body)
        events = replies.stream_events(replies.completion("Hi."), include_usage=False)
        chunk = {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-test",
            "choices": [{"index": 0, "delta": {"extra_content": value}, "finish_reason": None}],
        }
        return Reply(events=[events[0], sse_data(chunk), *events[1:]])

    return respond


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_a_vendor_field_nested_900_deep_is_refused_at_the_call(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    server.always(with_vendor_field(nested(900)))
    with pytest.raises(ProviderError, match=r"^openai: malformed reply: ") as caught:
        await final_response(make_provider(), ask(Message.user("Hi")), streamed=streamed)
    assert not caught.value.retryable


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_a_vendor_field_a_transcript_can_hold_is_kept(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    server.always(with_vendor_field(nested(20)))
    reply = await final_response(make_provider(), ask(Message.user("Hi")), streamed=streamed)
    first = reply.message.content[0]
    assert isinstance(first, TextBlock)
    assert first.extra == {"openai": {"message": {"extra_content": nested(20)}}}
    dump_messages([reply.message])


@pytest.mark.parametrize("hint", ["nan", "inf", "-inf"])
async def test_a_retry_after_that_is_not_a_number_of_seconds_is_no_hint(
    server: WireServer, make_provider: ProviderMaker, hint: str
) -> None:
    server.always(replies.error(429, "rate_limit", "slow down", headers={"retry-after": hint}))
    provider = make_provider(retry_policy=RetryPolicy.never())
    with pytest.raises(ProviderError) as caught:
        await final_response(provider, ask(Message.user("Hi")), streamed=False)
    assert caught.value.status == 429
    assert caught.value.retry_after is None
