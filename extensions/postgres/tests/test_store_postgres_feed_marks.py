"""The PostgreSQL change feed marks the ids of the store's own commits, and a store's
thread rows asked for together come in one statement, each its own answer."""

from __future__ import annotations

import asyncio
import contextlib

from automata.postgres import PostgresStore
from automata.threads.store import NewRecord


async def test_the_feed_marks_commits_made_through_its_own_store_and_only_those(
    pg_server: str, schema: str
) -> None:
    mine, theirs = PostgresStore(pg_server, schema=schema), PostgresStore(pg_server, schema=schema)
    await mine.open()
    await theirs.open()
    try:
        await mine.create_thread("warm", [])
        async with contextlib.aclosing(mine.changes()) as feed:
            first = asyncio.ensure_future(anext(feed))
            while not first.done():  # the feed listens from its first step
                await mine.append("warm", [NewRecord("note", "w")])
                await asyncio.wait({first}, timeout=0.1)
            await theirs.create_thread("other", [])
            await mine.create_thread("own", [])
            heard = [first.result()]
            while heard[-1] != "own":
                heard.append(await asyncio.wait_for(anext(feed), 5))
        marks = {str(h): getattr(h, "committed_here", False) for h in heard}
        assert marks == {"warm": True, "other": False, "own": True}
    finally:
        await mine.close()
        await theirs.close()


async def test_thread_rows_asked_for_together_each_answer_their_own_thread(
    pg_server: str, schema: str
) -> None:
    store = PostgresStore(pg_server, schema=schema)
    await store.open()
    try:
        for n in range(5):
            await store.create_thread(f"t{n}", [NewRecord("note", "x")] * n, summary=f"s{n}")
        asked = [f"t{n}" for n in range(5)] + ["missing", "t3"]
        rows = await asyncio.gather(*(store.thread(thread_id) for thread_id in asked))
        assert [None if row is None else (row.thread_id, row.last_seq) for row in rows] == [
            ("t0", 0),
            ("t1", 1),
            ("t2", 2),
            ("t3", 3),
            ("t4", 4),
            None,
            ("t3", 3),
        ]
        assert [row.summary for row in rows if row is not None] == [
            "s0",
            "s1",
            "s2",
            "s3",
            "s4",
            "s3",
        ]
    finally:
        await store.close()
