"""The durable thread both protocols' thread tests serve: a host on a real SQLite
file, one thread on it, and a route of a real HTTP server that streams it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from automata_wire_testing import serving
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from automata.core import Agent, tool
from automata.core.testing import ScriptedProvider
from automata.threads import AgentRequest, Host, SQLiteStore, ThreadService, require_approval
from automata.threads._agents import AgentFactory

sent: list[str] = []
"""Whom `send_email` sent to (tests clear it first)."""


@tool
def send_email(to: str) -> str:
    """Send an email."""
    sent.append(to)
    return f"sent to {to}"


def approving(provider: ScriptedProvider) -> AgentFactory:
    """Every turn's agent: `provider`'s, with `send_email` behind an approval."""

    def choose_agent(request: AgentRequest) -> Agent[Any]:
        return Agent(provider, tools=[send_email], approver=require_approval("send_email"))

    return choose_agent


Handler = Callable[[ThreadService, Request], Response]


@asynccontextmanager
async def served_thread(
    path: Path, factory: AgentFactory, route: str, handler: Handler
) -> AsyncIterator[tuple[str, str, ThreadService]]:
    """A new thread of a host on `path`/threads.db with `factory`, `handler` serving
    POSTs to `route` (a path with `{thread_id}`): the thread's URL, its id and the
    service, until the host shuts down at the end."""
    host = await Host.open(SQLiteStore(path / "threads.db"))
    try:
        service = host.thread_service(factory)
        thread = await service.create(request_key="create-1")

        async def endpoint(request: Request) -> Response:
            return handler(service, request)

        app = Starlette(routes=[Route(route, endpoint, methods=["POST"])])
        async with serving(app) as client:
            url = f"{client.base_url}{route.format(thread_id=thread.thread_id)}"
            yield url, thread.thread_id, service
    finally:
        await host.shutdown()
