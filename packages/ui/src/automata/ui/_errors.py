"""The errors of the UI protocol adapters: each carries the HTTP status it is answered
with, and its message says what was refused. A refused request ran nothing and
committed nothing."""

from __future__ import annotations

from typing import ClassVar

from automata.core import AutomataError

__all__ = [
    "InvalidRequestBodyError",
    "RequestBodyTooLargeError",
    "StreamOverflowError",
    "UIProtocolError",
]


class UIProtocolError(AutomataError):
    """Base of every error of `automata.ui`; `status` is the HTTP status it maps to."""

    status: ClassVar[int] = 400


class InvalidRequestBodyError(UIProtocolError, ValueError):
    """The request body is not what the protocol sends (not JSON, a field of the
    wrong type, a transcript that cannot be continued); the message names where."""


class RequestBodyTooLargeError(UIProtocolError):
    """The request body is longer than the adapter's `max_body_bytes`; it was not
    buffered past the bound."""

    status: ClassVar[int] = 413


class StreamOverflowError(UIProtocolError):
    """The client read the stream so slowly that more than `max_queued_events` events
    waited for it; the run was stopped rather than buffer without bound."""

    status: ClassVar[int] = 503
