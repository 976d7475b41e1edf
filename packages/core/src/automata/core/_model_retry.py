"""Counting `ModelRetry` from tools: each tool's retry budget for one run."""

from __future__ import annotations

__all__ = ["ToolRetries"]


class ToolRetries:
    """How many times each tool has asked the model to try again in one run, and the
    first tool that went over its budget (None while none has). One per run, shared
    by all of its loops (a typed run's correction turns included), never by sub-agents."""

    __slots__ = ("_used", "exceeded")

    def __init__(self) -> None:
        self._used: dict[str, int] = {}
        self.exceeded: tuple[str, int] | None = None

    def used(self, tool_name: str) -> int:
        """How many times `tool_name` has asked the model to try again so far."""
        return self._used.get(tool_name, 0)

    def record(self, tool_name: str, allowed: int) -> None:
        """Count one `ModelRetry` from `tool_name`; past `allowed`, remember it as the
        tool (and its budget) that ends the run once its batch is committed."""
        used = self._used.get(tool_name, 0) + 1
        self._used[tool_name] = used
        if used > allowed and self.exceeded is None:
            self.exceeded = (tool_name, allowed)
