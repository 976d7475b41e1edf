"""What the PostgreSQL store adds to the contract: tenants by schema, versioned
migrations, the database's clock, a pool the host owns, the change feed, request-key
races settled by the database, and writes that finish whole when their caller is
cancelled."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import psycopg
import pytest
from psycopg import sql
from psycopg_pool import AsyncConnectionPool

from automata.postgres import SCHEMA_VERSION, PostgresStore
from automata.postgres import _schema as schema_
from automata.threads import StoreClosedError, ThreadNotFoundError
from automata.threads.store import NewRecord, RequestClaim


def _versions(dsn: str, schema: str) -> list[int]:
    with psycopg.connect(dsn, autocommit=True) as connection:
        rows = connection.execute(
            sql.SQL("SELECT version FROM {}.threads_migrations ORDER BY version").format(
                sql.Identifier(schema)
            )
        ).fetchall()
    return [int(row[0]) for row in rows]


@pytest.mark.parametrize(
    "name", ["", "Upper", "1st", "with-dash", "a" * 49, "pg_catalog", 'x"; drop', "é"]
)
def test_a_schema_name_must_be_a_plain_lowercase_identifier(name: str) -> None:
    with pytest.raises(ValueError, match="schema must be a lowercase identifier"):
        PostgresStore("postgresql://nowhere/db", schema=name)


async def test_tenants_on_different_schemas_share_nothing(
    pg_server: str, new_schema: Callable[[], str]
) -> None:
    one, two = (
        PostgresStore(pg_server, schema=new_schema()),
        PostgresStore(pg_server, schema=new_schema()),
    )
    await one.open()
    await two.open()
    try:
        await one.create_thread("t", [NewRecord("note", "one's")], active=True)
        assert await two.thread("t") is None
        await two.create_thread("t", [NewRecord("note", "two's")], active=True)
        assert await one.claim("t", "a", 30) is not None
        assert await two.claim("t", "b", 30) is not None  # another tenant's lease
        assert [r.data for r in await two.read("t")] == ["two's"]
        assert await two.claimable() == []
    finally:
        await one.close()
        await two.close()


async def test_migrations_are_versioned_applied_once_and_an_older_schema_is_upgraded(
    pg_server: str, schema: str
) -> None:
    phases: list[str] = []
    store = PostgresStore(pg_server, schema=schema)
    await store.open(phases.append)
    await store.close()
    assert phases == ["migrating", "verifying"]
    assert _versions(pg_server, schema) == list(range(1, SCHEMA_VERSION + 1))
    phases.clear()
    await store.open(phases.append)
    await store.close()
    assert phases == ["verifying"]

    # A schema left at version 1 by older code is brought up to date at open.
    older = schema + "_v1"
    name = sql.Identifier(older)
    with psycopg.connect(pg_server, autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE SCHEMA {}").format(name))
        connection.execute(
            sql.SQL(
                "CREATE TABLE {}.threads_migrations (version integer PRIMARY KEY, "
                "applied_at timestamptz NOT NULL DEFAULT clock_timestamp())"
            ).format(name)
        )
        for statement in schema_.MIGRATIONS[0]:
            connection.execute(sql.SQL(statement).format(schema=name))
        connection.execute(sql.SQL("INSERT INTO {}.threads_migrations VALUES (1)").format(name))
    phases.clear()
    upgraded = PostgresStore(pg_server, schema=older)
    await upgraded.open(phases.append)
    await upgraded.close()
    assert phases == ["migrating", "verifying"]
    assert _versions(pg_server, older) == list(range(1, SCHEMA_VERSION + 1))


async def test_the_clock_is_the_database_servers(pg_server: str, schema: str) -> None:
    store = PostgresStore(pg_server, schema=schema)
    await store.open()
    try:
        with psycopg.connect(pg_server, autocommit=True) as connection:
            found = connection.execute(
                "SELECT extract(epoch FROM clock_timestamp())::float8"
            ).fetchone()
        assert found is not None
        assert abs(await store.now() - float(found[0])) < 1.0
        await store.create_thread("t", [])
        before = await store.now()
        lease = await store.claim("t", "a", 60)
        assert lease is not None
        assert before + 60 <= lease.expires_at <= await store.now() + 60
    finally:
        await store.close()
    assert abs(await store.now() - before) < 5.0  # closed: the clock offset measured at open


async def test_a_pool_the_host_owns_is_used_and_left_open(pg_server: str, schema: str) -> None:
    pool: AsyncConnectionPool[psycopg.AsyncConnection[tuple[object, ...]]] = AsyncConnectionPool(
        pg_server, min_size=1, max_size=4, open=False
    )
    await pool.open()
    try:
        store = PostgresStore(pool, schema=schema)
        await store.open()
        await store.create_thread("t", [NewRecord("note", "a")])
        await store.append("t", [NewRecord("note", "b")])
        assert [r.data for r in await store.read("t")] == ["a", "b"]
        async with contextlib.aclosing(store.changes()) as feed:
            reader = asyncio.ensure_future(anext(feed))
            while not reader.done():
                await store.append("t", [NewRecord("note", "ping")])
                await asyncio.wait({reader}, timeout=0.1)
            assert reader.result() == "t"
        await store.close()
        async with pool.connection() as connection:
            cursor = await connection.execute("SELECT 1")
            assert await cursor.fetchone() == (1,)
    finally:
        await pool.close()


async def test_the_change_feed_names_each_thread_committed_to_and_ends_at_close(
    pg_server: str, schema: str
) -> None:
    writer, watcher = (
        PostgresStore(pg_server, schema=schema),
        PostgresStore(pg_server, schema=schema),
    )
    with pytest.raises(StoreClosedError):
        await anext(watcher.changes())
    await writer.open()
    await watcher.open()
    feed = watcher.changes()
    first = asyncio.ensure_future(anext(feed))
    n = 0
    while not first.done():  # the feed listens from its first step: write until it hears
        n += 1
        await writer.create_thread(f"warm{n}", [])
        await asyncio.wait({first}, timeout=0.1)
    await writer.create_thread("parent", [])
    await writer.create_thread("child", [], parent_id="parent")
    await writer.append("child", [NewRecord("note", "x")])
    await writer.delete_thread("parent")
    heard: list[str] = []
    while len(heard) < 5:
        heard.append(await asyncio.wait_for(anext(feed), 5))
    assert [h for h in heard if not h.startswith("warm")][-5:] == heard[-5:]
    assert heard[-5:-2] == ["parent", "child", "child"]
    assert sorted(heard[-2:]) == ["child", "parent"]  # one delete names every thread it took
    await watcher.close()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(anext(feed), 5)
    await writer.close()


async def test_racing_first_uses_of_one_request_key_commit_once(
    pg_server: str, schema: str
) -> None:
    store = PostgresStore(pg_server, schema=schema)
    await store.open()
    try:
        for round_ in range(5):
            key = RequestClaim(f"create-{round_}", "same input", "created")
            creates = await asyncio.gather(
                *(
                    store.create_thread(f"x{round_}", [NewRecord("note", "hi")], request=key)
                    for _ in range(8)
                )
            )
            assert sorted(c.duplicate for c in creates) == [False] + [True] * 7
            assert {c.outcome for c in creates if c.duplicate} == {"created"}
        await store.create_thread("x", [])
        await store.create_thread("y", [])
        shared = RequestClaim("one-key", "same input", "appended")
        appends = await asyncio.gather(
            *(
                store.append(thread, [NewRecord("note", "once")], request=shared)
                for thread in ("x", "y") * 4
            )
        )
        assert sorted(c.duplicate for c in appends) == [False] + [True] * 7
        once = [r.data for t in ("x", "y") for r in await store.read(t)].count("once")
        assert once == 1
    finally:
        await store.close()


async def test_a_cancelled_write_still_commits_whole(pg_server: str, schema: str) -> None:
    store = PostgresStore(pg_server, schema=schema)
    await store.open()
    try:
        await store.create_thread("t", [])
        records = [NewRecord("note", str(i)) for i in range(200)]
        write = asyncio.ensure_future(store.append("t", records))
        await asyncio.sleep(0.01)
        write.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await write
    finally:
        await store.close()  # waits for the shielded write to end
    await store.open()
    try:
        kept = await store.read("t")
        assert len(kept) in (0, 200)
        assert (await store.thread("t")).last_seq == len(kept)  # type: ignore[union-attr]
    finally:
        await store.close()


async def test_deleting_a_tree_while_its_threads_are_written_leaves_nothing_behind(
    pg_server: str, schema: str
) -> None:
    store = PostgresStore(pg_server, schema=schema, max_size=8)
    await store.open()
    try:
        for _ in range(5):
            await store.create_thread("root", [])
            await store.create_thread("child", [], parent_id="root")

            async def write(thread_id: str) -> None:
                with contextlib.suppress(ThreadNotFoundError):
                    for n in range(5):
                        await store.append(thread_id, [NewRecord("note", str(n))])

            async def grow() -> None:
                with contextlib.suppress(ThreadNotFoundError):
                    await store.create_thread("grandchild", [], parent_id="child")

            await asyncio.gather(write("child"), write("root"), grow(), store.delete_thread("root"))
            assert await store.list_threads() == []
            assert await store.thread("grandchild") is None
            await store.create_thread("child", [NewRecord("note", "new")])
            assert [r.data for r in await store.read("child")] == ["new"]
            await store.delete_thread("child")
    finally:
        await store.close()


async def test_the_server_ends_a_stalled_transaction_of_the_stores_pool(
    pg_server: str, schema: str
) -> None:
    """A host paused mid-transaction would hold its row locks; the server ends such a
    transaction after `stalled_transaction_timeout`, and the other hosts go on."""
    store = PostgresStore(pg_server, schema=schema, stalled_transaction_timeout=0.3)
    await store.open()
    try:
        await store.create_thread("t", [])
        pool = store._pool  # the store's own pool: stall one of its connections by hand
        assert pool is not None
        async with pool.connection() as stalled:
            await stalled.execute("BEGIN")
            await stalled.execute(
                sql.SQL("SELECT 1 FROM {}.threads WHERE thread_id = 't' FOR UPDATE").format(
                    sql.Identifier(schema)
                )
            )
            async with asyncio.timeout(5):  # waits for the lock until the server ends it
                assert await store.claim("t", "other-host", 30) is not None
            with pytest.raises(psycopg.errors.IdleInTransactionSessionTimeout):
                await stalled.execute("SELECT 1")
    finally:
        await store.close()
