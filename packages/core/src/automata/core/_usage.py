"""Token accounting reported by providers."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, JsonValue

__all__ = ["Usage"]


def _zero(value: object) -> bool:
    """`reasoning_tokens` is left out of a dump while 0, so usage written before it
    existed (journals, transcripts, recorded events) is written byte for byte as before."""
    return value == 0


def _empty(value: object) -> bool:
    """`extra` is left out of a dump while empty, for the same reason."""
    return not value


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _merged(
    first: Mapping[str, JsonValue], second: Mapping[str, JsonValue]
) -> dict[str, JsonValue]:
    """`first` and `second` merged key by key: numbers summed, objects merged the same
    way, any other value the later one (`second`'s)."""
    merged = dict(first)
    for key, later in second.items():
        earlier = merged.get(key)
        if key not in merged:
            merged[key] = later
        elif _number(earlier) and _number(later):
            merged[key] = earlier + later  # type: ignore[operator]
        elif isinstance(earlier, Mapping) and isinstance(later, Mapping):
            merged[key] = _merged(earlier, later)
        else:
            merged[key] = later
    return merged


class Usage(BaseModel):
    """Tokens spent by one or more provider calls. `+` sums field by field.

    `input_tokens` counts uncached input only; cached reads and writes are reported
    separately, as Anthropic does, so the four fields never double count.

    `reasoning_tokens` is the part of `output_tokens` the model spent reasoning, as
    far as the vendor reports it (OpenAI's `reasoning_tokens`; 0 when not reported).
    It is a subset of `output_tokens`, never added to it: `total_tokens` leaves it
    out. A dump leaves it out while it is 0.

    `extra` holds what the vendor reported beside the token counts, under the name of
    the provider that read it (`{"anthropic": {"server_tool_use":
    {"web_search_requests": 2}}}`, `{"openai": {"cost": 0.0012}}`). `+` merges it key
    by key: numbers are summed (counts and costs add up over calls), objects merged
    the same way, any other value (a flag, a name) is the later call's. A dump leaves
    it out while it is empty.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = Field(default=0, exclude_if=_zero)
    extra: dict[str, JsonValue] = Field(default_factory=dict, exclude_if=_empty)

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            extra=_merged(self.extra, other.extra) if other.extra else dict(self.extra),
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
