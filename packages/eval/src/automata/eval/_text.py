"""Text UTF-8 cannot encode, and how reports write it.

A lone surrogate (a code point from U+D800 to U+DFFF, as a `"\\ud800"` escape or a
model's broken output can produce) has no UTF-8 form. Reports never fail on one: each
is written as the six characters of its escape, `\\ud800` (lowercase hex), visible in
every page and comment. Inside a JSON string that is the JSON escape of the same code
point, so a JSON report reads back exactly the text it was given (two surrogates that
form a pair read back as the one character they encode).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["encodable", "visible", "write_visible"]

_ESCAPE = "backslashreplace"


def encodable(text: str) -> bool:
    """Whether `text` can be written as UTF-8 (holds no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def visible(text: str) -> str:
    """`text` with each lone surrogate replaced by its escape (`\\ud800`); text
    without one is returned unchanged."""
    return text.encode("utf-8", _ESCAPE).decode("utf-8")


def write_visible(path: Path, text: str) -> None:
    """Write `text` to `path` as UTF-8, each lone surrogate as its escape: the file is
    always valid UTF-8 and the write never fails for the text's sake."""
    path.write_text(text, encoding="utf-8", errors=_ESCAPE)
