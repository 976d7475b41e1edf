"""Bounded decoding of a `Content-Encoding`: the defence against compression bombs.

The decoding itself is `automata.core.providers.ContentDecoder` (the providers' reply
cap reads with it too): wire bytes become body bytes in slices of at most `SLICE`
bytes, so one network chunk never becomes more than one slice of memory at a time, and
the caller can stop, or yield to its event loop, between slices. What http_fetch adds:
it refuses, before decoding anything, a body with more than one content coding
(`gzip, gzip, gzip` multiplies the expansion), and, while decoding, a body that grows
more than `MAX_EXPANSION` times its wire size once it passes `EXPANSION_FLOOR` bytes:
no ordinary page does that, a bomb always does.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Final

from automata.core.providers import ContentDecoder
from automata.tools._errors import Refused, ToolError

__all__ = ["EXPANSION_FLOOR", "MAX_EXPANSION", "SLICE", "BodyDecoder", "parse_codings"]

SLICE: Final = ContentDecoder.SLICE
"""The most body bytes one decoding step produces."""
MAX_EXPANSION = 100
"""Decoded bytes allowed per wire byte, once the body is past `EXPANSION_FLOOR`."""
EXPANSION_FLOOR = 1_000_000
"""Decoded size under which any expansion is accepted (small repetitive pages)."""

_CANONICAL = {"x-gzip": "gzip"}


def parse_codings(header_values: list[str], url: str) -> str | None:
    """The one coding to undo (`"gzip"`, `"deflate"`) or None; refuses stacked codings.

    `header_values` are the response's `Content-Encoding` values, comma-split.
    """
    names = ContentDecoder.codings_of(header_values)
    if len(names) > 1:
        raise Refused(
            f"{url} has {len(names)} content codings ({', '.join(names)}); "
            "http_fetch decodes at most one"
        )
    if not names:
        return None
    if names[0] not in ContentDecoder.CODINGS:
        raise ToolError(
            f"{url} uses the content coding {names[0]!r}, which http_fetch cannot decode"
        )
    return _CANONICAL.get(names[0], names[0])


class BodyDecoder:
    """Undo one content coding, a slice at a time, refusing bombs as they appear."""

    def __init__(self, coding: str | None, url: str) -> None:
        self._coding = coding
        self._url = url
        self._decoder = ContentDecoder(() if coding is None else (coding,), check=self._check)

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        """The body bytes in `chunk`, as slices of at most `SLICE` bytes each."""
        try:
            yield from self._decoder.feed(chunk)
        except zlib.error:
            raise ToolError(f"{self._url} has a corrupt {self._coding} body") from None

    def _check(self, decoded: int, consumed: int) -> None:
        if decoded > EXPANSION_FLOOR and decoded > consumed * MAX_EXPANSION:
            raise Refused(
                f"{self._url} grows more than {MAX_EXPANSION}-fold when decoded "
                "(a compression bomb); http_fetch stopped reading it"
            )

    def finish(self) -> None:
        """Refuse a body that ended in the middle of its compressed stream."""
        if not self._decoder.complete:
            raise ToolError(f"{self._url} has a truncated {self._coding} body")
