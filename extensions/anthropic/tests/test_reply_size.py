"""A reply's decoded size is capped (`max_reply_bytes`) on both paths, for the client
the provider builds: an proxy in front of the API is not necessarily trusted, and a small
gzip body can expand a thousandfold."""

from __future__ import annotations

import gzip
import json

import pytest
from automata_wire_testing import Reply, WireServer, ask, final_response

from automata.core import Message, ReplyTooLargeError

from . import replies
from .conftest import ProviderMaker

ANSWER = replies.message([{"type": "text", "text": "Snow."}])
LIMIT = 1_000_000
BOMB = 32 * LIMIT  # decoded bytes; about 32 kB on the wire


def gzipped(body: bytes) -> bytes:
    return gzip.compress(body, 9)


def json_reply(body: bytes) -> Reply:
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    return Reply(body=gzipped(body), headers=headers)


def sse_reply(events: list[bytes]) -> Reply:
    return Reply(events=[gzipped(b"".join(events))], headers={"content-encoding": "gzip"})


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_a_gzip_reply_that_decodes_past_the_cap_is_refused(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    if streamed:
        server.always(sse_reply([b": keepalive\n\n" * (BOMB // 13)]))
    else:
        server.always(json_reply(b" " * BOMB + b"{}"))
    provider = make_provider(max_reply_bytes=LIMIT)
    with pytest.raises(ReplyTooLargeError) as caught:
        await final_response(provider, ask(Message.user("Hi")), streamed=streamed)
    assert str(caught.value) == (
        f"anthropic: the reply decodes to more than {LIMIT} bytes (max_reply_bytes); "
        "it was not read further"
    )
    assert caught.value.limit == LIMIT
    assert not caught.value.retryable


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_a_gzip_reply_within_the_cap_reads_as_an_uncompressed_one(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    if streamed:
        server.always(sse_reply(replies.stream_events(ANSWER)))
    else:
        server.always(json_reply(json.dumps(ANSWER).encode()))
    provider = make_provider(max_reply_bytes=LIMIT)
    reply = await final_response(provider, ask(Message.user("Hi")), streamed=streamed)
    assert reply.message.text == "Snow."


async def test_a_reply_past_the_cap_is_read_whole_when_max_reply_bytes_is_none(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.always(json_reply(b" " * (2 * LIMIT) + json.dumps(ANSWER).encode()))
    provider = make_provider(max_reply_bytes=None)
    reply = await final_response(provider, ask(Message.user("Hi")), streamed=False)
    assert reply.message.text == "Snow."
