"""The chat app: the page, and the routes it calls, on one thread service.

The thread routes of `threads_server` (create, list, view, send, cancel, respond) are
used as they are; this app adds the page and what a chat client needs besides:

    GET  /                               the page (static/index.html)
    GET  /static/...                     its scripts, style sheets and vendor/ libraries
    GET  /settings                       {"lease_ttl"}: what the page says while a turn resumes
    GET  /events/threads                 text/event-stream: the thread list, now and on change
    GET  /threads/{id}/events            text/event-stream: the thread's view, now and on change
    POST /threads/{id}/title             {"request_key", "title"}
    POST /threads/{id}/fork              {"request_key", "item_id"}          -> 201 view
    POST /threads/{id}/delete            {"request_key"}
    POST /threads/{id}/retry             {"request_key"}
    POST /threads/{id}/queue/cancel      {"request_key", "turn_id"}

The app runs behind `automata.web.WebGuard` (packages/web): a Host header that is
not one of the server's names, a POST from a page of another origin, a body that is
not JSON and one over the body limit (1 MiB by default) are refused before a route
runs, and a malformed body is answered 400 with the reason. The page is served with a
Content-Security-Policy (`PAGE_POLICY`) that lets it load scripts, styles, images and
connections from this server only, and no inline script, so even markup that got past
the page's sanitizer could not run.

Every mutation takes the client's `request_key` (docs/threads.md T3): the page makes one
per user action and sends it again when it retries, so a double click or a retried
request does nothing twice. Event streams start with a `retry` field (how soon the
browser reconnects after the server goes away) and the current view, so a page that
reconnects just takes what it is given (T17); a thread that is gone gets one `gone`
event. Streams end when the server is told to stop (`app.state.stopping`), so a
graceful stop does not wait for open pages.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from threads_server import create_app, json_errors, read_json

from automata.threads import (
    AgentFactory,
    Host,
    HostClosedError,
    ThreadNotFoundError,
    ThreadPage,
    ThreadService,
)
from automata.web import GuardPolicy, WebGuard, required_string

__all__ = ["PAGE_POLICY", "STATIC", "create_chat_app", "page_data"]

STATIC = Path(__file__).parent / "static"
"""The page's files: index.html, its modules and style sheet, and vendor/ (the markdown,
sanitizer and highlighting libraries, with their licences; no build step)."""

PAGE_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
"""The page's Content-Security-Policy: its own scripts only (no inline script, no
`eval`, nothing from another host), no remote images, no frames."""

T = TypeVar("T")


def page_data(page: ThreadPage) -> dict[str, Any]:
    """A page of the thread list as JSON-ready data."""
    return {
        "threads": [
            {
                "thread_id": t.thread_id,
                "title": t.title,
                "active": t.active,
                "updated_at": t.updated_at,
            }
            for t in page.threads
        ],
        "next_before": page.next_before,
    }


async def _until(source: AsyncGenerator[T, None], stopping: asyncio.Event) -> AsyncIterator[T]:
    """`source`'s items until it ends or `stopping` is set; `source` is closed after
    (also when the consumer stops early, as when the browser goes away)."""
    stop = asyncio.ensure_future(stopping.wait())
    following: asyncio.Future[T] | None = None
    try:
        while True:
            following = asyncio.ensure_future(anext(source))
            await asyncio.wait({following, stop}, return_when=asyncio.FIRST_COMPLETED)
            if not following.done():
                return
            try:
                item = following.result()
            except StopAsyncIteration:
                return
            following = None
            yield item
    finally:
        stop.cancel()
        if following is not None and not following.done():
            following.cancel()
            with suppress(asyncio.CancelledError, StopAsyncIteration):
                await following
        await source.aclose()


def _frame(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def create_chat_app(
    open_host: Callable[[], Awaitable[Host]],
    agent_factory: AgentFactory,
    *,
    reconnect_ms: int = 1000,
    policy: GuardPolicy | None = None,
) -> Starlette:
    """The chat app. `open_host()` is awaited at startup and the host is shut down with
    the app; `reconnect_ms` is the `retry` the event streams give the browser. Set
    `app.state.stopping` (an `asyncio.Event`) to end the event streams before a
    graceful stop. `policy` is what its `WebGuard` lets through (by default: loopback
    host names, the page's own origin, bodies of at most 1 MiB)."""
    host: Host | None = None

    async def opened() -> Host:
        nonlocal host
        host = await open_host()
        return host

    api = create_app(opened, agent_factory)
    stopping = asyncio.Event()

    def threads() -> ThreadService:
        if host is None or host.closed:
            raise HostClosedError("the server is starting or stopping")
        return host.thread_service(agent_factory)

    def streamed(frames: AsyncIterator[str]) -> StreamingResponse:
        async def with_retry() -> AsyncIterator[str]:
            yield f"retry: {reconnect_ms}\n\n"
            async for frame in frames:
                yield frame

        return StreamingResponse(
            with_retry(), media_type="text/event-stream", headers={"Cache-Control": "no-store"}
        )

    async def index(request: Request) -> Response:
        return FileResponse(
            STATIC / "index.html",
            headers={"Cache-Control": "no-store", "Content-Security-Policy": PAGE_POLICY},
        )

    async def settings(request: Request) -> Response:
        return JSONResponse({"lease_ttl": None if host is None else host.lease_ttl})

    @json_errors
    async def thread_list_events(request: Request) -> Response:
        pages = threads().subscribe_threads(limit=100)

        async def frames() -> AsyncIterator[str]:
            async for page in _until(pages, stopping):
                yield _frame("threads", page_data(page))

        return streamed(frames())

    @json_errors
    async def thread_events(request: Request) -> Response:
        thread_id = request.path_params["thread_id"]
        service = threads()

        async def frames() -> AsyncIterator[str]:
            try:
                async for view in _until(service.subscribe(thread_id), stopping):
                    yield _frame("view", view.to_dict())
                if stopping.is_set():
                    return
                await service.view(thread_id)
            except ThreadNotFoundError:
                yield _frame("gone", {"thread_id": thread_id})
            except HostClosedError:
                return

        return streamed(frames())

    @json_errors
    async def set_title(request: Request) -> Response:
        body = await read_json(request, "request_key")
        title = required_string(body, "title", allow_empty=True)
        view = await threads().set_title(
            request.path_params["thread_id"], title, request_key=body["request_key"]
        )
        return JSONResponse(view.to_dict())

    @json_errors
    async def fork(request: Request) -> Response:
        body = await read_json(request, "request_key", "item_id")
        view = await threads().fork(
            request.path_params["thread_id"], body["item_id"], request_key=body["request_key"]
        )
        return JSONResponse(view.to_dict(), 201)

    @json_errors
    async def delete(request: Request) -> Response:
        body = await read_json(request, "request_key")
        thread_id = request.path_params["thread_id"]
        await threads().delete(thread_id, request_key=body["request_key"])
        return JSONResponse({"deleted": thread_id})

    @json_errors
    async def retry(request: Request) -> Response:
        body = await read_json(request, "request_key")
        view = await threads().retry(
            request.path_params["thread_id"], request_key=body["request_key"]
        )
        return JSONResponse(view.to_dict())

    @json_errors
    async def cancel_queued(request: Request) -> Response:
        body = await read_json(request, "request_key", "turn_id")
        view = await threads().cancel_queued(
            request.path_params["thread_id"], body["turn_id"], request_key=body["request_key"]
        )
        return JSONResponse(view.to_dict())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        stopping.clear()
        async with api.router.lifespan_context(api):
            yield
            stopping.set()

    app = Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/settings", settings, methods=["GET"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
            Route("/events/threads", thread_list_events, methods=["GET"]),
            Route("/threads/{thread_id}/events", thread_events, methods=["GET"]),
            Route("/threads/{thread_id}/title", set_title, methods=["POST"]),
            Route("/threads/{thread_id}/fork", fork, methods=["POST"]),
            Route("/threads/{thread_id}/delete", delete, methods=["POST"]),
            Route("/threads/{thread_id}/retry", retry, methods=["POST"]),
            Route("/threads/{thread_id}/queue/cancel", cancel_queued, methods=["POST"]),
            *api.routes,
        ],
        lifespan=lifespan,
        middleware=[Middleware(WebGuard, policy=policy or GuardPolicy())],
    )
    app.state.stopping = stopping
    return app
