"""Progress a server reports for a tool call: shown as the call's activity rows, and
handed to the handler the user gives."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from automata.core import ToolContext

__all__ = ["MCPProgress", "ProgressHandler", "show_progress"]


@dataclass(frozen=True, slots=True)
class MCPProgress:
    """One `notifications/progress` for a tool call in flight: the server, the tool
    (its name as the agent knows it, prefix included), the id of the agent's tool call
    (the `ToolUseBlock.id`; "" for a call made with `MCPServer.call` directly), how far
    it is (`progress`, rising), out of `total` when the server knows it, and the
    server's message."""

    server: str
    tool: str
    call_id: str
    progress: float
    total: float | None = None
    message: str | None = None


ProgressHandler: TypeAlias = Callable[[MCPProgress], Awaitable[None] | None]
"""Receives each `MCPProgress`, in the order the server sent them: a function, sync or
async (the call's result waits for it)."""


def show_progress(
    context: ToolContext[Any], progress: float, total: float | None, message: str | None
) -> None:
    """One progress report as the call's activity: a row (`message (3/5)`; the
    latest rows are kept) and the status `3/5` (`3` without a total)."""
    done = f"{progress:g}" if total is None else f"{progress:g}/{total:g}"
    context.activity.row(f"{message} ({done})" if message else done)
    context.activity.status(done)
