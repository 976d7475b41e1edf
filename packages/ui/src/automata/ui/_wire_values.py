"""Values both protocols send the same way: a run's usage, what a stream says of a
failed run, and the id of a call's approval request."""

from __future__ import annotations

from automata.core import AutomataError, Usage

__all__ = ["APPROVAL_PREFIX", "approval_id", "error_text", "usage_data"]

APPROVAL_PREFIX = "approval-"
"""What an agent run's approval ids start with (the call's id follows)."""


def error_text(error: BaseException) -> str:
    """What a stream says of a failed run: the message of the library's own errors,
    only the kind of anything else (whose text may hold server details)."""
    if isinstance(error, AutomataError):
        return f"{type(error).__name__}: {error}"
    return f"{type(error).__name__}: the run failed"


def usage_data(usage: Usage) -> dict[str, int]:
    """A `Usage` as the payload of a `data-usage` part and of AG-UI's `usage` state."""
    return {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "cacheReadTokens": usage.cache_read_tokens,
        "cacheWriteTokens": usage.cache_write_tokens,
    }


def approval_id(call_id: str) -> str:
    """The approval id an agent run's stream gives the call `call_id`'s approval
    request."""
    return f"{APPROVAL_PREFIX}{call_id}"
