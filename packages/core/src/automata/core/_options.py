"""Per-call model options, merged field by field."""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CallOptions", "ToolChoice"]

ToolChoice: TypeAlias = Literal["auto", "any", "none"] | str
"""`auto` (model decides), `any` (must call some tool), `none`, or a tool name."""


class CallOptions(BaseModel):
    """Options for one provider call. `None` means "not set": the provider default.

    `merged(over)` returns a new value where each field set in `over` wins; neither
    operand changes. Agents merge per-run options over their defaults this way.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    temperature: float | None = None
    max_tokens: int | None = None
    stop_sequences: tuple[str, ...] | None = None
    tool_choice: ToolChoice | None = None
    thinking_budget: int | None = None
    call_timeout: float | None = Field(default=None, gt=0)
    """The most one attempt of a call may take, start to end of the reply."""
    stream_idle_timeout: float | None = Field(default=None, gt=0)
    """The longest a stream may go without an event (or its response headers)."""

    def merged(self, over: CallOptions | None) -> CallOptions:
        """These options with every field that `over` sets replaced by its value."""
        if over is None:
            return self
        updates = {k: v for k, v in over if v is not None}
        if not updates:
            return self
        return self.model_copy(update=updates)
