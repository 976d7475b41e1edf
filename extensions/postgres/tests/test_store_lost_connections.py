"""What the PostgreSQL store does when a connection is lost under a call: a connection
the server dropped while idle is replaced before use; a call whose connection breaks
mid-way runs again on a fresh one only when that cannot apply it twice (a read, a
write broken before its commit, a write with a request key); a write without one lost
during its commit fails closed with `StoreUnavailableError(committed=None)` and is
never sent again.

A trigger the test installs (`stall`) makes the store's backend sleep at a chosen
point, once (a sequence counts the sleeps: sequences do not roll back), and the test
terminates the backend while it sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import psycopg
import pytest
from automata_pg_testing import Backends
from psycopg import sql

from automata.postgres import PostgresStore
from automata.postgres._connections import check_dropped
from automata.threads import StoreUnavailableError
from automata.threads.store import NewRecord, RequestClaim


@pytest.fixture
async def named_store(backends: Backends, schema: str) -> AsyncIterator[tuple[PostgresStore, str]]:
    dsn, name = backends.named()
    store = PostgresStore(dsn, schema=schema, max_size=2)
    await store.open()
    try:
        yield store, name
    finally:
        await store.close()


def stall(dsn: str, schema: str, *, table: str, at_commit: bool) -> None:
    """Make the first insert into `table` sleep: at once (inside its statement), or,
    `at_commit`, when its transaction commits (a deferred constraint trigger)."""
    s = sql.Identifier(schema)
    when = (
        sql.SQL("CONSTRAINT TRIGGER stall AFTER INSERT ON {}.{} DEFERRABLE INITIALLY DEFERRED")
        if at_commit
        else sql.SQL("TRIGGER stall AFTER INSERT ON {}.{}")
    ).format(s, sql.Identifier(table))
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE SEQUENCE {}.stalls").format(s))
        admin.execute(
            sql.SQL(
                "CREATE FUNCTION {s}.stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "IF nextval('{s}.stalls') = 1 THEN PERFORM pg_sleep(30); END IF; "
                "RETURN NULL; END $$"
            ).format(s=s)
        )
        admin.execute(sql.SQL("CREATE {} FOR EACH ROW EXECUTE FUNCTION {}.stall()").format(when, s))


async def terminated_mid_call(backends: Backends, name: str, call: asyncio.Task[object]) -> None:
    await asyncio.to_thread(backends.terminate_when_sleeping, name)
    await asyncio.wait({call}, timeout=20)
    assert call.done()


async def test_connections_the_server_dropped_while_idle_are_replaced_before_use(
    named_store: tuple[PostgresStore, str], backends: Backends
) -> None:
    store, name = named_store
    await store.create_thread("t", [NewRecord("note", "one")])
    assert await asyncio.to_thread(backends.terminate, name) >= 1
    commit = await store.append("t", [NewRecord("note", "two")])  # not keyed: runs once
    assert (commit.first_seq, commit.last_seq) == (2, 2)
    assert [record.data for record in await store.read("t")] == ["one", "two"]


async def test_a_write_without_a_request_key_lost_during_its_commit_fails_closed_and_is_not_resent(
    named_store: tuple[PostgresStore, str], backends: Backends, schema: str
) -> None:
    store, name = named_store
    await store.create_thread("t", [])
    stall(backends.dsn, schema, table="records", at_commit=True)
    call = asyncio.ensure_future(store.append("t", [NewRecord("note", "once")]))
    await terminated_mid_call(backends, name, call)
    with pytest.raises(StoreUnavailableError, match="unknown") as lost:
        await call
    assert lost.value.committed is None
    assert await store.read("t") == []  # the server rolled it back; it was not sent again


async def test_a_keyed_write_lost_during_its_commit_is_sent_again_and_applied_once(
    named_store: tuple[PostgresStore, str], backends: Backends, schema: str
) -> None:
    store, name = named_store
    await store.create_thread("t", [])
    stall(backends.dsn, schema, table="records", at_commit=True)
    request = RequestClaim("send-1", "fingerprint", "outcome")
    call = asyncio.ensure_future(store.append("t", [NewRecord("note", "once")], request=request))
    await terminated_mid_call(backends, name, call)
    commit = await call
    assert (commit.first_seq, commit.last_seq, commit.duplicate) == (1, 1, False)
    assert [record.data for record in await store.read("t")] == ["once"]
    again = await store.append("t", [NewRecord("note", "once")], request=request)
    assert again.duplicate  # the key was committed with it


async def test_a_write_broken_before_its_commit_is_run_again_on_a_fresh_connection(
    named_store: tuple[PostgresStore, str], backends: Backends, schema: str
) -> None:
    store, name = named_store
    stall(backends.dsn, schema, table="threads", at_commit=False)
    call = asyncio.ensure_future(store.create_thread("t", [NewRecord("note", "first")]))
    await terminated_mid_call(backends, name, call)
    commit = await call  # the transaction had not reached COMMIT: it was rolled back
    assert (commit.first_seq, commit.last_seq) == (1, 1)
    assert [record.data for record in await store.read("t")] == ["first"]


async def test_the_check_sends_nothing_on_a_live_connection_and_refuses_a_dropped_one(
    backends: Backends,
) -> None:
    dsn, name = backends.named()
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as connection:
        await connection.execute("SELECT 'the last statement'")
        await check_dropped(connection)
        with psycopg.connect(backends.dsn, autocommit=True) as admin:
            seen = admin.execute(
                "SELECT query FROM pg_stat_activity WHERE application_name = %s", (name,)
            ).fetchone()
        assert seen == ("SELECT 'the last statement'",)  # no round trip was made
        assert await asyncio.to_thread(backends.terminate, name) == 1
        with pytest.raises(psycopg.OperationalError):
            await check_dropped(connection)
