"""A durable thread on PostgreSQL survives losing its connections mid-turn: the
server terminating them (`pg_terminate_backend`, as cloud databases and proxies do to
idle connections during a long model call) and the server restarting (fast shutdown
and immediate), while the model call is in flight. The turn resumes with nothing lost:
the acknowledged send is in the view, the answer is there, the turn is done, and the
non-idempotent tool ran once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing, asynccontextmanager

import pytest
from automata_pg_testing import (
    Backends,
    LocalPostgres,
    PostgresUnavailable,
    local_postgres,
    require_postgres,
)

from automata.core import Agent, ModelRequest, tool
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.postgres import PostgresStore
from automata.threads import AgentRequest, Host, ThreadService, ThreadView


class ScriptedModel:
    """A model that calls `charge` and then answers "paid"; each call waits, once it
    has begun, until the test lets it go on (`proceed`), or not at all once `free`."""

    def __init__(self) -> None:
        self.calls = 0
        self.free = False
        self.began = asyncio.Event()
        self.go_on = asyncio.Event()

    async def __call__(self, request: ModelRequest) -> Reply:
        self.calls += 1
        self.began.set()
        if not self.free:
            await self.go_on.wait()
            self.go_on.clear()
        answered = any(
            block.type == "tool_result" for message in request.messages for block in message.content
        )
        return "paid" if answered else tool_calls(tool_call("c1", "charge", amount=5))

    async def in_call(self) -> None:
        """Wait until a model call has begun (and is blocked)."""
        await asyncio.wait_for(self.began.wait(), 20)
        self.began.clear()

    def proceed(self) -> None:
        self.go_on.set()

    def let_go(self) -> None:
        """Let this call and every later one go on at once."""
        self.free = True
        self.go_on.set()


class Turn:
    """A host on a PostgreSQL store whose agent charges once per turn (not
    idempotently) and counts the charges."""

    def __init__(self, service: ThreadService, model: ScriptedModel, charges: list[int]) -> None:
        self.service, self.model, self.charges = service, model, charges

    async def settled(self, thread_id: str) -> ThreadView:
        async with asyncio.timeout(40), aclosing(self.service.subscribe(thread_id)) as views:
            async for view in views:
                if view.status not in ("running", "waiting"):
                    return view
        raise AssertionError("the subscription ended before the thread settled")


@asynccontextmanager
async def hosted(dsn: str, schema: str) -> AsyncIterator[Turn]:
    model = ScriptedModel()
    charges: list[int] = []

    async def charge(amount: int) -> str:
        charges.append(amount)
        return f"charged {amount}"

    def factory(request: AgentRequest) -> Agent[None]:
        return Agent(
            FunctionProvider(model),
            system_prompt="You take payments.",
            tools=[tool(charge, name="charge")],
        )

    store = PostgresStore(dsn, schema=schema, max_size=4)
    host = await Host.open(store, lease_ttl=3.0, poll_interval=0.05)
    try:
        yield Turn(host.thread_service(factory), model, charges)
    finally:
        await host.shutdown()


def assert_paid_once(view: ThreadView, turn: Turn) -> None:
    assert view.status == "done"
    kinds = [[item.kind, item.status, item.text or item.result] for item in view.items]
    assert kinds[0][0::2] == ["user", "pay 5"]
    assert kinds[1] == ["tool_call", "done", "charged 5"]
    assert kinds[2][0::2] == ["assistant", "paid"]
    assert len(kinds) == 3
    assert turn.charges == [5]


async def test_a_turn_survives_its_connections_terminated_during_each_model_call(
    backends: Backends, schema: str
) -> None:
    dsn, name = backends.named()
    async with hosted(dsn, schema) as turn:
        thread = await turn.service.create(request_key="create")
        await turn.service.send(thread.thread_id, "pay 5", request_key="send")
        for _ in range(2):  # the call that asks for the tool, then the one that answers
            await turn.model.in_call()
            assert await asyncio.to_thread(backends.terminate, name) >= 1
            turn.model.proceed()
        view = await turn.settled(thread.thread_id)
    assert_paid_once(view, turn)
    assert turn.model.calls == 2  # nothing was re-sent: each step committed at once


@pytest.fixture(scope="module")
def own_server() -> Iterator[LocalPostgres]:
    """A server of this module's own, which its tests restart (the session's shared
    server is left alone); synchronous commit is on, so an immediate shutdown loses no
    acknowledged commit."""
    try:
        with local_postgres(synchronous_commit=True) as server:
            yield server
    except PostgresUnavailable as error:
        require_postgres(error)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_a_turn_survives_the_server_restarting_during_its_model_call(
    own_server: LocalPostgres, schema: str, mode: str
) -> None:
    async with hosted(own_server.dsn, schema) as turn:
        thread = await turn.service.create(request_key="create")
        await turn.service.send(thread.thread_id, "pay 5", request_key="send")  # acknowledged
        await turn.model.in_call()
        await asyncio.to_thread(own_server.restart, mode)
        turn.model.proceed()
        await turn.model.in_call()
        turn.model.proceed()
        view = await turn.settled(thread.thread_id)
    assert_paid_once(view, turn)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_a_turn_whose_model_returns_while_the_server_is_down_goes_on_once_it_is_back(
    own_server: LocalPostgres, schema: str, mode: str
) -> None:
    async with hosted(own_server.dsn, schema) as turn:
        thread = await turn.service.create(request_key="create")
        await turn.service.send(thread.thread_id, "pay 5", request_key="send")
        await turn.model.in_call()
        await asyncio.to_thread(own_server.stop, mode)
        try:
            turn.model.let_go()  # the step's commit now finds no server
            await asyncio.sleep(1.5)
        finally:
            await asyncio.to_thread(own_server.start)
        view = await turn.settled(thread.thread_id)
    assert_paid_once(view, turn)
    assert turn.model.calls == 2  # the step waited for the server: the call was not re-sent
