"""Partial typed output: the hidden output tool's arguments, validated leniently as
they stream (docs/streaming.md O8)."""

from __future__ import annotations

from typing import Any, Final

from pydantic import TypeAdapter, ValidationError
from pydantic_core import from_json

__all__ = ["NO_VALUE", "PartialOutput"]

NO_VALUE: Final[Any] = object()
"""What `PartialOutput.feed` returns when the text so far gives no new value."""


class PartialOutput:
    """Folds argument fragments of the hidden output tool into partial values: the
    text so far is read as JSON with its unfinished tail allowed, and validated with
    pydantic's partial mode; a value is handed on only when it validates and differs
    from the last one."""

    __slots__ = ("_adapter", "_last", "_parts", "_wrapped")

    def __init__(self, output_type: Any, wrapped: bool) -> None:
        self._adapter: TypeAdapter[Any] = TypeAdapter(output_type)
        self._wrapped = wrapped
        self._parts: list[str] = []
        self._last: Any = NO_VALUE

    def feed(self, fragment: str) -> Any:
        self._parts.append(fragment)
        try:
            data = from_json("".join(self._parts), allow_partial="trailing-strings")
            if self._wrapped:
                if not isinstance(data, dict) or "result" not in data:
                    return NO_VALUE
                data = data["result"]
            value = self._adapter.validate_python(
                data, experimental_allow_partial="trailing-strings"
            )
        except (ValueError, ValidationError):
            return NO_VALUE
        if self._last is not NO_VALUE and value == self._last:
            return NO_VALUE
        self._last = value
        return value
