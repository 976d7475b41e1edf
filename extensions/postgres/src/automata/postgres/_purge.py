"""The PostgreSQL store's purge: one transaction on one schema (one tenant).

It takes the schema's tree lock exclusively (no child is created under a doomed
thread meanwhile), locks every thread row of the schema (`FOR UPDATE`: no claim,
append or delete runs on them until it ends), reads the server's clock, chooses the
trees (`automata.threads._retention.plan_purge`, which refuses on a live lease),
writes each chosen journal to the archive, and deletes the records and rows with a
notification per thread, like `delete_thread`. A failure anywhere, the archive's
included, rolls everything back.
"""

from __future__ import annotations

import asyncio

from psycopg import AsyncConnection, sql
from psycopg.rows import TupleRow

from automata.postgres._queries import Queries
from automata.threads._retention import (
    ArchiveSink,
    PurgeReport,
    PurgeTarget,
    plan_purge,
    record_bytes,
    write_archive,
)
from automata.threads.store import Record, ThreadRow

__all__ = ["purge"]

_Connection = AsyncConnection[TupleRow]


def _statements(schema: sql.Identifier) -> tuple[sql.Composed, sql.Composed]:
    targets = sql.SQL(
        "SELECT thread_id, parent_id, ordinal, created_at, updated_at, last_seq, active, "
        "summary, owner, expires_at FROM {s}.threads ORDER BY ordinal FOR UPDATE"
    ).format(s=schema)
    journal = sql.SQL(
        "SELECT seq, kind, data, at FROM {s}.records WHERE thread_id = %s ORDER BY seq"
    ).format(s=schema)
    return targets, journal


async def purge(
    connection: _Connection,
    queries: Queries,
    schema: str,
    channel: str,
    tree_lock: str,
    ended_before: float | None,
    keep_last: int | None,
    archive_to: ArchiveSink | None,
    limit: int,
) -> PurgeReport:
    """Purge the store's `schema` (its `queries`, notification `channel` and
    `tree_lock`) within the transaction `connection` is in. Raises `PurgeRefusedError`
    (the caller's transaction then rolls back) for a live lease."""
    targets_sql, journal_sql = _statements(sql.Identifier(schema))
    await connection.execute(queries.tree_exclusive, (tree_lock,))
    cursor = await connection.execute(targets_sql)
    targets: dict[str, PurgeTarget] = {}
    for values in await cursor.fetchall():
        thread_id, parent_id, ordinal, created, updated, last_seq, active, summary = values[:8]
        row = ThreadRow(
            thread_id, parent_id, int(ordinal), created, updated, int(last_seq), active, summary
        )
        targets[thread_id] = PurgeTarget(row, values[8], float(values[9]))
    cursor = await connection.execute(queries.now)
    clock = await cursor.fetchone()
    assert clock is not None
    plan = plan_purge(
        targets.values(),
        now=float(clock[0]),
        ended_before=ended_before,
        keep_last=keep_last,
        limit=limit,
    )
    records = 0
    size = 0
    for thread_id in plan.thread_ids:
        cursor = await connection.execute(journal_sql, (thread_id,))
        journal = [
            Record(thread_id, int(s), k, d, float(a)) for s, k, d, a in await cursor.fetchall()
        ]
        if archive_to is not None:
            await asyncio.to_thread(write_archive, archive_to, targets[thread_id].row, journal)
        records += len(journal)
        size += record_bytes(journal)
    doomed = list(plan.thread_ids)
    if doomed:
        await connection.execute(queries.delete_records, (doomed,))
        cursor = await connection.execute(queries.delete, (doomed, channel))
        await cursor.fetchall()
    return PurgeReport(plan.thread_ids, records, size, archived=archive_to is not None)
