"""Approvals: a gate every tool call passes before it runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeAlias

from automata.core._blocks import ToolUseBlock
from automata.core._tools import ToolContext

__all__ = ["Approval", "Approver"]


@dataclass(frozen=True, slots=True)
class Approval:
    """An approver's decision on one call."""

    allowed: bool
    reason: str = ""

    @classmethod
    def allow(cls) -> Approval:
        return cls(allowed=True)

    @classmethod
    def deny(cls, reason: str = "denied") -> Approval:
        """Refuse the call; the model sees `denied: <reason>` and the run goes on."""
        return cls(allowed=False, reason=reason or "denied")


Approver: TypeAlias = Callable[[ToolUseBlock, ToolContext], Awaitable[Approval] | Approval]
"""Decides whether a tool call may run: a function (or callable object), sync or async,
taking the call and its `ToolContext` and returning an `Approval`.

Called after the call's budget is reserved and before it runs, concurrently for the
calls of one batch (a sync approver runs on the event loop, so keep it quick). Raising
aborts the whole batch: this call's result becomes `aborted: <error>`, unfinished
siblings get `canceled: tool batch aborted: <error>`, and the run fails with
`ToolBatchAbortedError` after committing those results.
"""
