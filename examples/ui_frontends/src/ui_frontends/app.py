"""The server of both example front ends: their built pages, and the two protocol
endpoints they call, on one agent.

    GET  /                 a page linking to both front ends
    GET  /ai-sdk/          the AI SDK page (ai-sdk/dist/index.html) and its assets
    GET  /ag-ui/           the AG-UI page (ag-ui/dist/index.html) and its assets
    POST /api/chat         the UI message stream (`useChat` posts here)
    POST /api/agent        AG-UI events (an `HttpAgent` posts here)

The app runs behind `automata.web.WebGuard` (packages/web): a Host header that is
not one of the server's names, a POST from a page of another origin, a body that is
not JSON or is over the bound (1 MiB) are refused before a route runs. The pages are
served with the chat example's Content-Security-Policy (`chat.app.PAGE_POLICY`):
scripts, styles and connections from this server only, no inline script.

A front end that was not built yet is answered 503 with the command that builds it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from pathlib import Path
from typing import Any

import anyio
from chat.app import PAGE_POLICY
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from automata.core import Agent
from automata.ui import agui_stream, ui_message_stream
from automata.web import GuardPolicy, WebGuard

__all__ = ["EXAMPLE", "FRONT_ENDS", "create_app"]

EXAMPLE = Path(__file__).resolve().parents[2]
"""The example's folder (examples/ui_frontends), which holds the front ends' sources
and, once built, their dist/ folders."""

FRONT_ENDS = ("ai-sdk", "ag-ui")
"""The front ends' folder names, which are also the paths they are served under."""

_NO_STORE = {"Cache-Control": "no-store"}
_HERE = Path(__file__).resolve().parent


def _page(path: Path, missing: str) -> Callable[[Request], Awaitable[Response]]:
    """A handler serving the HTML file `path` with the page policy; 503 with
    `missing` when the file is not there."""

    async def page(request: Request) -> Response:
        if not await anyio.Path(path).is_file():
            return PlainTextResponse(missing, 503, headers=_NO_STORE)
        return FileResponse(path, headers={**_NO_STORE, "Content-Security-Policy": PAGE_POLICY})

    return page


def _front_end_routes(name: str, dist: Path) -> list[BaseRoute]:
    missing = (
        f"the {name} front end is not built yet: run "
        "`uv run python -m ui_frontends.build` and reload"
    )
    return [
        Route(f"/{name}", _redirect_to(f"/{name}/"), methods=["GET"]),
        Route(f"/{name}/", _page(dist / "index.html", missing), methods=["GET"]),
        Mount(
            f"/{name}/assets",
            StaticFiles(directory=dist / "assets", check_dir=False),
            name=f"{name}-assets",
        ),
    ]


def _redirect_to(target: str) -> Callable[[Request], Awaitable[Response]]:
    async def redirect(request: Request) -> Response:
        return Response(status_code=307, headers={"Location": target})

    return redirect


def create_app(
    agent: Agent[Any],
    *,
    approval_required: Collection[str] = (),
    example: Path = EXAMPLE,
    policy: GuardPolicy | None = None,
) -> Starlette:
    """Serve `agent` on both protocols (calls to `approval_required` tools wait for
    the front end's answer) and the front ends built under `example`. `policy` is
    what the app's `WebGuard` lets through (by default: loopback host names, the
    page's own origin, bodies of at most 1 MiB)."""
    gated = frozenset(approval_required)

    async def chat(request: Request) -> Response:
        return ui_message_stream(agent, request, approval_required=gated)

    async def run(request: Request) -> Response:
        return agui_stream(agent, request, approval_required=gated)

    routes: list[BaseRoute] = [
        Route("/", _page(_HERE / "index.html", "index.html is missing"), methods=["GET"]),
        Route("/api/chat", chat, methods=["POST"]),
        Route("/api/agent", run, methods=["POST"]),
    ]
    for name in FRONT_ENDS:
        routes += _front_end_routes(name, example / name / "dist")
    return Starlette(
        routes=routes, middleware=[Middleware(WebGuard, policy=policy or GuardPolicy())]
    )
