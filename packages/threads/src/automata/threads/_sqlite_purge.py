"""The SQLite store's purge: choose, archive and delete in one `BEGIN IMMEDIATE`
transaction, then give the freed pages back to the disk.

Everything here runs on the store's worker thread, on its connection. The choice, the
lease check, the archive writes and the deletes share one write transaction, so no
host can claim a thread between the check and the delete, and an archive write that
fails rolls the deletes back. After the commit, `PRAGMA incremental_vacuum` (the file
is `auto_vacuum = INCREMENTAL`) returns the pages the deletes freed; the report counts
them.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from automata.threads import _retention as retention
from automata.threads.store import Record, ThreadRow

__all__ = ["purge_sync"]

_TARGETS = (
    "SELECT thread_id, parent_id, ordinal, created_at, updated_at, last_seq, active, "
    "summary, owner, expires_at FROM threads"
)


def _targets(db: sqlite3.Connection) -> Iterator[retention.PurgeTarget]:
    for values in db.execute(_TARGETS):
        thread_id, parent_id, ordinal, created, updated, last_seq, active, summary = values[:8]
        row = ThreadRow(
            str(thread_id),
            None if parent_id is None else str(parent_id),
            int(ordinal),
            float(created),
            float(updated),
            int(last_seq),
            bool(active),
            str(summary),
        )
        owner, expires_at = values[8], float(values[9])
        yield retention.PurgeTarget(row, None if owner is None else str(owner), expires_at)


def _records(db: sqlite3.Connection, thread_id: str) -> list[Record]:
    rows = db.execute(
        "SELECT seq, kind, data, at FROM records WHERE thread_id = ? ORDER BY seq", (thread_id,)
    )
    return [Record(thread_id, int(s), str(k), str(d), float(a)) for s, k, d, a in rows]


def _free_pages(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA freelist_count").fetchone()[0])


def purge_sync(
    write: Callable[[], AbstractContextManager[sqlite3.Connection]],
    *,
    ended_before: float | None,
    keep_last: int | None,
    archive_to: retention.ArchiveSink | None,
    limit: int,
) -> retention.PurgeReport:
    """Purge in one write transaction opened by `write` (the store's), then reclaim
    the freed pages. Raises `PurgeRefusedError` (nothing deleted) for a live lease."""
    with write() as db:
        targets = {t.row.thread_id: t for t in _targets(db)}
        plan = retention.plan_purge(
            targets.values(),
            now=time.time(),
            ended_before=ended_before,
            keep_last=keep_last,
            limit=limit,
        )
        records = 0
        size = 0
        free_before = _free_pages(db)
        for thread_id in plan.thread_ids:
            journal = _records(db, thread_id)
            if archive_to is not None:
                retention.write_archive(archive_to, targets[thread_id].row, journal)
            records += len(journal)
            size += retention.record_bytes(journal)
        doomed = [(thread_id,) for thread_id in plan.thread_ids]
        db.executemany("DELETE FROM records WHERE thread_id = ?", doomed)
        db.executemany("DELETE FROM threads WHERE thread_id = ?", doomed)
        freed = _free_pages(db) - free_before
    if freed > 0:
        # Its own transaction, after the commit; executescript steps the pragma to its
        # end (one `execute` step frees a single page).
        db.executescript("PRAGMA incremental_vacuum;")
    return retention.PurgeReport(
        plan.thread_ids, records, size, archived=archive_to is not None, pages_freed=freed
    )
