"""Turning a fetched body into text a model can read.

Only textual media types are accepted; HTML becomes Markdown (with scripts, styles
and other non-content elements removed, and inline `data:` images dropped so they
cannot flood the context), by the linear-time converter in `automata.tools._html`.
"""

from __future__ import annotations

import re

from automata.tools._html import convert

__all__ = ["decode_text", "html_to_markdown", "is_html", "is_text_type", "looks_binary"]

_TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-javascript",
        "application/x-ndjson",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/graphql",
        "application/sql",
    }
)
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE
)


def is_text_type(media_type: str) -> bool:
    """Whether a media type (no parameters, lower case) is text a model can read."""
    if media_type.startswith("text/") or media_type in _TEXT_APPLICATION_TYPES:
        return True
    return media_type.startswith("application/") and media_type.endswith(("+json", "+xml"))


def is_html(media_type: str) -> bool:
    return media_type in _HTML_TYPES


def looks_binary(sample: bytes) -> bool:
    """A NUL byte near the start: how text and binary are told apart without a type."""
    return b"\x00" in sample[:4096]


def decode_text(body: bytes, charset: str | None, *, html: bool) -> str:
    """Decode with the declared charset, else an HTML `<meta charset>`, else UTF-8.
    Undecodable bytes become U+FFFD rather than failing the fetch."""
    candidates = [charset]
    if html:
        match = _META_CHARSET.search(body[:2048])
        if match:
            candidates.append(match.group(1).decode("ascii"))
    for name in candidates:
        if not name:
            continue
        try:
            # LookupError: no such codec, or one that is not a text encoding (rot13, hex).
            return body.decode(name, errors="replace")
        except LookupError:
            continue
    return body.decode("utf-8", errors="replace")


def html_to_markdown(html: str, *, deadline: float) -> tuple[str | None, str]:
    """The page's title (if any) and its content as Markdown, in time linear in the page.

    Raises `ConversionTimeout` once `time.monotonic()` passes `deadline`; see
    `automata.tools._html` for the bounds.
    """
    return convert(html, deadline=deadline)
