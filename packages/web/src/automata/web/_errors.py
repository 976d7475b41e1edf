"""The refusals of a guarded app: each carries the HTTP status it is answered with."""

from __future__ import annotations

from typing import ClassVar

from starlette.responses import JSONResponse

__all__ = [
    "BadRequest",
    "BodyTooLarge",
    "CrossOriginRefused",
    "HostNotAllowed",
    "RequestRefused",
    "ServerBusy",
    "UnsupportedMediaType",
    "refusal",
]


class RequestRefused(Exception):
    """A request refused before it changed anything; `status` is the HTTP status it is
    answered with, and the message says why."""

    status: ClassVar[int] = 400


class BadRequest(RequestRefused):
    """The request's body or query is not what the route takes."""


class HostNotAllowed(RequestRefused):
    """The Host header names a server this is not (as a DNS-rebinding page's does)."""


class CrossOriginRefused(RequestRefused):
    """A state-changing request came from a page of another origin."""

    status: ClassVar[int] = 403


class BodyTooLarge(RequestRefused):
    """The body is longer than the app's bound; it was not buffered."""

    status: ClassVar[int] = 413


class UnsupportedMediaType(RequestRefused):
    """A state-changing request whose body is not `application/json`."""

    status: ClassVar[int] = 415


class ServerBusy(RequestRefused):
    """The server runs as much as it is bounded to; try again later."""

    status: ClassVar[int] = 503


def refusal(error: RequestRefused) -> JSONResponse:
    """The answer to `error`: its status and `{"error": <type>, "message": ...}`."""
    headers = {"Retry-After": "1"} if isinstance(error, ServerBusy) else None
    return JSONResponse(
        {"error": type(error).__name__, "message": str(error)}, error.status, headers
    )
