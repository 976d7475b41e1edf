"""Chat Completions usage as core `Usage` (the SDK's models and JSON alike): what
`_reply.py` and `_fast_reply.py` read, and the Responses reader's reasoning count."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from automata.core.providers import Usage
from automata.core.providers.reading import count

__all__ = ["PROVIDER", "USAGE_FIELDS", "reasoning_tokens", "usage_extra", "usage_from"]

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


def usage_from(raw: Any) -> Usage | None:
    """Core usage from an SDK `CompletionUsage`: `prompt_tokens` includes cached and
    cache-written tokens, so those are taken out of `input_tokens`; the reasoning part
    of `completion_tokens` is `reasoning_tokens`; fields the SDK does not model are
    kept in `extra["openai"]`. Counts that are not integers read as 0."""
    if raw is None or isinstance(raw, str | int | float | list | dict):
        return None
    details = getattr(raw, "prompt_tokens_details", None)
    cached = count(getattr(details, "cached_tokens", None))
    written = count(getattr(details, "cache_write_tokens", None))
    prompt = count(getattr(raw, "prompt_tokens", None))
    return Usage(
        input_tokens=max(prompt - cached - written, 0),
        output_tokens=count(getattr(raw, "completion_tokens", None)),
        cache_read_tokens=cached,
        cache_write_tokens=written,
        reasoning_tokens=reasoning_tokens(getattr(raw, "completion_tokens_details", None)),
        extra=usage_extra(getattr(raw, "__pydantic_extra__", None)),
    )


def reasoning_tokens(details: object) -> int:
    """The `reasoning_tokens` of a usage's output details (Chat Completions'
    `completion_tokens_details`, the Responses API's `output_tokens_details`), 0 when
    there are none."""
    return count(getattr(details, "reasoning_tokens", None))
