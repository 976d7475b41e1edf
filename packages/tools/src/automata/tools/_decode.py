"""Bounded decoding of a `Content-Encoding`: the defence against compression bombs.

`BodyDecoder` turns wire bytes into body bytes in slices of at most `SLICE` bytes
(`zlib`'s `max_length`), so one network chunk never becomes more than one slice of
memory at a time, and the caller can stop, or yield to its event loop, between
slices. It refuses, before decoding anything, a body with more than one content
coding (`gzip, gzip, gzip` multiplies the expansion), and, while decoding, a body
that grows more than `MAX_EXPANSION` times its wire size once it passes
`EXPANSION_FLOOR` bytes: no ordinary page does that, a bomb always does.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from automata.tools._errors import Refused, ToolError

__all__ = ["EXPANSION_FLOOR", "MAX_EXPANSION", "SLICE", "BodyDecoder", "parse_codings"]

SLICE = 64 * 1024
"""The most body bytes one decoding step produces."""
MAX_EXPANSION = 100
"""Decoded bytes allowed per wire byte, once the body is past `EXPANSION_FLOOR`."""
EXPANSION_FLOOR = 1_000_000
"""Decoded size under which any expansion is accepted (small repetitive pages)."""

_CODINGS = {"gzip": "gzip", "x-gzip": "gzip", "deflate": "deflate"}


def parse_codings(header_values: list[str], url: str) -> str | None:
    """The one coding to undo (`"gzip"`, `"deflate"`) or None; refuses stacked codings.

    `header_values` are the response's `Content-Encoding` values, comma-split.
    """
    names = [value.strip().lower() for value in header_values]
    names = [name for name in names if name and name != "identity"]
    if len(names) > 1:
        raise Refused(
            f"{url} has {len(names)} content codings ({', '.join(names)}); "
            "http_fetch decodes at most one"
        )
    if not names:
        return None
    coding = _CODINGS.get(names[0])
    if coding is None:
        raise ToolError(
            f"{url} uses the content coding {names[0]!r}, which http_fetch cannot decode"
        )
    return coding


class BodyDecoder:
    """Undo one content coding, a slice at a time, refusing bombs as they appear."""

    def __init__(self, coding: str | None, url: str) -> None:
        self._coding = coding
        self._url = url
        self._wire = 0
        self._decoded = 0
        self._raw_deflate = False
        self._inflater = self._new_inflater()

    def _new_inflater(self) -> zlib._Decompress | None:
        if self._coding == "gzip":
            return zlib.decompressobj(zlib.MAX_WBITS | 16)
        if self._coding == "deflate":
            return zlib.decompressobj(-zlib.MAX_WBITS if self._raw_deflate else zlib.MAX_WBITS)
        return None

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        """The body bytes in `chunk`, as slices of at most `SLICE` bytes each."""
        if self._inflater is None:
            for start in range(0, len(chunk), SLICE):
                yield chunk[start : start + SLICE]
            return
        pending = chunk
        first = self._wire == 0
        self._wire += len(chunk)
        while pending:
            inflater = self._inflater
            assert inflater is not None
            try:
                piece = inflater.decompress(pending, SLICE)
            except zlib.error:
                if first and self._coding == "deflate" and not self._raw_deflate:
                    # Many servers send raw deflate (no zlib header) under "deflate".
                    self._raw_deflate = True
                    self._inflater = self._new_inflater()
                    first = False
                    continue
                raise ToolError(f"{self._url} has a corrupt {self._coding} body") from None
            first = False
            self._check(len(piece), len(inflater.unconsumed_tail))
            if piece:
                yield piece
            if inflater.unconsumed_tail:
                pending = inflater.unconsumed_tail
            elif inflater.eof and inflater.unused_data:
                # Concatenated gzip members are one body, decoded in turn.
                pending = inflater.unused_data
                self._inflater = self._new_inflater()
            else:
                pending = b""

    def _check(self, produced: int, unread: int) -> None:
        self._decoded += produced
        consumed = max(self._wire - unread, 1)
        if self._decoded > EXPANSION_FLOOR and self._decoded > consumed * MAX_EXPANSION:
            raise Refused(
                f"{self._url} grows more than {MAX_EXPANSION}-fold when decoded "
                "(a compression bomb); http_fetch stopped reading it"
            )

    def finish(self) -> None:
        """Refuse a body that ended in the middle of its compressed stream."""
        inflater = self._inflater
        if inflater is not None and self._wire and not inflater.eof:
            raise ToolError(f"{self._url} has a truncated {self._coding} body")
