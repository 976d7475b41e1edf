"""The journal writes of the PostgreSQL store that run as one transaction of several
statements: creating a thread, an append with a request key, deleting a tree.

Each function is the body of one transaction (the store runs it on a pooled
connection, `_connections.run`). A write to a thread first locks its row (`SELECT ...
FOR UPDATE`), then answers a duplicate request key (read after the lock, by a
statement of its own, so the snapshot it reads holds whatever committed with the row
it waited for), and only then writes.
"""

from __future__ import annotations

from collections.abc import Sequence

from psycopg import AsyncConnection
from psycopg.rows import TupleRow

from automata.postgres._appends import AppendItem, answer, parameters
from automata.postgres._queries import Queries
from automata.threads import RequestConflictError, ThreadExistsError, ThreadNotFoundError
from automata.threads.store import Commit, NewRecord, RequestClaim

__all__ = ["append_keyed", "create_thread", "delete_thread"]

_Connection = AsyncConnection[TupleRow]


async def _duplicate(
    connection: _Connection, q: Queries, request: RequestClaim | None
) -> Commit | None:
    """The first use's outcome when `request` was used before; raises
    `RequestConflictError` when it was used for something else."""
    if request is None:
        return None
    cursor = await connection.execute(q.request, (request.key,))
    return _duplicate_of(await cursor.fetchone(), request)


def _duplicate_of(found: TupleRow | None, request: RequestClaim) -> Commit | None:
    """The answer to a duplicate of `request` from its stored row, if any."""
    if found is None:
        return None
    if found[0] != request.fingerprint:
        raise RequestConflictError(request.key)
    return Commit(0, 0, duplicate=True, outcome=found[1])


async def _remember(
    connection: _Connection, q: Queries, request: RequestClaim | None, at: float
) -> None:
    if request is not None:
        await connection.execute(
            q.remember, (request.key, request.fingerprint, request.outcome, at)
        )


async def create_thread(
    connection: _Connection,
    q: Queries,
    *,
    thread_id: str,
    records: Sequence[NewRecord],
    parent_id: str | None,
    summary: str,
    active: bool,
    request: RequestClaim | None,
    tree_lock: str,
    channel: str,
) -> Commit:
    # The row first: once it is seen, the request key committed with it is too.
    cursor = await connection.execute(q.lock_thread, (thread_id,))
    found = await cursor.fetchone()
    duplicate = await _duplicate(connection, q, request)
    if duplicate is not None:
        return duplicate
    if found is not None:
        raise ThreadExistsError(thread_id)
    if parent_id is not None:
        await connection.execute(q.tree_shared, (tree_lock,))
        cursor = await connection.execute(q.share_thread, (parent_id,))
        if await cursor.fetchone() is None:
            raise ThreadNotFoundError(parent_id)
    cursor = await connection.execute(
        q.create, (thread_id, parent_id, len(records), active, summary, channel)
    )
    created = await cursor.fetchone()
    assert created is not None
    at = float(created[0])
    commit = Commit(0, 0)
    if records:
        rows = [(thread_id, 1 + n, new.kind, new.data, at) for n, new in enumerate(records)]
        async with connection.cursor() as adding:
            await adding.executemany(q.add, rows)
        commit = Commit(1, len(records))
    await _remember(connection, q, request, at)
    return commit


async def append_keyed(
    connection: _Connection,
    q: Queries,
    item: AppendItem,
    request: RequestClaim,
    channel: str,
) -> Commit:
    """An append with a request key, in a transaction of its own (the caller runs this
    outside one): a duplicate answers first, else the append and the key commit
    together. Pipelined in three round trips: `BEGIN`, the row lock and the key's
    lookup (a statement after the lock, so its snapshot holds what committed with the
    row it waited for); then the append and the key (rolled back with the transaction
    when the append is refused); then `COMMIT`."""
    async with connection.pipeline() as pipeline, connection.transaction():
        locking = await connection.execute(q.lock_thread, (item.thread_id,))
        asking = await connection.execute(q.request, (request.key,))
        await pipeline.sync()
        found = await locking.fetchone()
        duplicate = _duplicate_of(await asking.fetchone(), request)
        if duplicate is not None:
            return duplicate
        if found is None:
            raise ThreadNotFoundError(item.thread_id)
        appending = await connection.execute(q.append, parameters([item], channel))
        await connection.execute(
            q.remember, (request.key, request.fingerprint, request.outcome, found[3])
        )
        ((_, seq, wrote, _),) = await appending.fetchall()
        outcome = answer(item, None if seq is None else int(seq), bool(wrote))
        if isinstance(outcome, Exception):
            raise outcome  # the transaction rolls back, the key with it
        return outcome


async def delete_thread(
    connection: _Connection,
    q: Queries,
    *,
    thread_id: str,
    request: RequestClaim | None,
    tree_lock: str,
    channel: str,
) -> Commit:
    await connection.execute(q.tree_exclusive, (tree_lock,))
    cursor = await connection.execute(q.lock_thread, (thread_id,))
    found = await cursor.fetchone()
    duplicate = await _duplicate(connection, q, request)
    if duplicate is not None:
        return duplicate
    if found is None:
        raise ThreadNotFoundError(thread_id)
    # Lock the whole tree first; the deletes then run on a snapshot taken with every
    # row locked, so no append to a doomed thread can slip past them.
    cursor = await connection.execute(q.doomed, (thread_id,))
    doomed = [row[0] for row in await cursor.fetchall()]
    await connection.execute(q.delete_records, (doomed,))
    cursor = await connection.execute(q.delete, (doomed, channel))
    await cursor.fetchall()
    await _remember(connection, q, request, found[3])
    return Commit(0, 0)
