"""The durable server the tests run as a process (`python served.py threads <port>
<db>`): a thread service on the SQLite file `db`, its A2A tasks in `<db>.tasks`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from a2a.server.tasks import DatabaseTaskStore
from served import _calls_then_reports, charge
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


def _asks_then_reports(request: ModelRequest) -> Reply:
    last = request.messages[-1]
    results = [b for b in last.content if b.type == "tool_result"]
    if results:
        return f"You chose {results[0].text}."
    return tool_calls(tool_call("q-1", "ask_user", question="Which colour?"))


def _agent(request: AgentRequest | None = None) -> Agent[object]:
    return Agent(
        _calls_then_reports("charge", amount=5),
        name="durable",
        tools=[charge],
        approver=require_approval("charge"),
    )


def _factory(request: AgentRequest) -> Agent[object]:
    return _agent()


def _questions(request: AgentRequest) -> Agent[object]:
    return Agent(FunctionProvider(_asks_then_reports), name="asker", tools=[ask_user_tool()])


def threads_app(url: str, db: str) -> Starlette:
    asker = db.endswith("-questions.db")

    @asynccontextmanager
    async def threads() -> AsyncIterator[ThreadService]:
        host = await Host.open(SQLiteStore(db), poll_interval=0.05, lease_ttl=2.0)
        try:
            yield host.thread_service(_questions if asker else _factory)
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
