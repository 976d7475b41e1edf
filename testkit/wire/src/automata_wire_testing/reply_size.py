"""The cap on a reply's decoded size (`max_reply_bytes`) every SDK provider keeps for
the client it builds, written once as tests.

Subclass `ReplySizeSuite` in a test module as `Test<Vendor>ReplySize`, give it the
vendor's name and the JSON body of a reply whose text is `Snow.` with its SSE events,
and provide the `make_provider` fixture (`Providers` of the vendor's provider on the
local server) beside `server` from `automata_wire_testing.fixtures`. A gzip body that
decodes past the cap is refused with `ReplyTooLargeError` (streamed and not), one
within it reads as if it were uncompressed, and `max_reply_bytes=None` lifts the cap.
"""

from __future__ import annotations

import gzip
import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import pytest

from automata.core import Message, ReplyTooLargeError
from automata.core.providers import SDKProvider
from automata_wire_testing._calls import ask, final_response
from automata_wire_testing._server import Reply, WireServer
from automata_wire_testing.fixtures import Providers

__all__ = ["ReplySizeSuite"]

_LIMIT = 1_000_000  # the max_reply_bytes the tests set
_BOMB = 32 * _LIMIT  # decoded bytes; about 32 kB on the wire
_TEXT = "Snow."

_AnyProviders = Providers[SDKProvider[Any]]


def _gzipped(body: bytes) -> bytes:
    return gzip.compress(body, 9)


def _gzip_json_reply(body: bytes) -> Reply:
    """`body` sent as JSON with `Content-Encoding: gzip`."""
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    return Reply(body=_gzipped(body), headers=headers)


def _gzip_sse_reply(events: list[bytes]) -> Reply:
    """`events` sent as one gzip-encoded event stream."""
    return Reply(events=[_gzipped(b"".join(events))], headers={"content-encoding": "gzip"})


class ReplySizeSuite(ABC):
    """The decoded-size cap on both paths; a vendor fills in its reply shapes."""

    provider_name: ClassVar[str]

    @abstractmethod
    def answer(self) -> dict[str, Any]:
        """The JSON body of a whole reply whose text is `Snow.`."""

    @abstractmethod
    def stream_events(self, body: dict[str, Any]) -> list[bytes]:
        """The SSE events of a streamed reply of `body`."""

    @pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
    async def test_a_gzip_reply_that_decodes_past_the_cap_is_refused(
        self, server: WireServer, make_provider: _AnyProviders, streamed: bool
    ) -> None:
        if streamed:
            server.always(_gzip_sse_reply([b": keepalive\n\n" * (_BOMB // 13)]))
        else:
            server.always(_gzip_json_reply(b" " * _BOMB + b"{}"))
        provider = make_provider(max_reply_bytes=_LIMIT)
        with pytest.raises(ReplyTooLargeError) as caught:
            await final_response(provider, ask(Message.user("Hi")), streamed=streamed)
        assert str(caught.value) == (
            f"{self.provider_name}: the reply decodes to more than {_LIMIT} bytes "
            "(max_reply_bytes); it was not read further"
        )
        assert caught.value.limit == _LIMIT
        assert not caught.value.retryable

    @pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
    async def test_a_gzip_reply_within_the_cap_reads_as_an_uncompressed_one(
        self, server: WireServer, make_provider: _AnyProviders, streamed: bool
    ) -> None:
        if streamed:
            server.always(_gzip_sse_reply(self.stream_events(self.answer())))
        else:
            server.always(_gzip_json_reply(json.dumps(self.answer()).encode()))
        provider = make_provider(max_reply_bytes=_LIMIT)
        reply = await final_response(provider, ask(Message.user("Hi")), streamed=streamed)
        assert reply.message.text == _TEXT

    async def test_a_reply_past_the_cap_is_read_whole_when_max_reply_bytes_is_none(
        self, server: WireServer, make_provider: _AnyProviders
    ) -> None:
        server.always(_gzip_json_reply(b" " * (2 * _LIMIT) + json.dumps(self.answer()).encode()))
        provider = make_provider(max_reply_bytes=None)
        reply = await final_response(provider, ask(Message.user("Hi")), streamed=False)
        assert reply.message.text == _TEXT
