"""Server-sent events read straight from an HTTP response's bytes, for providers that
skip their SDK's stream objects (see `automata.core.providers.SSEStream`)."""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final, Protocol

from automata.core._errors import ReplyTooLargeError

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "SKIP", "RawStreamResponse", "SSEStream"]

DEFAULT_MAX_EVENT_BYTES: Final = 64 * 1024 * 1024
"""The most bytes one server-sent event may hold on the fast path (64 MiB): far past
any event a model API sends (a whole Responses `response.completed` included), small
enough that a hostile server cannot make one event take the memory of the process."""


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

    It reads the body exactly as both official SDKs' decoders (`SSEDecoder` in
    `openai._streaming` and `anthropic._streaming`) do, by the WHATWG event-stream
    rules: lines end in `\\n`, `\\r\\n` or `\\r`; every line is UTF-8 (an invalid
    one, a comment's included, raises `UnicodeDecodeError` once the events before it
    were handed on); a line starting with `:` is a comment; `event:` names the event,
    every `data:` line adds one line to its data (one leading space after the colon
    is dropped), `id:` sets the last event id (kept across events) and `retry:` a
    reconnection delay when it is a number; other fields are ignored. A blank line
    ends an event: it is dispatched when it has a name, data, a retry delay or an id
    was ever set (the SDKs dispatch such an event with empty data too). An empty name
    is no name (None). An event the body ends in the middle of (no blank line after
    it) is dropped, as the SDKs drop it.

    Reading is linear in the body's size, however it is split into chunks. One event
    (its lines and the line being read) may hold at most `max_event_bytes` bytes
    (default `DEFAULT_MAX_EVENT_BYTES`); a larger one raises `ReplyTooLargeError`
    (a non-retryable `ProviderError` naming `provider`) as soon as it passes the
    limit, before it is buffered whole.

    `decode(event, data)` gets each event's name (None when it has none) and its data,
    and returns the item to hand on, or `SKIP`; what it raises propagates from
    `__anext__`. It is an `SDKStream`: `__anext__` raises `StopAsyncIteration` at the
    end of the body, and `close()` releases the response; `buffered()` hands on an
    item already read off the connection without awaiting (`SDKProvider` reads those
    outside its timers).
    """

    __slots__ = (
        "_chunks",
        "_data",
        "_decode",
        "_event",
        "_failure",
        "_last_id",
        "_line",
        "_max_event_bytes",
        "_provider",
        "_ready",
        "_retry",
        "_size",
        "_skip_lf",
        "response",
    )

    def __init__(
        self,
        response: RawStreamResponse,
        decode: Callable[[str | None, str], Any],
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        provider: str = "",
    ) -> None:
        if max_event_bytes < 1:
            raise ValueError(f"max_event_bytes must be positive, got {max_event_bytes}")
        self.response = response
        self._chunks = response.aiter_bytes()
        self._decode = decode
        self._max_event_bytes = max_event_bytes
        self._provider = provider
        self._ready: deque[tuple[str | None, str]] = deque()
        self._failure: Exception | None = None  # raised once `_ready` is drained
        self._line = bytearray()  # the line being read (no line end seen yet)
        self._skip_lf = False  # the last chunk ended in `\r`: a leading `\n` is its pair
        self._size = 0  # bytes of the event being read, in lines already read
        self._event: str | None = None
        self._data: list[str] = []
        self._retry: int | None = None
        self._last_id: str | None = None

    def __aiter__(self) -> SSEStream:
        return self

    async def __anext__(self) -> Any:
        item = self.buffered()
        while item is SKIP:
            if self._failure is not None:
                failure, self._failure = self._failure, None
                raise failure
            try:
                chunk = await self._chunks.__anext__()
            except StopAsyncIteration:
                self._finish()
                raise
            if chunk:
                self._feed(chunk)
            item = self.buffered()
        return item

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
        if self._failure is not None:
            return  # the body is already refused; the failure is raised next
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if b"\r" in chunk:
            # A `\r` at the very end may be the first half of `\r\n`.
            self._skip_lf = chunk.endswith(b"\r")
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        try:
            last = chunk.rfind(b"\n")
            if last < 0:
                self._line += chunk
                self._check_size(len(self._line))
                return
            if self._line:
                first = chunk.find(b"\n")
                self._line += chunk[:first]
                lines = bytes(self._line)
                self._line.clear()
                if first < last:
                    lines += chunk[first:last]
            else:
                lines = chunk[:last]
            self._line += chunk[last + 1 :]
            self._read_lines(lines)
            if self._failure is None:
                self._check_size(len(self._line))
        except ReplyTooLargeError as error:
            self._failure = error  # raised once the events before it were handed on

    def _read_lines(self, lines: bytes) -> None:
        """Whole lines (joined by `\\n`, the last one's line end not included)."""
        try:
            text = lines.decode()
        except UnicodeDecodeError as error:
            # Read the lines before the invalid one, then fail as the SDKs fail: with
            # the error of decoding that line alone.
            start = lines.rfind(b"\n", 0, error.start) + 1
            end = lines.find(b"\n", error.start)
            if start:
                self._read_lines(lines[: start - 1])
            try:
                lines[start : end if end >= 0 else len(lines)].decode()
            except UnicodeDecodeError as exact:
                self._failure = exact
            return
        ascii_only = text.isascii()
        limit = self._max_event_bytes
        for line in text.split("\n"):
            if not line:
                self._dispatch()
                continue
            self._size += (len(line) if ascii_only else len(line.encode())) + 1
            if self._size > limit:
                self._check_size(0)
            if line.startswith("data: "):  # the most common line, read without partition
                self._data.append(line[6:])
            elif line[0] != ":":  # a comment is ignored
                self._field(line)

    def _dispatch(self) -> None:
        """A blank line: the event read so far, if it is one, goes to `_ready`."""
        if self._event or self._data or self._last_id or self._retry is not None:
            self._ready.append((self._event or None, "\n".join(self._data)))
            self._event = None
            self._data = []
            self._retry = None
        self._size = 0

    def _field(self, line: str) -> None:
        """One field line, as `SSEDecoder.decode` reads it."""
        name, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry":
            with contextlib.suppress(ValueError):
                self._retry = int(value)
        # any other field is ignored

    def _check_size(self, pending: int) -> None:
        """Refuse the event being read once it (with `pending` bytes of the line being
        read) holds more than `max_event_bytes`."""
        limit = self._max_event_bytes
        if self._size + pending > limit:
            prefix = f"{self._provider}: " if self._provider else ""
            raise ReplyTooLargeError(
                f"{prefix}a server-sent event is larger than {limit} bytes "
                "(max_event_bytes); the stream was not read further",
                provider=self._provider,
                limit=limit,
            )

    def _finish(self) -> None:
        """The body ended: its last line, if it has no line end, is decoded (and may
        raise) but ends no event, as in the SDKs."""
        self._skip_lf = False
        if self._line and self._failure is None:
            line = bytes(self._line)
            self._line.clear()
            line.decode()

    async def close(self) -> None:
        """Release the response (its connection goes back to the pool when the body
        was read to its end)."""
        chunks: Any = self._chunks
        try:
            if hasattr(chunks, "aclose"):
                await chunks.aclose()
        finally:
            await self.response.aclose()
