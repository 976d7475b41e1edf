"""`a2a_app`: an ASGI (Starlette) app serving an agent, or any `AgentExecutor`, over
A2A's JSON-RPC binding, with its agent card at the well-known path."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import Any

from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskStore
from a2a.types import AgentCard
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from starlette.applications import Starlette
from starlette.middleware import Middleware

from automata.a2a._executor import AgentTarget, AgentTaskExecutor
from automata.core import ArgumentTypeError
from automata.web import GuardPolicy, WebGuard

__all__ = ["a2a_app"]

Lifespan = Callable[[], AbstractAsyncContextManager[None]]


def a2a_app(
    target: AgentTarget | AgentExecutor,
    *,
    card: AgentCard,
    rpc_path: str = "/",
    task_store: TaskStore | None = None,
    policy: GuardPolicy | None = None,
    lifespan: Lifespan | None = None,
) -> Starlette:
    """An ASGI app answering A2A JSON-RPC (`message/send`, `message/stream`,
    `tasks/get`, `tasks/list`, `tasks/cancel`, `tasks/resubscribe`) at `rpc_path` and
    serving `card` at `/.well-known/agent-card.json`, run with uvicorn or any ASGI
    server.

    `target` is an agent or agent factory (served by an `AgentTaskExecutor` with its
    defaults) or an executor of your own (e.g. `AgentTaskExecutor(...,
    ask_approval=...)` or `ThreadTaskExecutor`). Tasks are kept in `task_store` (the
    SDK's in-memory store by default; give a durable one, such as the SDK's
    `DatabaseTaskStore`, for tasks that outlive the process). `lifespan` is entered
    when the server starts and left when it stops (a `ThreadTaskExecutor`'s `opened`).

    Every request passes an `automata.web.WebGuard` with `policy` first: by default
    only the loopback host names are answered, posts from another site's page are
    refused, a post must be `application/json` and bodies are bounded to 1 MiB.
    Raises `ArgumentTypeError` for a `target` that is neither an agent, a factory nor
    an executor."""
    if isinstance(target, AgentExecutor):
        executor = target
    elif callable(target) or hasattr(target, "session"):
        executor = AgentTaskExecutor(target)
    else:
        raise ArgumentTypeError(
            f"a2a_app serves an Agent, an agent factory or an AgentExecutor, "
            f"not {type(target).__name__}"
        )
    handler = DefaultRequestHandler(
        agent_executor=executor,
        task_store=task_store if task_store is not None else InMemoryTaskStore(),
        agent_card=card,
    )
    routes = [
        *create_agent_card_routes(card, card_url=AGENT_CARD_WELL_KNOWN_PATH),
        *create_jsonrpc_routes(handler, rpc_url=rpc_path),
    ]

    @asynccontextmanager
    async def serving(_app: Any) -> AsyncIterator[None]:
        async with lifespan() if lifespan is not None else nullcontext():
            try:
                yield
            finally:
                await handler.aclose()  # its tasks end before what they use closes

    return Starlette(
        routes=routes,
        middleware=[Middleware(WebGuard, policy=policy)],
        lifespan=serving,
    )
