"""Server-sent events read straight from an HTTP response's bytes, for providers that
skip their SDK's stream objects (see `automata.core.providers.SSEStream`)."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final, Protocol

__all__ = ["SKIP", "RawStreamResponse", "SSEStream"]


class _Skip:
    __slots__ = ()

    def __repr__(self) -> str:
        return "SKIP"


SKIP: Final = _Skip()
"""What an `SSEStream`'s `decode` returns for an event that carries nothing to hand on
(a ping, a comment-only event, anything after the end marker)."""


class RawStreamResponse(Protocol):
    """What `SSEStream` needs of an HTTP response: its body in chunks, and a way to
    release it (an `httpx.Response` opened with `stream=True` has both)."""

    def aiter_bytes(self) -> AsyncIterator[bytes]: ...

    def aclose(self) -> Awaitable[None]: ...


class SSEStream:
    """The events of a `text/event-stream` body, each passed through `decode`.

    It reads the body as the WHATWG event-stream rules (and both official SDKs'
    decoders) do: lines end in `\\n`, `\\r\\n` or `\\r`; a blank line ends an event; a
    line starting with `:` is a comment; `event:` names the event and every `data:`
    line adds one line to its data (one leading space after the colon is dropped);
    other fields (`id`, `retry`, unknown ones) are ignored. An event with neither a
    name nor data is not an event. An event the body ends in the middle of (no blank
    line after it) is dropped, as the SDKs drop it.

    `decode(event, data)` gets each event's name (None when it has none) and its data
    (UTF-8 text), and returns the item to hand on, or `SKIP`; what it raises
    propagates from `__anext__`. Invalid UTF-8 raises `UnicodeDecodeError`. It is an
    `SDKStream`: `__anext__` raises `StopAsyncIteration` at the end of the body, and
    `close()` releases the response; `buffered()` hands on an item already read off
    the connection without awaiting (`SDKProvider` reads those outside its timers).
    """

    __slots__ = ("_buffer", "_chunks", "_decode", "_ready", "response")

    def __init__(
        self, response: RawStreamResponse, decode: Callable[[str | None, str], Any]
    ) -> None:
        self.response = response
        self._chunks = response.aiter_bytes()
        self._decode = decode
        self._ready: deque[tuple[str | None, str]] = deque()
        self._buffer = b""

    def __aiter__(self) -> SSEStream:
        return self

    async def __anext__(self) -> Any:
        ready = self._ready
        decode = self._decode
        while True:
            while ready:
                event, data = ready.popleft()
                item = decode(event, data)
                if item is not SKIP:
                    return item
            try:
                chunk = await self._chunks.__anext__()
            except StopAsyncIteration:
                if not self._buffer.endswith(b"\r"):
                    raise
                chunk = b"\n"  # the body ended on a `\r` held back: it ended a line
            if chunk:
                self._feed(chunk)

    def buffered(self) -> Any:
        """The next item from what was already read off the connection, without
        waiting, or `SKIP` when reading on needs the network (`__anext__`)."""
        ready = self._ready
        decode = self._decode
        while ready:
            event, data = ready.popleft()
            item = decode(event, data)
            if item is not SKIP:
                return item
        return SKIP

    def _feed(self, chunk: bytes) -> None:
        buffer = self._buffer + chunk if self._buffer else chunk
        if b"\r" in buffer:
            # A `\r` at the very end may be the first half of `\r\n`: keep it back.
            held = buffer.endswith(b"\r")
            if held:
                buffer = buffer[:-1]
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            blocks = buffer.split(b"\n\n")
            self._buffer = blocks.pop() + (b"\r" if held else b"")
        else:
            blocks = buffer.split(b"\n\n")
            self._buffer = blocks.pop()
        ready = self._ready
        for block in blocks:
            # One event's lines. The usual shapes (`event: x` then `data: y`, or one
            # `data: y`) are read without splitting the block into lines.
            if block.startswith(b"data: ") and b"\n" not in block:
                ready.append((None, block[6:].decode()))
                continue
            if block.startswith(b"event: "):
                name, _, rest = block.partition(b"\n")
                if rest.startswith(b"data: ") and b"\n" not in rest:
                    ready.append((name[7:].decode(), rest[6:].decode()))
                    continue
            self._lines(block)

    def _lines(self, block: bytes) -> None:
        """One event's lines, read field by field (the general case)."""
        event: bytes | None = None
        data: list[bytes] = []
        for line in block.split(b"\n"):
            name, _, value = line.partition(b":")
            if value[:1] == b" ":
                value = value[1:]
            if name == b"data":
                data.append(value)
            elif name == b"event":
                event = value
            # A comment (empty name), `id`, `retry` or an unknown field: ignored.
        if event is not None or data:
            self._ready.append(
                (None if event is None else event.decode(), b"\n".join(data).decode())
            )

    async def close(self) -> None:
        """Release the response (its connection goes back to the pool when the body
        was read to its end)."""
        chunks: Any = self._chunks
        try:
            if hasattr(chunks, "aclose"):
                await chunks.aclose()
        finally:
            await self.response.aclose()
