"""A real HTTP server on loopback that plays back scripted vendor replies.

The official SDK client is pointed at it with `base_url`, so requests go through the
SDK's real transport, JSON encoding and SSE decoding. Each reply is JSON or a
`text/event-stream` body sent event by event; a reply can also drop the connection
part-way, stall (with or without keepalives) until the server is reset, and the
server can hold one request in flight until released (for cancellation tests).
Every request body it receives is recorded (for a GET, its query parameters).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

__all__ = [
    "DroppedConnection",
    "PathSwitch",
    "Received",
    "Reply",
    "Responder",
    "WireServer",
    "unreachable_url",
]


class DroppedConnection(Exception):
    """Raised inside a streaming reply to cut the connection without ending the body."""


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP response: a JSON body, or SSE events sent one by one.

    `drop_after` cuts the connection after that many events have been sent. `body`,
    when set (and `events` is not), is sent as is instead of `json_body`, with the
    content type of `headers` (`text/plain` without one), for a server that answers
    with something other than JSON. `stall_after` stops sending after that many events
    but keeps the connection open, sending `keepalive` (when given) every
    `keepalive_every` seconds, until the server is reset or stopped. `stall_before`
    sends nothing at all, not even the response headers, until then (a server that
    never answers).
    """

    status: int = 200
    json_body: Any = None
    events: Sequence[bytes] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    drop_after: int | None = None
    body: bytes | None = None
    stall_after: int | None = None
    keepalive: bytes | None = None
    keepalive_every: float = 0.05
    stall_before: bool = False

    @classmethod
    def sse(cls, body: str | bytes, *, drop_after: int | None = None) -> Reply:
        """A reply streaming a raw event-stream body, split at its blank lines."""
        text = body.decode() if isinstance(body, bytes) else body
        events = [chunk + "\n\n" for chunk in text.split("\n\n") if chunk.strip()]
        return cls(events=[e.encode() for e in events], drop_after=drop_after)


@dataclass(frozen=True)
class PathSwitch:
    """`when` for a request whose path and query contain `marker`, else `otherwise`:
    for a wire that says in its URL, not its body, that a reply is streamed (Gemini's
    `:streamGenerateContent`)."""

    marker: str
    when: Reply | Callable[[dict[str, Any]], Reply]
    otherwise: Reply | Callable[[dict[str, Any]], Reply]


Responder = Reply | Callable[[dict[str, Any]], Reply] | PathSwitch
"""A fixed reply, a function of the request body that returns one, or a
`PathSwitch` between two of those."""


@dataclass(frozen=True)
class Received:
    """A request as the server saw it; `body` is a GET's query parameters. `method`,
    `query` (the raw query string) and `content` (the body's bytes) are as sent."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    method: str = "POST"
    query: str = ""
    content: bytes = b""


def unreachable_url() -> str:
    """`http://127.0.0.1:<port>` for a port nothing listens on (bound, then closed),
    to provoke a connection error."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class WireServer:
    """Serves scripted replies on 127.0.0.1 from a background thread.

    Requests are answered from the `enqueue` queue first, then by the `route` whose
    path suffix matches, then by the `always` responder; with none of these the reply
    is a 599. `record=False` keeps no `received` log (for long benchmarks);
    `pace=False` sends a stream's events back to back instead of yielding to the event
    loop between them.
    """

    def __init__(self, *, record: bool = True, pace: bool = True) -> None:
        self.received: list[Received] = []
        self._record = record
        self._pace = pace
        self._queue: deque[Responder] = deque()
        self._routes: dict[str, Responder] = {}
        self._default: Responder | None = None
        self._hold_armed = False
        self._held = threading.Event()
        self._released = threading.Event()
        self._generation = 0  # bumped by reset() and stop(): stalled replies end
        app = Starlette(routes=[Route("/{path:path}", self._handle, methods=["POST", "GET"])])
        config = uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="critical", lifespan="off", access_log=False
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    # lifecycle -------------------------------------------------------------------

    def start(self) -> WireServer:
        """Start serving; returns once the port is open."""
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("test server did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        self._generation += 1
        self._released.set()
        self._server.should_exit = True
        self._thread.join(timeout=10)

    @property
    def port(self) -> int:
        socket = self._server.servers[0].sockets[0]
        port: int = socket.getsockname()[1]
        return port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # scripting -------------------------------------------------------------------

    def reset(self) -> None:
        """Forget every request and scripted reply (routes included); stalled replies
        end."""
        self._generation += 1
        self.received.clear()
        self._queue.clear()
        self._routes.clear()
        self._default = None
        self._hold_armed = False
        self._held.clear()
        self._released.set()

    def enqueue(self, *replies: Responder) -> None:
        """Answer the next requests with these replies, in order."""
        self._queue.extend(replies)

    def route(self, path_suffix: str, responder: Responder) -> None:
        """Answer every request whose path ends with `path_suffix` (and that `enqueue`
        does not cover) with this responder."""
        self._routes[path_suffix] = responder

    def always(self, responder: Responder) -> None:
        """Answer every request not covered by `enqueue` or a route with this responder."""
        self._default = responder

    # the RequestGate protocol of automata.core.testing ---------------------------

    def hold_next(self) -> None:
        self._held.clear()
        self._released.clear()
        self._hold_armed = True

    async def wait_until_held(self) -> None:
        if not await asyncio.to_thread(self._held.wait, 10):
            raise TimeoutError("no request arrived to hold")

    def release(self) -> None:
        self._hold_armed = False
        self._released.set()

    # serving ---------------------------------------------------------------------

    def _responder(self, path: str) -> Responder | None:
        if self._queue:
            return self._queue.popleft()
        for suffix, responder in self._routes.items():
            if path.endswith(suffix):
                return responder
        return self._default

    async def _handle(self, request: Request) -> Response:
        raw = await request.body()
        body = json.loads(raw) if raw else {}
        if request.method == "GET":  # a GET's query parameters stand for its body
            body = dict(request.query_params)
        path = request.url.path
        if self._record:
            self.received.append(
                Received(
                    path,
                    dict(request.headers),
                    body,
                    method=request.method,
                    query=request.url.query,
                    content=raw,
                )
            )
        if self._hold_armed:
            self._hold_armed = False
            self._held.set()
            await asyncio.to_thread(self._released.wait, 30)
        responder = self._responder(path)
        if responder is None:
            return Response(json.dumps({"error": "no scripted reply"}), status_code=599)
        if isinstance(responder, PathSwitch):
            target = f"{path}?{request.url.query}"
            responder = responder.when if responder.marker in target else responder.otherwise
        reply = responder(body) if callable(responder) else responder
        if reply.stall_before:
            async for _ in self._stall(None, 0.05):
                pass  # pragma: no cover - no keepalive: nothing is yielded
            return Response(json.dumps({"error": "stalled"}), status_code=599)
        headers = dict(reply.headers)
        if reply.events is None and reply.body is not None:
            media_type = headers.pop("content-type", "text/plain")
            return Response(
                reply.body, status_code=reply.status, headers=headers, media_type=media_type
            )
        if reply.events is None:
            return Response(
                json.dumps(reply.json_body),
                status_code=reply.status,
                headers=headers,
                media_type="application/json",
            )
        return StreamingResponse(
            self._events(reply),
            status_code=reply.status,
            headers=headers,
            media_type="text/event-stream",
        )

    async def _stall(self, keepalive: bytes | None, every: float) -> AsyncIterator[bytes]:
        """Wait, yielding `keepalive` every `every` seconds when given, until reset."""
        generation = self._generation
        while self._generation == generation:
            await asyncio.sleep(every)
            if keepalive is not None:
                yield keepalive

    async def _events(self, reply: Reply) -> AsyncIterator[bytes]:
        assert reply.events is not None
        for sent, event in enumerate(reply.events):
            if reply.drop_after is not None and sent >= reply.drop_after:
                raise DroppedConnection
            if reply.stall_after is not None and sent >= reply.stall_after:
                break
            yield event
            if self._pace:
                await asyncio.sleep(0)
        if reply.stall_after is not None:
            async for keepalive in self._stall(reply.keepalive, reply.keepalive_every):
                yield keepalive
