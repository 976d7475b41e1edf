"""Token accounting reported by providers."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Usage"]


class Usage(BaseModel):
    """Tokens spent by one or more provider calls. `+` sums field by field.

    `input_tokens` counts uncached input only; cached reads and writes are reported
    separately, as Anthropic does, so the four fields never double count.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    def is_zero(self) -> bool:
        return self.total_tokens == 0
