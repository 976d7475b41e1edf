"""Concurrent appends without a request key share one statement and its commit (group
commit), and each keeps what a lone append promises: its own fence, its own error,
all or nothing, one thread's appends in order; concurrent reads share one statement,
each answered with its own page."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg_pool import AsyncConnectionPool

from automata.core import InvalidArgumentError
from automata.postgres import PostgresStore
from automata.threads import LeaseLostError, ThreadNotFoundError
from automata.threads.store import Commit, NewRecord

THREADS = 10


@pytest.fixture
async def store(pg_server: str, schema: str) -> AsyncIterator[PostgresStore]:
    opened = PostgresStore(pg_server, schema=schema, max_size=4)
    await opened.open()
    try:
        for n in range(THREADS):
            await opened.create_thread(f"t{n}", [])
        yield opened
    finally:
        await opened.close()


def _commits_of(dsn: str, schema: str) -> dict[str, str]:
    """Each record's data, mapped to the transaction that inserted it (its xmin)."""
    with psycopg.connect(dsn, autocommit=True) as connection:
        rows = connection.execute(
            sql.SQL("SELECT data, xmin::text FROM {}.records").format(sql.Identifier(schema))
        ).fetchall()
    return {str(data): str(xmin) for data, xmin in rows}


async def test_concurrent_appends_to_different_threads_commit_in_one_transaction(
    store: PostgresStore, pg_server: str, schema: str
) -> None:
    commits = await asyncio.gather(
        *(store.append(f"t{n}", [NewRecord("note", f"r{n}")]) for n in range(THREADS))
    )
    assert [(c.first_seq, c.last_seq) for c in commits] == [(1, 1)] * THREADS
    assert len(set(_commits_of(pg_server, schema).values())) == 1


async def test_a_fenced_out_append_in_a_shared_commit_writes_nothing(
    store: PostgresStore,
) -> None:
    stale = await store.claim("t0", "old", 30)
    assert stale is not None
    await store.append("t0", [], revoke_lease=True)  # the old holder is fenced out
    current = await store.claim("t1", "host", 30)
    assert current is not None
    outcomes = await asyncio.gather(
        store.append("t0", [NewRecord("note", "late")], fence=stale),
        store.append("t1", [NewRecord("note", "fenced in")], fence=current),
        store.append("nope", [NewRecord("note", "lost")]),
        store.append("t2", [NewRecord("note", "plain")]),
        return_exceptions=True,
    )
    assert isinstance(outcomes[0], LeaseLostError)
    assert isinstance(outcomes[2], ThreadNotFoundError)
    assert outcomes[1] == Commit(1, 1)
    assert outcomes[3] == Commit(1, 1)
    assert await store.read("t0") == []
    assert [r.data for r in await store.read("t1")] == ["fenced in"]
    assert [r.data for r in await store.read("t2")] == ["plain"]


async def test_an_append_the_server_cannot_take_fails_alone_and_the_others_commit(
    store: PostgresStore,
) -> None:
    outcomes = await asyncio.gather(
        store.append("t0", [NewRecord("note", "fine")]),
        store.append("t1", [NewRecord("note", "bad \ud800 text")]),
        store.append("t2", [NewRecord("note", "also fine")]),
        return_exceptions=True,
    )
    assert isinstance(outcomes[1], InvalidArgumentError)
    assert outcomes[0] == Commit(1, 1)
    assert outcomes[2] == Commit(1, 1)
    assert await store.read("t1") == []
    assert [r.data for r in await store.read("t2")] == ["also fine"]


async def test_appends_to_one_thread_made_at_once_commit_in_the_order_they_were_made(
    store: PostgresStore,
) -> None:
    commits = await asyncio.gather(
        *(
            store.append("t0", [NewRecord("note", f"{n}a"), NewRecord("note", f"{n}b")])
            for n in range(5)
        )
    )
    assert [(c.first_seq, c.last_seq) for c in commits] == [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)]
    assert [r.data for r in await store.read("t0")] == [f"{n}{x}" for n in range(5) for x in "ab"]


async def test_appends_whose_callers_were_cancelled_all_commit_in_order_before_close(
    pg_server: str, schema: str
) -> None:
    store = PostgresStore(pg_server, schema=schema, max_size=2)
    await store.open()
    await store.create_thread("t", [])
    calls = [
        asyncio.ensure_future(store.append("t", [NewRecord("note", str(n))])) for n in range(20)
    ]
    await asyncio.sleep(0)
    for call in calls:
        call.cancel()
    await store.close()
    await store.open()
    try:
        assert [r.data for r in await store.read("t")] == [str(n) for n in range(20)]
    finally:
        await store.close()


async def test_a_shared_commit_does_not_wait_for_a_row_another_writer_holds(
    store: PostgresStore, pg_server: str, schema: str
) -> None:
    """A batch that waited for one row while holding others could deadlock with a
    writer locking them in another order (a tree's delete); it skips the held row and
    runs that append alone, once the lock is free."""
    async with await psycopg.AsyncConnection.connect(pg_server) as holder:
        await holder.execute(
            sql.SQL("SELECT 1 FROM {}.threads WHERE thread_id = 't1' FOR UPDATE").format(
                sql.Identifier(schema)
            )
        )
        free = asyncio.ensure_future(store.append("t0", [NewRecord("note", "free")]))
        held = asyncio.ensure_future(store.append("t1", [NewRecord("note", "held")]))
        assert await asyncio.wait_for(free, timeout=10) == Commit(1, 1)
        await asyncio.sleep(0.2)
        assert not held.done()  # waiting for the row lock, alone
        await holder.rollback()
    assert await asyncio.wait_for(held, timeout=10) == Commit(1, 1)
    assert [r.data for r in await store.read("t1")] == ["held"]


class _CountingPool(AsyncConnectionPool[psycopg.AsyncConnection[tuple[Any, ...]]]):
    """A pool that counts the connections it hands out."""

    handed_out = 0

    def connection(self, timeout: float | None = None) -> Any:
        self.handed_out += 1
        return super().connection(timeout)


async def test_reads_made_together_share_one_statement_and_each_gets_its_own_page(
    pg_server: str, schema: str
) -> None:
    pool = _CountingPool(pg_server, min_size=1, max_size=4, kwargs={"autocommit": True}, open=False)
    await pool.open(wait=True)
    store = PostgresStore(pool, schema=schema)
    await store.open()
    try:
        for n in range(THREADS):
            await store.create_thread(f"t{n}", [NewRecord("note", f"{n}.{k}") for k in range(n)])
        pool.handed_out = 0
        pages = await asyncio.gather(
            *(store.read(f"t{n}", after=1) for n in range(THREADS)),
            store.read("nope"),
            return_exceptions=True,
        )
        assert pool.handed_out == 1
        assert pages[:THREADS] == [await store.read(f"t{n}", after=1) for n in range(THREADS)]
        assert [[r.data for r in page] for page in pages[:3] if isinstance(page, list)] == [
            [],
            [],
            ["2.1"],
        ]
        assert isinstance(pages[THREADS], ThreadNotFoundError)
    finally:
        await store.close()
        await pool.close()
