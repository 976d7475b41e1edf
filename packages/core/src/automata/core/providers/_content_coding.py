"""Undoing a body's `Content-Encoding` a slice at a time: the one bounded decoder that
both the providers' reply cap (`automata.core.providers._reply_cap`) and `automata.tools`'
`http_fetch` read compressed bodies with.

`ContentDecoder` turns wire bytes into body bytes in slices of at most `SLICE` bytes
(zlib's `max_length`), so one network chunk never becomes more than one slice of
memory at a time and the caller can stop, or yield to its event loop, between slices.
After every slice it calls the caller's `check` with the bytes decoded so far and the
wire bytes consumed to produce them: the caller's rule (a size cap, an expansion
ratio) raises there, before the slice is handed on.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Final

__all__ = ["ContentDecoder"]

_GZIP: Final = zlib.MAX_WBITS | 16
_DEFLATE: Final = "deflate"


class _Inflater:
    """One content coding undone a slice at a time: concatenated gzip members are one
    body, and `deflate` without its zlib header (raw deflate, which many servers
    send) is read as raw deflate."""

    def __init__(self, coding: str, slice_size: int) -> None:
        self._coding = coding
        self._slice = slice_size
        self._raw_deflate = False
        self._started = False
        self._fed = False
        self._zlib = self._new()

    def _new(self) -> zlib._Decompress:
        if self._coding == _DEFLATE:
            return zlib.decompressobj(-zlib.MAX_WBITS if self._raw_deflate else zlib.MAX_WBITS)
        return zlib.decompressobj(_GZIP)

    @property
    def unread(self) -> int:
        """Bytes fed but not yet decoded (held back by the slice limit)."""
        return len(self._zlib.unconsumed_tail)

    @property
    def complete(self) -> bool:
        """Nothing was fed, or the compressed stream ended."""
        return not self._fed or self._zlib.eof

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        pending = chunk
        self._fed = self._fed or bool(chunk)
        while pending:
            try:
                piece = self._zlib.decompress(pending, self._slice)
            except zlib.error:
                if self._coding == _DEFLATE and not self._started and not self._raw_deflate:
                    self._raw_deflate = True
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


class ContentDecoder:
    """The body of a reply sent with `codings` (its `Content-Encoding`s, in the order
    they were applied: see `codings_of`), decoded a slice of at most `SLICE` bytes at a
    time.

    `feed` raises `zlib.error` on a corrupt body, and whatever `check(decoded,
    consumed)` raises: it is called after every slice with the body bytes produced so
    far and the wire bytes consumed to produce them. Without codings the wire bytes are
    the body, handed on in slices all the same. A coding outside `CODINGS` is a
    `ValueError`.
    """

    SLICE: Final = 64 * 1024
    """The most body bytes one decoding step produces."""
    CODINGS: Final = frozenset({"gzip", "x-gzip", _DEFLATE})
    """The content codings this decoder undoes."""

    def __init__(
        self, codings: Sequence[str], *, check: Callable[[int, int], None] | None = None
    ) -> None:
        unknown = [coding for coding in codings if coding not in self.CODINGS]
        if unknown:
            raise ValueError(f"cannot decode the content coding {unknown[0]!r}")
        self._layers = [_Inflater(coding, self.SLICE) for coding in reversed(codings)]
        self._check = check
        self._wire = 0
        self._decoded = 0

    @staticmethod
    def codings_of(header_values: Iterable[str]) -> tuple[str, ...]:
        """The codings named by a reply's `Content-Encoding` values (already split at
        commas), lower-cased, in the order applied; blanks and `identity` dropped."""
        names = (value.strip().lower() for value in header_values)
        return tuple(name for name in names if name and name != "identity")

    @property
    def decodes(self) -> bool:
        """Whether there is a coding to undo (the wire bytes are not the body)."""
        return bool(self._layers)

    @property
    def complete(self) -> bool:
        """Every compressed stream fed so far has ended (False: a truncated body)."""
        return all(layer.complete for layer in self._layers)

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        """The body bytes in `chunk`, as slices of at most `SLICE` bytes each."""
        if not chunk:
            return
        self._wire += len(chunk)
        for piece in self._undo(chunk, 0):
            self._decoded += len(piece)
            if self._check is not None:
                unread = self._layers[0].unread if self._layers else 0
                self._check(self._decoded, max(self._wire - unread, 1))
            yield piece

    def _undo(self, chunk: bytes, layer: int) -> Iterator[bytes]:
        if layer == len(self._layers):
            if len(chunk) <= self.SLICE:
                yield chunk
            else:
                for start in range(0, len(chunk), self.SLICE):
                    yield chunk[start : start + self.SLICE]
            return
        for piece in self._layers[layer].feed(chunk):
            yield from self._undo(piece, layer + 1)
