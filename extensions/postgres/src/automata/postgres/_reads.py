"""The reads and lease calls of the PostgreSQL store: each a single statement (or,
where an answer needs a second look, a second one), committing by itself."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from psycopg import AsyncConnection
from psycopg.rows import TupleRow

from automata.postgres._queries import Queries
from automata.threads import LeaseLostError, PageBoundError, ThreadNotFoundError
from automata.threads.store import Lease, Record, ThreadRow

__all__ = [
    "ReadItem",
    "check_limit",
    "claim",
    "claimable",
    "list_threads",
    "now",
    "read_many",
    "release",
    "renew",
    "thread_row",
    "thread_rows",
]

_Connection = AsyncConnection[TupleRow]


def check_limit(limit: int, bound: int) -> None:
    """Raise `PageBoundError` unless `limit` is an int from 1 to `bound`."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= bound:
        raise PageBoundError(f"page limit must be an int from 1 to {bound}, got {limit!r}")


def _row(values: TupleRow) -> ThreadRow:
    thread_id, parent_id, ordinal, created, updated, last_seq, active, summary = values
    return ThreadRow(
        thread_id, parent_id, int(ordinal), created, updated, int(last_seq), active, summary
    )


async def now(connection: _Connection, q: Queries) -> float:
    cursor = await connection.execute(q.now)
    found = await cursor.fetchone()
    assert found is not None
    return float(found[0])


@dataclass(frozen=True, slots=True)
class ReadItem:
    """One `read`'s arguments."""

    thread_id: str
    after: int
    limit: int


async def read_many(
    connection: _Connection, q: Queries, items: Sequence[ReadItem]
) -> list[list[Record] | Exception]:
    """Run `items` as one statement (one snapshot); answers each item's page, or
    `ThreadNotFoundError`, in order."""
    asked = [
        {"item": n, "thread_id": i.thread_id, "after": i.after, "lim": i.limit}
        for n, i in enumerate(items)
    ]
    cursor = await connection.execute(q.read, (json.dumps(asked, ensure_ascii=False),))
    pages: list[list[Record] | Exception] = [ThreadNotFoundError(item.thread_id) for item in items]
    for number, found, seq, kind, data, at in await cursor.fetchall():
        page = pages[number]
        if not found:
            continue
        if isinstance(page, Exception):
            page = pages[number] = []
        if seq is not None:
            page.append(Record(items[number].thread_id, int(seq), kind, data, float(at)))
    return pages


async def thread_row(connection: _Connection, q: Queries, thread_id: str) -> ThreadRow | None:
    cursor = await connection.execute(q.row, (thread_id,))
    found = await cursor.fetchone()
    return None if found is None else _row(found)


async def thread_rows(
    connection: _Connection, q: Queries, thread_ids: Sequence[str]
) -> list[tuple[ThreadRow | None] | Exception]:
    """The rows of `thread_ids` in one statement (one snapshot), in order, each in a
    tuple of one (None for no such thread: a batch's answers are never None)."""
    if len(thread_ids) == 1:
        return [(await thread_row(connection, q, thread_ids[0]),)]
    cursor = await connection.execute(q.rows, (list(thread_ids),))
    found = {row.thread_id: row for row in map(_row, await cursor.fetchall())}
    return [(found.get(thread_id),) for thread_id in thread_ids]


async def list_threads(
    connection: _Connection, q: Queries, parent_id: str | None, last: int, limit: int
) -> list[ThreadRow]:
    if parent_id is None:
        cursor = await connection.execute(q.top_level, (last, limit))
    else:
        cursor = await connection.execute(q.children, (parent_id, last, limit))
    return [_row(values) for values in await cursor.fetchall()]


async def claimable(connection: _Connection, q: Queries, limit: int) -> list[str]:
    cursor = await connection.execute(q.claimable, (limit,))
    return [row[0] for row in await cursor.fetchall()]


async def claim(
    connection: _Connection, q: Queries, thread_id: str, owner: str, ttl: float
) -> Lease | None:
    cursor = await connection.execute(q.claim, {"thread": thread_id, "owner": owner, "ttl": ttl})
    taken = await cursor.fetchone()
    if taken is not None:
        return Lease(thread_id, owner, int(taken[0]), float(taken[1]))
    cursor = await connection.execute(q.exists, (thread_id,))
    if await cursor.fetchone() is None:
        raise ThreadNotFoundError(thread_id)
    return None


async def renew(connection: _Connection, q: Queries, lease: Lease, ttl: float) -> Lease:
    cursor = await connection.execute(
        q.renew, (ttl, lease.thread_id, lease.owner, lease.generation)
    )
    found = await cursor.fetchone()
    if found is None:
        raise LeaseLostError(lease.thread_id, lease.owner, lease.generation)
    return Lease(lease.thread_id, lease.owner, lease.generation, float(found[0]))


async def release(
    connection: _Connection, q: Queries, lease: Lease, if_last_seq: int | None
) -> bool:
    """Free the lease when it is still the caller's (and the journal still ends at
    `if_last_seq`, when given): True when it is free of the caller now, False when it
    was kept because the journal moved on. The `UPDATE` decides under the row lock; a
    look at the row afterwards only tells a lease already gone (True) from a journal
    that moved on (False), and a journal's end only moves forward."""
    cursor = await connection.execute(
        q.release,
        {
            "thread": lease.thread_id,
            "owner": lease.owner,
            "generation": lease.generation,
            "if_last_seq": if_last_seq,
        },
    )
    if await cursor.fetchone() is not None:
        return True
    if if_last_seq is None:
        return True
    cursor = await connection.execute(q.held, (lease.thread_id, lease.owner, lease.generation))
    return await cursor.fetchone() is None
