"""A durable append commits with `synchronous_commit = on` whatever the session's
default (a pool configured `off` for speed still waits for the WAL flush of the commit
that dispatches a tool call), and text that is not valid Unicode is refused as an
invalid argument, committing nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing, asynccontextmanager

import psycopg
import pytest
from psycopg import sql
from psycopg_pool import AsyncConnectionPool

from automata.core import Agent, InvalidArgumentError, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.postgres import PostgresStore
from automata.threads import Host, ThreadService, ThreadView
from automata.threads.store import NewRecord, RequestClaim

LONE = "bad \ud800 text"


@asynccontextmanager
async def _store_with_commits_off(
    dsn: str, schema: str, setting: str = "off"
) -> AsyncIterator[PostgresStore]:
    """An unopened store on a pool whose sessions default to `synchronous_commit =
    setting` (`off`, as a deployment tuned for speed would set it)."""
    pool: AsyncConnectionPool[psycopg.AsyncConnection[tuple[object, ...]]] = AsyncConnectionPool(
        dsn,
        min_size=1,
        max_size=4,
        kwargs={"autocommit": True, "options": f"-c synchronous_commit={setting}"},
        open=False,
    )
    await pool.open(wait=True)
    try:
        yield PostgresStore(pool, schema=schema)
    finally:
        await pool.close()


def _watch_commits(dsn: str, schema: str) -> None:
    """Note, for every record inserted, its kind and the `synchronous_commit` its
    transaction runs at (in a table outside the store's schema)."""
    watch = sql.Identifier(f"{schema}_watch")
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE SCHEMA {}").format(watch))
        connection.execute(sql.SQL("CREATE TABLE {}.seen (kind text, setting text)").format(watch))
        connection.execute(
            sql.SQL(
                "CREATE FUNCTION {}.note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "INSERT INTO {}.seen VALUES (NEW.kind, current_setting('synchronous_commit')); "
                "RETURN NEW; END $$"
            ).format(watch, watch)
        )
        connection.execute(
            sql.SQL(
                "CREATE TRIGGER watch AFTER INSERT ON {}.records "
                "FOR EACH ROW EXECUTE FUNCTION {}.note()"
            ).format(sql.Identifier(schema), watch)
        )


def _seen(dsn: str, schema: str) -> list[tuple[str, str]]:
    watch = sql.Identifier(f"{schema}_watch")
    with psycopg.connect(dsn, autocommit=True) as connection:
        rows = connection.execute(sql.SQL("SELECT kind, setting FROM {}.seen").format(watch))
        return [(str(kind), str(setting)) for kind, setting in rows.fetchall()]


async def test_a_durable_append_commits_synchronously_though_the_session_default_is_off(
    pg_server: str, schema: str
) -> None:
    async with _store_with_commits_off(pg_server, schema) as store:
        await store.open()
        try:
            _watch_commits(pg_server, schema)
            await store.create_thread("t", [NewRecord("plain", "a")])
            await store.append("t", [NewRecord("plain", "b")])
            await store.append("t", [NewRecord("durable", "c")], durable=True)
            claim = RequestClaim("k", "f", "o")
            await store.append("t", [NewRecord("durable", "d")], durable=True, request=claim)
            await store.append("t", [NewRecord("plain", "e")])
            assert [r.data for r in await store.read("t")] == ["a", "b", "c", "d", "e"]
        finally:
            await store.close()
    assert _seen(pg_server, schema) == [
        ("plain", "off"),
        ("plain", "off"),
        ("durable", "on"),
        ("durable", "on"),
        ("plain", "off"),
    ]


@pytest.mark.parametrize("setting", ["local", "remote_apply"])
async def test_a_durable_append_keeps_a_session_setting_that_already_flushes(
    pg_server: str, schema: str, setting: str
) -> None:
    async with _store_with_commits_off(pg_server, schema, setting) as store:
        await store.open()
        try:
            _watch_commits(pg_server, schema)
            await store.create_thread("t", [])
            await store.append("t", [NewRecord("durable", "a")], durable=True)
        finally:
            await store.close()
    assert _seen(pg_server, schema) == [("durable", setting)]


async def _settled(service: ThreadService, thread_id: str) -> ThreadView:
    async with asyncio.timeout(10.0), aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status != "running":
                return view
    raise AssertionError("the subscription ended before the thread settled")


async def test_the_dispatched_record_commits_synchronously_before_the_tool_runs(
    pg_server: str, schema: str
) -> None:
    ran: list[list[tuple[str, str]]] = []

    def charge(amount: int) -> str:
        """Not idempotent: it must never run twice."""
        ran.append(_seen(pg_server, schema))
        return f"charged {amount}"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "charge", amount=5)), "charged"])
    agent = Agent(provider, system_prompt="pay", tools=[tool(charge)])
    async with _store_with_commits_off(pg_server, schema) as store:
        host = await Host.open(store, poll_interval=0.05)
        try:
            _watch_commits(pg_server, schema)
            service = host.thread_service(lambda request: agent)
            thread = await service.create(request_key="create")
            await service.send(thread.thread_id, "pay", request_key="send")
            view = await _settled(service, thread.thread_id)
        finally:
            await host.shutdown()
    assert view.status == "done"
    assert len(ran) == 1
    assert ("dispatched", "on") in ran[0]
    # the model step and its dispatch commit together; every other commit keeps the
    # session's default
    assert [kind for kind, setting in _seen(pg_server, schema) if setting == "on"] == [
        "step",
        "dispatched",
    ]


async def test_a_lone_surrogate_is_refused_as_an_invalid_argument(
    pg_server: str, schema: str
) -> None:
    store = PostgresStore(pg_server, schema=schema, min_size=1, max_size=2)
    await store.open()
    try:
        await store.create_thread("t", [NewRecord("note", "kept")])
        calls: list[Callable[[], Awaitable[object]]] = [
            lambda: store.create_thread(LONE, []),
            lambda: store.append("t", [NewRecord("note", LONE)]),
            lambda: store.append("t", [NewRecord("note", "x")], summary=LONE),
            lambda: store.append(
                "t", [NewRecord("note", "x")], request=RequestClaim(LONE, "f", "o")
            ),
            lambda: store.read(LONE),
            lambda: store.thread(LONE),
            lambda: store.claim("t", LONE, 10.0),
        ]
        for call in calls:
            with pytest.raises(InvalidArgumentError, match="surrogate"):
                await call()
        assert [record.data for record in await store.read("t")] == ["kept"]
    finally:
        await store.close()
