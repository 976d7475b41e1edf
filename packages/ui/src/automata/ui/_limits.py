"""The bounds every adapter keeps, as one frozen value."""

from __future__ import annotations

from dataclasses import dataclass

from automata.core import InvalidArgumentError

__all__ = ["UILimits"]


@dataclass(frozen=True, slots=True)
class UILimits:
    """Bounds of one streamed request.

    - `max_body_bytes`: a longer request body is refused with 413 while it is read
      (a `Content-Length` over it is refused before any byte is read).
    - `max_messages`: a request carrying more messages is refused with 400.
    - `max_json_depth`: a body nested deeper is refused with 400.
    - `max_queued_events`: events waiting for a slow client; past it the run is
      stopped and the stream ends with an error (`StreamOverflowError`).
    """

    max_body_bytes: int = 1 << 20
    max_messages: int = 500
    max_json_depth: int = 32
    max_queued_events: int = 4096

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_messages", "max_json_depth", "max_queued_events"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgumentError(f"UILimits.{name} must be a positive int, got {value!r}")
