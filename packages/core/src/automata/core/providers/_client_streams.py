"""A streamed reply read in the framing its SDK client reads it in.

Most clients of the Stainless-built SDKs (Anthropic's, OpenAI's) receive streams as
server-sent events, which `SSEStream` reads straight from the bytes. A client class
that receives another framing says so through its own decoder: the SDK's streams
read every body through `client._make_sse_decoder()` (Amazon Bedrock's client returns
a decoder of AWS event-stream frames there). `client_event_stream` asks the client
for that decoder and reads with `SSEStream` only when it is the SDK's plain
server-sent-events decoder (the same events, for less CPU); any other decoder reads
the body itself, into the same `(event, data)` pairs for the provider's `decode`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from automata.core.providers._sdk_protocols import SDKStream
from automata.core.providers._sse import SKIP, RawStreamResponse, SSEStream

__all__ = ["ClientEventStream", "EventDecoder", "client_event_stream"]


class DecodedEvent(Protocol):
    """One event as an SDK decoder yields it (the SDKs' `ServerSentEvent`)."""

    @property
    def event(self) -> str | None: ...

    @property
    def data(self) -> str: ...


class EventDecoder(Protocol):
    """What an SDK client's `_make_sse_decoder()` returns: the events of a body."""

    def aiter_bytes(self, iterator: AsyncIterator[bytes], /) -> AsyncIterator[Any]: ...


class ClientEventStream:
    """The events `decoder` reads from `response`'s body, each passed through
    `decode(event, data)` as `SSEStream` passes them (an item to hand on, or `SKIP`;
    what it raises propagates from `__anext__`). An `SDKStream`: `__anext__` raises
    `StopAsyncIteration` at the end of the body, `close()` releases the response."""

    __slots__ = ("_decode", "_events", "response")

    def __init__(
        self,
        response: RawStreamResponse,
        decoder: EventDecoder,
        decode: Callable[[str | None, str], Any],
    ) -> None:
        self.response = response
        self._events = decoder.aiter_bytes(response.aiter_bytes())
        self._decode = decode

    def __aiter__(self) -> ClientEventStream:
        return self

    async def __anext__(self) -> Any:
        decode = self._decode
        while True:
            decoded: DecodedEvent = await self._events.__anext__()
            item = decode(decoded.event, decoded.data)
            if item is not SKIP:
                return item

    async def close(self) -> None:
        """Release the response (the decoder's reading of it first)."""
        events: Any = self._events
        try:
            if hasattr(events, "aclose"):
                await events.aclose()
        finally:
            await self.response.aclose()


def client_event_stream(
    client: Any,
    response: RawStreamResponse,
    decode: Callable[[str | None, str], Any],
    *,
    sse_decoder: type,
    provider: str = "",
) -> SDKStream:
    """The stream of `response` as `client` frames its streams: an `SSEStream` when
    the client's `_make_sse_decoder()` is of class `sse_decoder` (the SDK's plain
    server-sent-events decoder), else a `ClientEventStream` over the client's own
    decoder. A client without the hook reads as server-sent events. `provider` names
    the vendor in `SSEStream`'s errors (an event over its size bound)."""
    make_decoder = getattr(client, "_make_sse_decoder", None)
    decoder = make_decoder() if callable(make_decoder) else None
    if decoder is None or type(decoder) is sse_decoder:
        return SSEStream(response, decode, provider=provider)
    return ClientEventStream(response, decoder, decode)
