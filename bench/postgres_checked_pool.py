"""What checking each pooled connection before use costs the PostgreSQL store.

Run: uv run python bench/postgres_checked_pool.py [--calls 1000] [--rounds 9] [--dsn ...]

The store's own pool checks every connection it hands out (`check_dropped`: a look at
the socket, and a round trip only when something is waiting there) so that a
connection the server dropped while idle is replaced before use. The baseline is the
same store on a pool of the same size without a check (a pool the host owns); beside
it, a pool checked with `AsyncConnectionPool.check_connection` (an empty query each
time). Each round makes
`--calls` journal calls (an unkeyed append, then a read of the new record) on each, in
turn; the figure is calls per second, and the ratio checked / unchecked, per round
and its median.
A throwaway server is started unless `--dsn` or `AUTOMATA_TEST_PG_DSN` names one.
Benchmarks measure; they never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import time
import uuid
from collections.abc import Iterator

from automata_pg_testing import throwaway_postgres
from psycopg import AsyncConnection
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool

from automata.postgres import PostgresStore
from automata.threads.store import NewRecord


async def calls_per_second(store: PostgresStore, calls: int) -> float:
    thread_id = f"bench-{uuid.uuid4().hex[:8]}"
    await store.create_thread(thread_id, [])
    started = time.perf_counter()
    for n in range(calls // 2):
        commit = await store.append(thread_id, [NewRecord("note", str(n))])
        await store.read(thread_id, after=commit.first_seq - 1, limit=1)
    return calls / (time.perf_counter() - started)


async def main(dsn: str, calls: int, rounds: int) -> None:
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    checked = PostgresStore(dsn, schema=schema, min_size=1, max_size=1)
    pool: AsyncConnectionPool[AsyncConnection[TupleRow]] = AsyncConnectionPool(
        dsn, min_size=1, max_size=1, kwargs={"autocommit": True}, open=False
    )
    queried: AsyncConnectionPool[AsyncConnection[TupleRow]] = AsyncConnectionPool(
        dsn,
        min_size=1,
        max_size=1,
        kwargs={"autocommit": True},
        check=AsyncConnectionPool.check_connection,
        open=False,
    )
    await pool.open(wait=True)
    await queried.open(wait=True)
    unchecked = PostgresStore(pool, schema=schema)
    query_checked = PostgresStore(queried, schema=schema)
    for store in (checked, unchecked, query_checked):
        await store.open()
    try:
        print(f"{calls} calls per round, one connection each, on {dsn.split('@')[-1]}")
        ours, theirs = [], []
        for round_ in range(1, rounds + 1):
            base = await calls_per_second(unchecked, calls)
            with_check = await calls_per_second(checked, calls)
            with_query = await calls_per_second(query_checked, calls)
            ours.append(with_check / base)
            theirs.append(with_query / base)
            print(
                f"round {round_}: unchecked {base:6.0f} calls/s, store's check "
                f"{with_check:6.0f} ({ours[-1]:.2f}x), empty-query check {with_query:6.0f} "
                f"({theirs[-1]:.2f}x)"
            )
        print(
            f"median against unchecked: store's check {statistics.median(ours):.2f}x, "
            f"empty-query check {statistics.median(theirs):.2f}x"
        )
    finally:
        for store in (checked, unchecked, query_checked):
            await store.close()
        await pool.close()
        await queried.close()


@contextlib.contextmanager
def server(dsn: str | None) -> Iterator[str]:
    if dsn is not None:
        yield dsn
        return
    with throwaway_postgres() as started:
        yield started


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--dsn")
    options = parser.parse_args()
    with server(options.dsn) as dsn:
        asyncio.run(main(dsn, options.calls, options.rounds))
