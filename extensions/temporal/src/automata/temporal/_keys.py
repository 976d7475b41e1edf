"""The key a tool passes to the outside world so a repeated call has no second effect."""

from __future__ import annotations

from typing import Any

from automata.core import ToolContext

__all__ = ["idempotency_key"]


def idempotency_key(context: ToolContext[Any]) -> str:
    """The workflow id and the call id: the same on every attempt of one call's activity
    (a retry after a lost worker included), different for every other call (TP5)."""
    return f"{context.invocation_id}/{context.call.id}"
