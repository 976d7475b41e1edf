"""Progress a server reports for a tool call, handed to the handler the user gives."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeAlias

__all__ = ["MCPProgress", "ProgressHandler"]


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
