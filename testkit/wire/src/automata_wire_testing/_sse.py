"""Encoding Server-Sent Events the way vendor APIs send them."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["halves", "sse_data", "sse_event"]


def sse_event(kind: str, data: Any) -> bytes:
    """One named event (`event:` and `data:` lines), as the Anthropic API sends."""
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


def sse_data(data: Any) -> bytes:
    """One unnamed event (a `data:` line), as the OpenAI API sends."""
    return f"data: {json.dumps(data)}\n\n".encode()


def halves(text: str) -> list[str]:
    """`text` in two fragments (one when it is a single character, none when empty),
    the way a stream splits a value over two deltas."""
    middle = len(text) // 2
    return [part for part in (text[:middle], text[middle:]) if part]
