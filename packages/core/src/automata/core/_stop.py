"""Why a model turn or a run ended."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["StopReason"]


class StopReason(StrEnum):
    """The provider-neutral stop reasons. Providers map their own values onto these;
    a value they cannot map becomes `UNKNOWN` (and the raw value is kept)."""

    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_STEPS = "max_steps"
    MAX_TOKENS = "max_tokens"
    CONTENT_FILTER = "content_filter"
    INCOMPLETE = "incomplete"
    PAUSED = "paused"
    """The provider paused a long turn (Anthropic's `pause_turn`, server tools still
    at work); the loop sends the turn back as it is to let the model go on."""
    ERROR = "error"
    CANCELLED = "cancelled"
    UNKNOWN = "unknown"
