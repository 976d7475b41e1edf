"""`SSEStream`: the server-sent events of a response body, read as the SDKs read them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest

from automata.core.providers import SKIP, ReplyTooLargeError, SSEStream


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


async def test_blank_lines_and_comments_alone_are_not_events() -> None:
    assert await events([b": ping\n\n\n\n: keepalive\n\n"]) == []


async def test_a_retry_or_an_id_makes_an_event_of_empty_data_as_in_the_sdks() -> None:
    # The SDKs' decoders dispatch these (the vendor's stream then skips or refuses
    # them); the last event id is kept, so every later blank line dispatches too.
    assert await events([b"retry: 10\n\nretry: x\n\n"]) == [(None, "")]
    assert await events([b"id: 3\n\n: ping\n\n"]) == [(None, ""), (None, "")]


async def test_an_empty_event_name_is_no_name() -> None:
    assert await events([b"event:\ndata: x\n\nevent: \ndata: y\n\n"]) == [
        (None, "x"),
        (None, "y"),
    ]


async def test_invalid_utf8_anywhere_raises_after_the_events_before_it() -> None:
    for line in (b": \xff comment", b"id: \xff", b"unknown: \xff", b"event: \xff"):
        stream = SSEStream(Body([b"data: first\n\n" + line + b"\ndata: x\n\n"]), pair)
        assert await stream.__anext__() == (None, "first")
        with pytest.raises(UnicodeDecodeError):
            await stream.__anext__()


async def test_invalid_utf8_in_a_last_line_without_a_line_end_raises_at_the_end() -> None:
    with pytest.raises(UnicodeDecodeError):
        await events([b"data: whole\n\n: \xff"])


async def test_an_event_past_max_event_bytes_is_refused_before_it_is_read_whole() -> None:
    one_line = [b"data: " + b"x" * 100] * 1000  # one 100 kB line, never ended
    stream = SSEStream(Body([b"data: small\n\n", *one_line]), pair, max_event_bytes=1000)
    assert await stream.__anext__() == (None, "small")
    with pytest.raises(ReplyTooLargeError) as caught:
        await stream.__anext__()
    assert caught.value.limit == 1000
    assert not caught.value.retryable
    many_lines = b"data: " + b"y" * 94 + b"\n"  # 101 bytes a line
    body = Body([b"event: big\n", many_lines * 9, b"\n", many_lines * 10, b"\n"])
    stream = SSEStream(body, pair, max_event_bytes=1000, provider="acme")
    assert (await stream.__anext__())[0] == "big"  # 9 lines: within the limit
    with pytest.raises(ReplyTooLargeError, match=r"^acme: a server-sent event is larger"):
        await stream.__anext__()


async def test_an_event_of_multibyte_text_is_measured_in_bytes() -> None:
    body = Body([("data: " + "ø" * 400 + "\n\n").encode()])  # 806 bytes, 406 characters
    with pytest.raises(ReplyTooLargeError):
        await SSEStream(body, pair, max_event_bytes=500).__anext__()


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
