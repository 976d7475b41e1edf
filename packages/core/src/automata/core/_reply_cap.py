"""A cap on the decoded size of every reply an HTTP client receives, and decoding that
never starves the event loop: the defence against compression bombs from servers that
are not trusted (any OpenAI-compatible third party).

`cap_reply_size(http_client, ...)` adds a response hook to an `httpx2.AsyncClient` (the
HTTP client of the official Anthropic and OpenAI SDKs): the hook takes over undoing
the reply's `Content-Encoding` (`gzip`, `x-gzip`, `deflate`, stacked or not), so the
body is decoded a slice of at most `SLICE` bytes at a time (zlib's `max_length`),
yielding to the event loop between slices, and counts the decoded bytes; past
`max_bytes` it raises `ReplyTooLargeError`. A body in another coding is left to the
client (it is still counted). Both the SDK's own calls and the fast path read through
that client, so the cap holds on both. The approach is `automata.tools`' bounded
decoding (packages/tools/src/automata/tools/_decode.py), without its expansion-ratio
check: a stream of near-identical events compresses further than any page.
"""

from __future__ import annotations

import asyncio
import functools
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Final, TypeVar

from automata.core._errors import ProviderError, ReplyTooLargeError

__all__ = ["DEFAULT_MAX_REPLY_BYTES", "SLICE", "cap_reply_size", "reply_too_large"]

DEFAULT_MAX_REPLY_BYTES: Final = 128 * 1024 * 1024
"""The most bytes a reply's body may decode to (128 MiB): past any model reply or
embeddings batch, far short of what a 1 MB gzip bomb expands to (1 GB)."""
SLICE: Final = 64 * 1024
"""The most decoded bytes one decoding step produces."""

_ZLIB_CODINGS: Final = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16}
_DEFLATE: Final = "deflate"

ClientT = TypeVar("ClientT")


class _Inflater:
    """One content coding undone a slice at a time (concatenated gzip members, and
    raw deflate sent as `deflate`, read as httpx reads them)."""

    def __init__(self, coding: str) -> None:
        self._coding = coding
        self._raw_deflate = False
        self._started = False
        self._zlib = self._new()

    def _new(self) -> Any:
        if self._coding == _DEFLATE:
            return zlib.decompressobj(-zlib.MAX_WBITS if self._raw_deflate else zlib.MAX_WBITS)
        return zlib.decompressobj(_ZLIB_CODINGS[self._coding])

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        pending = chunk
        while pending:
            try:
                piece = self._zlib.decompress(pending, SLICE)
            except zlib.error:
                if self._coding == _DEFLATE and not self._started and not self._raw_deflate:
                    self._raw_deflate = True  # no zlib header: raw deflate
                    self._zlib = self._new()
                    continue
                raise
            self._started = True
            if piece:
                yield piece
            if self._zlib.unconsumed_tail:
                pending = self._zlib.unconsumed_tail
            elif self._zlib.eof and self._zlib.unused_data:
                pending = self._zlib.unused_data  # the next gzip member
                self._zlib = self._new()
            else:
                pending = b""


def _too_large(provider: str, limit: int) -> ReplyTooLargeError:
    prefix = f"{provider}: " if provider else ""
    return ReplyTooLargeError(
        f"{prefix}the reply decodes to more than {limit} bytes (max_reply_bytes); "
        "it was not read further",
        provider=provider,
        limit=limit,
    )


async def _decoded(
    raw: AsyncIterator[bytes], codings: list[str], limit: int, provider: str
) -> AsyncIterator[bytes]:
    """The body of `raw` with `codings` (in the order they were applied) undone,
    refused past `limit` decoded bytes."""
    inflaters = [_Inflater(coding) for coding in reversed(codings)]

    def undo(chunk: bytes, layer: int) -> Iterator[bytes]:
        if layer == len(inflaters):
            yield chunk
            return
        for piece in inflaters[layer].feed(chunk):
            yield from undo(piece, layer + 1)

    total = 0
    async for chunk in raw:
        for piece in undo(chunk, 0):
            total += len(piece)
            if total > limit:
                raise _too_large(provider, limit)
            yield piece
            if inflaters:
                await asyncio.sleep(0)  # let timers (the idle deadline) run between slices


@functools.cache
def _stream_class() -> type[Any]:
    import httpx2  # the SDKs' HTTP client; only a provider built on one calls this

    class CappedStream(httpx2.AsyncByteStream):
        def __init__(self, inner: Any, body: AsyncIterator[bytes]) -> None:
            self._inner = inner
            self._body = body

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for piece in self._body:
                yield piece

        async def aclose(self) -> None:
            await self._inner.aclose()

    return CappedStream


def _hook(limit: int, provider: str) -> Callable[[Any], Awaitable[None]]:
    async def cap(response: Any) -> None:
        headers = response.headers
        codings = [
            c.strip().lower()
            for c in headers.get_list("content-encoding", split_commas=True)
            if c.strip() and c.strip().lower() != "identity"
        ]
        undone = codings if all(c in _ZLIB_CODINGS or c == _DEFLATE for c in codings) else []
        if undone:
            del headers["content-encoding"]
            headers.pop("content-length", None)
        inner = response.stream
        response.stream = _stream_class()(
            inner, _decoded(inner.__aiter__(), undone, limit, provider)
        )

    return cap


def cap_reply_size(
    http_client: ClientT, *, max_bytes: int = DEFAULT_MAX_REPLY_BYTES, provider: str = ""
) -> ClientT:
    """`http_client` (an `httpx2.AsyncClient`), its replies' decoded size capped at
    `max_bytes` and decoded without starving the event loop (see the module
    docstring); a reply past it raises `ReplyTooLargeError` naming `provider`. The
    client itself is returned, changed: pass one built for the purpose (such as the
    SDK's `DefaultAsyncHttpxClient()`) as an SDK client's `http_client`."""
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    client: Any = http_client
    hooks = client.event_hooks
    client.event_hooks = {**hooks, "response": [*hooks["response"], _hook(max_bytes, provider)]}
    return http_client


def reply_too_large(error: BaseException) -> ReplyTooLargeError | None:
    """The `ReplyTooLargeError` behind `error` (an SDK wraps what its HTTP client
    raises, e.g. as a connection error), or None."""
    seen: BaseException | None = error
    for _ in range(8):
        if seen is None:
            return None
        if isinstance(seen, ReplyTooLargeError):
            return seen
        if isinstance(seen, ProviderError) and seen is not error:
            return None
        seen = seen.__cause__ or seen.__context__
    return None
