"""Token accounting reported by providers."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Usage"]


def _zero(value: object) -> bool:
    """`reasoning_tokens` is left out of a dump while 0, so usage written before it
    existed (journals, transcripts, recorded events) is written byte for byte as before."""
    return value == 0


class Usage(BaseModel):
    """Tokens spent by one or more provider calls. `+` sums field by field.

    `input_tokens` counts uncached input only; cached reads and writes are reported
    separately, as Anthropic does, so the four fields never double count.

    `reasoning_tokens` is the part of `output_tokens` the model spent reasoning, as
    far as the vendor reports it (OpenAI's `reasoning_tokens`; 0 when not reported).
    It is a subset of `output_tokens`, never added to it: `total_tokens` leaves it
    out. A dump leaves it out while it is 0.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = Field(default=0, exclude_if=_zero)

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )

    @property
    def total_tokens(self) -> int:
        """Every token billed: input, output (reasoning included) and cache traffic."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    def is_zero(self) -> bool:
        return self.total_tokens == 0
