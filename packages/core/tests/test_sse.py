"""`SSEStream`: the server-sent events of a response body, read as the SDKs read them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest

from automata.core.providers import SKIP, SSEStream


class Body:
    """A response whose body arrives in the given chunks."""

    def __init__(self, chunks: Sequence[bytes]) -> None:
        self.chunks = chunks
        self.closed = False

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk

    async def aclose(self) -> None:
        self.closed = True


def pair(event: str | None, data: str) -> tuple[str | None, str]:
    return (event, data)


async def events(chunks: Sequence[bytes]) -> list[tuple[str | None, str]]:
    return [item async for item in SSEStream(Body(chunks), pair)]


def bytewise(body: bytes) -> list[bytes]:
    return [body[i : i + 1] for i in range(len(body))]


BODY = (
    b'event: message_start\ndata: {"a": 1}\n\n'
    b": a comment\n\n"
    b"data: [DONE]\n\n"
    b"event: multi\ndata: one\ndata:two\nid: 7\nretry: 10\n\n"
)
EXPECTED = [("message_start", '{"a": 1}'), (None, "[DONE]"), ("multi", "one\ntwo")]


async def test_named_events_unnamed_data_and_multi_line_data_are_read() -> None:
    assert await events([BODY]) == EXPECTED


async def test_events_split_anywhere_across_chunks_read_the_same() -> None:
    assert await events(bytewise(BODY)) == EXPECTED


@pytest.mark.parametrize("ending", [b"\r\n", b"\r"], ids=["crlf", "cr"])
async def test_crlf_and_cr_line_endings_read_like_lf(ending: bytes) -> None:
    body = BODY.replace(b"\n", ending)
    assert await events([body]) == EXPECTED
    assert await events(bytewise(body)) == EXPECTED


async def test_one_space_after_the_colon_is_dropped_and_further_ones_kept() -> None:
    assert await events([b"data:  two spaces\n\n"]) == [(None, " two spaces")]


async def test_an_event_with_neither_name_nor_data_is_not_an_event() -> None:
    assert await events([b"id: 3\n\n: ping\n\n\n\n"]) == []


async def test_an_event_the_body_ends_inside_is_dropped() -> None:
    assert await events([b"data: whole\n\ndata: cut off\n"]) == [(None, "whole")]


async def test_what_decode_skips_is_not_handed_on_and_what_it_raises_propagates() -> None:
    def decode(event: str | None, data: str) -> object:
        if data == "skip":
            return SKIP
        if data == "bad":
            raise ValueError("bad event")
        return data

    stream = SSEStream(Body([b"data: skip\n\ndata: kept\n\ndata: bad\n\n"]), decode)
    assert await stream.__anext__() == "kept"
    with pytest.raises(ValueError, match="bad event"):
        await stream.__anext__()


async def test_utf8_split_across_chunks_is_decoded_and_invalid_utf8_raises() -> None:
    body = "data: snø\n\n".encode()
    assert await events(bytewise(body)) == [(None, "snø")]
    with pytest.raises(UnicodeDecodeError):
        await events([b"data: \xff\n\n"])


async def test_close_releases_the_response() -> None:
    body = Body([b"data: x\n\n"])
    stream = SSEStream(body, pair)
    await stream.__anext__()
    await stream.close()
    assert body.closed


async def test_buffered_hands_on_what_was_already_read_and_skip_when_nothing_is() -> None:
    stream = SSEStream(Body([b"data: one\n\ndata: two\n\n", b"data: three\n\n"]), pair)
    assert stream.buffered() is SKIP
    assert await stream.__anext__() == (None, "one")
    assert stream.buffered() == (None, "two")
    assert stream.buffered() is SKIP
    assert await stream.__anext__() == (None, "three")
