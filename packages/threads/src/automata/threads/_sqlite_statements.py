"""The SQL of the SQLite store's hot paths, one statement each where it can be: every
statement the worker runs gives the event loop's thread the interpreter lock back and
takes it again, so fewer statements mean less waiting on both sides."""

from __future__ import annotations

import sqlite3
from typing import NoReturn

from automata.threads._errors import LeaseLostError, ThreadNotFoundError
from automata.threads.store import Lease, ThreadRow

__all__ = ["APPEND", "READ", "ROW", "refuse", "thread_row"]

ROW = (
    "thread_id, parent_id, ordinal, created_at, updated_at, last_seq, active, summary, "
    "owner, generation, expires_at"
)


APPEND = (
    "UPDATE threads SET last_seq = last_seq + :count, updated_at = :at, "
    "active = coalesce(:active, active), summary = coalesce(:summary, summary), "
    "owner = CASE WHEN :revoke THEN NULL ELSE owner END, "
    "generation = CASE WHEN :revoke AND owner IS NOT NULL THEN generation + 1 "
    "ELSE generation END, "
    "expires_at = CASE WHEN :revoke OR owner IS NULL THEN 0 ELSE expires_at END "
    "WHERE thread_id = :thread "
    "AND (NOT :fenced OR (owner = :owner AND generation = :generation)) "
    "RETURNING last_seq"
)
"""An append's change of its thread's row, in the statement that checks its fence
(`owner` and `generation` when `fenced`): the row's new `last_seq`, or no row when
the thread is unknown or the fence does not hold (`refuse` says which). A revoked
lease (`revoke`) leaves no owner and, when there was one, the next generation."""

READ = (
    "SELECT r.seq, r.kind, r.data, r.at FROM threads t LEFT JOIN records r "
    "ON r.thread_id = t.thread_id AND r.seq > :after WHERE t.thread_id = :thread "
    "ORDER BY r.seq LIMIT :limit"
)
"""A page of a thread's records in one statement (one snapshot), in `seq` order off
the records' key: no row when the thread is unknown, one row of NULLs when it has no
record after `after`."""


def refuse(db: sqlite3.Connection, thread_id: str, fence: Lease | None) -> NoReturn:
    """Raise why an append's `APPEND` changed no row."""
    if db.execute("SELECT 1 FROM threads WHERE thread_id = ?", (thread_id,)).fetchone() is None:
        raise ThreadNotFoundError(thread_id)
    assert fence is not None
    raise LeaseLostError(thread_id, fence.owner, fence.generation)


def thread_row(values: tuple[object, ...]) -> ThreadRow:
    thread_id, parent_id, ordinal, created, updated, last_seq, active, summary = values[:8]
    return ThreadRow(
        str(thread_id),
        None if parent_id is None else str(parent_id),
        int(ordinal),  # type: ignore[call-overload]
        float(created),  # type: ignore[arg-type]
        float(updated),  # type: ignore[arg-type]
        int(last_seq),  # type: ignore[call-overload]
        bool(active),
        str(summary),
    )
