"""Chat Completions usage, read from its JSON, as core `Usage` (what `_reply.py` and
`_reply_stream.py` report)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from automata.core.providers import Usage
from automata.core.providers.reading import count

__all__ = ["PROVIDER", "USAGE_FIELDS", "usage_extra", "usage_from"]

PROVIDER: Final = "openai"
"""The provider's name, keying what it keeps (`_reply.py` hands it on)."""

USAGE_FIELDS: Final = frozenset(
    {
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "prompt_tokens_details",
        "completion_tokens_details",
    }
)
"""The fields of a Chat Completions `usage` the SDK models; any other (OpenRouter's
`cost`, `cost_details`, `is_byok`) is kept in `Usage.extra["openai"]`."""


def usage_extra(fields: Mapping[str, Any] | None) -> dict[str, Any]:
    """`Usage.extra` for a usage's vendor fields (`{}` when there are none)."""
    return {PROVIDER: dict(fields)} if fields else {}


def usage_from(raw: object) -> Usage | None:
    """Core usage from a `usage` JSON object (None when it is not one):
    `prompt_tokens` includes cached and cache-written tokens, so those are taken out
    of `input_tokens`; the reasoning part of `completion_tokens` is
    `reasoning_tokens`; fields the SDK does not model (`USAGE_FIELDS`) are kept in
    `extra["openai"]`. Counts that are not integers read as 0."""
    if type(raw) is not dict:
        return None
    details = raw.get("prompt_tokens_details")
    if type(details) is dict:
        cached = count(details.get("cached_tokens"))
        written = count(details.get("cache_write_tokens"))
    else:
        cached = written = 0
    prompt = count(raw.get("prompt_tokens"))
    output = raw.get("completion_tokens_details")
    kept = (
        None
        if raw.keys() <= USAGE_FIELDS
        else {k: v for k, v in raw.items() if k not in USAGE_FIELDS}
    )
    return Usage(
        input_tokens=max(prompt - cached - written, 0),
        output_tokens=count(raw.get("completion_tokens")),
        cache_read_tokens=cached,
        cache_write_tokens=written,
        reasoning_tokens=count(output.get("reasoning_tokens")) if type(output) is dict else 0,
        extra=usage_extra(kept),
    )
