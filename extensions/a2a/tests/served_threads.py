"""The durable server the tests run as a process (`python served.py threads <port>
<db>`): a thread service on the SQLite file `db`, its A2A tasks in `<db>.tasks`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from a2a.server.tasks import DatabaseTaskStore
from served import charge  # type: ignore[import-not-found]
from sqlalchemy.ext.asyncio import create_async_engine
from starlette.applications import Starlette

from automata.a2a import ThreadTaskExecutor, a2a_app, agent_card
from automata.core import Agent
from automata.core.providers import ModelRequest
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import (
    AgentRequest,
    Host,
    SQLiteStore,
    ThreadService,
    ask_user_tool,
    require_approval,
)


def _charges_or_asks(request: ModelRequest) -> Reply:
    """`charge ...` calls `charge` (gated) and reports its result; anything else asks
    which colour and reports the answer."""
    last = request.messages[-1]
    results = [b for b in last.content if b.type == "tool_result"]
    if results and results[0].tool_use_id == "q-1":
        return f"You chose {results[0].text}."
    if results:
        return f"The tool said: {results[0].text}"
    if last.text.startswith("charge"):
        return tool_calls(tool_call("call-1", "charge", amount=5), text="Working on it. ")
    return tool_calls(tool_call("q-1", "ask_user", question="Which colour?"))


def _agent(request: AgentRequest | None = None) -> Agent[object]:
    return Agent(
        FunctionProvider(_charges_or_asks),
        name="durable",
        tools=[charge, ask_user_tool()],
        approver=require_approval("charge"),
    )


def threads_app(url: str, db: str) -> Starlette:
    @asynccontextmanager
    async def threads() -> AsyncIterator[ThreadService]:
        host = await Host.open(SQLiteStore(db), poll_interval=0.05, lease_ttl=2.0)
        try:
            yield host.thread_service(_agent)
        finally:
            await host.shutdown()

    executor = ThreadTaskExecutor(threads)
    engine = create_async_engine(f"sqlite+aiosqlite:///{db}.tasks")
    return a2a_app(
        executor,
        card=agent_card(_agent(), url=url),
        task_store=DatabaseTaskStore(engine),
        lifespan=executor.opened,
    )
