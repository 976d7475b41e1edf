"""Durable threads over HTTP: a Starlette app on a thread service.

Every mutation carries the client's own `request_key` (the same key again when it
retries), so a retried request never sends a message or answers a question twice.
Views are JSON (`ThreadView.to_dict()`); `GET /threads/{id}/events` follows a thread as
server-sent events, one `view` event per change (the current view first, so a client
that reconnects just takes it).

    POST /threads                        {"request_key", "title"?}          -> 201 view
    GET  /threads?before=&limit=         a page of threads, newest first
    GET  /threads/{id}                   the thread's view
    POST /threads/{id}/messages          {"request_key", "text"}            -> 202 view
    GET  /threads/{id}/events            text/event-stream of views
    POST /threads/{id}/cancel            {"request_key"}
    POST /threads/{id}/respond           {"request_key", "interaction_id", "answer", "reason"?}

Errors are JSON `{"error": <type>, "message": ...}`: 400 for a malformed request (with
the reason) or a page past its bound, 404 for an unknown thread or item, 409 for a
request key reused with other input or a thread in the wrong state, 503 while the host
shuts down. The app runs behind `automata.web.WebGuard` (packages/web): a Host it
is not, a state-changing request from another origin, a body that is not JSON and one
over the body limit (1 MiB by default) are refused before a route runs.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from automata.core import InvalidArgumentError
from automata.threads import (
    AgentFactory,
    HostClosedError,
    ItemNotFoundError,
    PageBoundError,
    RequestConflictError,
    ThreadNotFoundError,
    ThreadService,
    ThreadStateError,
)
from automata.threads import Host as ThreadHost
from automata.web import (
    BadRequest,
    GuardPolicy,
    RequestRefused,
    WebGuard,
    optional_string,
    read_json_object,
    refusal,
    required_string,
)

__all__ = ["BadRequest", "create_app", "json_errors", "read_json"]

HostOpener = Callable[[], Awaitable[ThreadHost]]


_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (ThreadNotFoundError, 404),
    (ItemNotFoundError, 404),
    (RequestConflictError, 409),
    (ThreadStateError, 409),
    (HostClosedError, 503),
    (PageBoundError, 400),
    (InvalidArgumentError, 400),
)


_ANSWERED: tuple[type[Exception], ...] = (RequestRefused, *(kind for kind, _ in _STATUS))
"""The errors a route answers with a status; anything else is a server error."""


def _error(error: Exception) -> JSONResponse:
    if isinstance(error, RequestRefused):
        return refusal(error)
    status = next((code for kind, code in _STATUS if isinstance(error, kind)), 400)
    return JSONResponse({"error": type(error).__name__, "message": str(error)}, status)


def json_errors(
    route: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """`route`, answering the errors above with their status and a JSON body
    `{"error": <type>, "message": ...}`; anything else stays a server error."""

    async def respond_to(request: Request) -> Response:
        try:
            return await route(request)
        except _ANSWERED as error:
            return _error(error)

    return respond_to


async def read_json(request: Request, *fields: str) -> dict[str, Any]:
    """The request's JSON object body (`automata.web.read_json_object`), each of `fields`
    in it a non-empty string; `BadRequest` with the reason when it is not."""
    body = await read_json_object(request)
    for name in fields:
        required_string(body, name)
    return body


def _int_query(request: Request, name: str, default: int | None) -> int | None:
    value = request.query_params.get(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError as bad:
        raise BadRequest(f"{name} must be an integer, got {value!r}") from bad


def create_app(
    open_host: HostOpener, agent_factory: AgentFactory, *, policy: GuardPolicy | None = None
) -> Starlette:
    """The app: `open_host()` is awaited at startup (e.g. `lambda:
    Host.open(SQLiteStore("threads.db"))`) and the host is shut down with the app.
    `policy` is what its `WebGuard` lets through (by default: loopback host names, the
    server's own origin, bodies of at most 1 MiB)."""
    service: ThreadService | None = None

    def threads() -> ThreadService:
        if service is None:
            raise HostClosedError("the server is starting or stopping")
        return service

    @json_errors
    async def create(request: Request) -> Response:
        body = await read_json(request, "request_key")
        title = optional_string(body, "title")
        view = await threads().create(request_key=body["request_key"], title=title)
        return JSONResponse(view.to_dict(), 201)

    @json_errors
    async def list_threads(request: Request) -> Response:
        page = await threads().list(
            before=_int_query(request, "before", None),
            limit=_int_query(request, "limit", 50) or 0,
        )
        return JSONResponse(
            {
                "threads": [
                    {"thread_id": t.thread_id, "title": t.title, "active": t.active}
                    for t in page.threads
                ],
                "next_before": page.next_before,
            }
        )

    @json_errors
    async def view(request: Request) -> Response:
        found = await threads().view(request.path_params["thread_id"])
        return JSONResponse(found.to_dict())

    @json_errors
    async def send(request: Request) -> Response:
        body = await read_json(request, "request_key", "text")
        found = await threads().send(
            request.path_params["thread_id"], body["text"], request_key=body["request_key"]
        )
        return JSONResponse(found.to_dict(), 202)

    @json_errors
    async def cancel(request: Request) -> Response:
        body = await read_json(request, "request_key")
        found = await threads().cancel(
            request.path_params["thread_id"], request_key=body["request_key"]
        )
        return JSONResponse(found.to_dict())

    @json_errors
    async def respond(request: Request) -> Response:
        body = await read_json(request, "request_key", "interaction_id")
        if not isinstance(body.get("answer"), bool | str):
            raise BadRequest("answer must be true or false (an approval) or a string")
        reason = optional_string(body, "reason")
        found = await threads().respond(
            request.path_params["thread_id"],
            body["interaction_id"],
            body["answer"],
            request_key=body["request_key"],
            reason=reason,
        )
        return JSONResponse(found.to_dict())

    @json_errors
    async def events(request: Request) -> Response:
        thread_id = request.path_params["thread_id"]
        await threads().view(thread_id)  # 404 before the stream starts

        async def frames() -> AsyncIterator[str]:
            async for change in threads().subscribe(thread_id):
                yield f"event: view\ndata: {json.dumps(change.to_dict())}\n\n"

        return StreamingResponse(
            frames(), media_type="text/event-stream", headers={"Cache-Control": "no-store"}
        )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        nonlocal service
        host = await open_host()
        service = host.thread_service(agent_factory)
        try:
            yield
        finally:
            service = None
            await host.shutdown()

    return Starlette(
        routes=[
            Route("/threads", create, methods=["POST"]),
            Route("/threads", list_threads, methods=["GET"]),
            Route("/threads/{thread_id}", view, methods=["GET"]),
            Route("/threads/{thread_id}/messages", send, methods=["POST"]),
            Route("/threads/{thread_id}/events", events, methods=["GET"]),
            Route("/threads/{thread_id}/cancel", cancel, methods=["POST"]),
            Route("/threads/{thread_id}/respond", respond, methods=["POST"]),
        ],
        lifespan=lifespan,
        middleware=[Middleware(WebGuard, policy=policy or GuardPolicy())],
    )
