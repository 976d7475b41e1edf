"""A cap on the decoded size of every reply an HTTP client receives, and decoding that
never starves the event loop: the defence against compression bombs from servers that
are not trusted (any OpenAI-compatible third party).

`cap_reply_size(http_client, ...)` adds a response hook to an `httpx2.AsyncClient` (the
HTTP client of the official Anthropic and OpenAI SDKs): the hook takes over undoing
the reply's `Content-Encoding` (`gzip`, `x-gzip`, `deflate`, stacked or not), so the
body is decoded by `ContentDecoder` (automata.core.providers._content_coding), a slice of at
most `SLICE` bytes at a time, yielding to the event loop between slices, and counts
the decoded bytes; past `max_bytes` it raises `ReplyTooLargeError`. A body in another
coding is left to the client (it is still counted). Both the SDK's own calls and the
fast path read through that client, so the cap holds on both. `automata.tools`'
`http_fetch` decodes with the same decoder and adds an expansion-ratio check, which a
reply does without: a stream of near-identical events compresses further than any page.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

from automata.core._errors import ProviderError, ReplyTooLargeError
from automata.core.providers._content_coding import ContentDecoder

__all__ = ["DEFAULT_MAX_REPLY_BYTES", "SLICE", "cap_reply_size", "reply_too_large"]

DEFAULT_MAX_REPLY_BYTES: Final = 128 * 1024 * 1024
"""The most bytes a reply's body may decode to (128 MiB): past any model reply or
embeddings batch, far short of what a 1 MB gzip bomb expands to (1 GB)."""
SLICE: Final = ContentDecoder.SLICE
"""The most decoded bytes one decoding step produces."""

ClientT = TypeVar("ClientT")


def _too_large(provider: str, limit: int) -> ReplyTooLargeError:
    prefix = f"{provider}: " if provider else ""
    return ReplyTooLargeError(
        f"{prefix}the reply decodes to more than {limit} bytes (max_reply_bytes); "
        "it was not read further",
        provider=provider,
        limit=limit,
    )


async def _decoded(
    raw: AsyncIterator[bytes], codings: Sequence[str], limit: int, provider: str
) -> AsyncIterator[bytes]:
    """The body of `raw` with `codings` (in the order they were applied) undone,
    refused past `limit` decoded bytes."""

    def refuse_past_limit(decoded: int, _consumed: int) -> None:
        if decoded > limit:
            raise _too_large(provider, limit)

    decoder = ContentDecoder(codings, check=refuse_past_limit)
    async for chunk in raw:
        for piece in decoder.feed(chunk):
            yield piece
            if decoder.decodes:
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
        codings = ContentDecoder.codings_of(headers.get_list("content-encoding", split_commas=True))
        undone = codings if ContentDecoder.CODINGS.issuperset(codings) else ()
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
