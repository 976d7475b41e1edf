"""The ASGI response every adapter returns: it reads the protocol's request body within
bounds, refuses a bad one with a typed JSON error, and otherwise streams server-sent
events."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from automata.ui._body import read_json_object, refusal
from automata.ui._errors import UIProtocolError
from automata.ui._limits import UILimits

__all__ = ["SSE_HEADERS", "EventStreamResponse", "Opener"]

SSE_HEADERS: Mapping[str, str] = {
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
    "x-content-type-options": "nosniff",
}

Opener = Callable[[dict[str, Any]], Awaitable[AsyncIterator[str]]]
"""Parses the request body (raising `UIProtocolError` for a bad one) and does what must
happen before the stream starts (a durable send, say), returning the stream's frames.
A refusal raised here is answered with its status; nothing streams."""


class EventStreamResponse(Response):
    """A `text/event-stream` response whose frames come from `opener`, given the
    request's JSON body. The body is read when the response is sent, within `limits`;
    a body over the bound is answered 413, a malformed one 400, both as JSON
    (`refusal`), before anything runs. Frames are sent as they come (no buffering);
    when the client goes away the frames' iterator is closed."""

    def __init__(
        self,
        request: Request,
        opener: Opener,
        *,
        limits: UILimits,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(status_code=200, media_type="text/event-stream")
        self._request = request
        self._opener = opener
        self._limits = limits
        self._extra = {**SSE_HEADERS, **(headers or {})}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            body = await read_json_object(self._request, self._limits)
            frames = await self._opener(body)
        except UIProtocolError as refused:
            await refusal(refused)(scope, receive, send)
            return
        stream = StreamingResponse(frames, media_type="text/event-stream", headers=self._extra)
        await stream(scope, receive, send)
