"""Retention: which threads a purge takes, how their journals are archived, and what
it reports. Every backend's `purge` uses this; the backend supplies the snapshot and
the transaction (docs/threads-storage.md, rules RT1-RT5).

A purge takes whole top-level threads with their children. A tree is *ended* when no
thread in it is active and none has a lease left unreleased past its expiry (such a
thread is due a recovery, S7). Of the ended trees it takes those whose last write is
before `ended_before` and that are not among the `keep_last` newest top-level threads
(when both are given, a tree must meet both), oldest first, up to `limit`. A live
lease on any thread of a tree it would take refuses the whole purge.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from automata.core import InvalidArgumentError
from automata.threads._errors import PurgeRefusedError
from automata.threads._memory import check_limit
from automata.threads.store import Record, ThreadRow

__all__ = [
    "ArchiveSink",
    "PurgePlan",
    "PurgeReport",
    "PurgeTarget",
    "archive_lines",
    "check_purge_arguments",
    "cutoff",
    "plan_purge",
    "record_bytes",
    "write_archive",
]


class ArchiveSink(Protocol):
    """Where purged journals go: a text stream such as `open(path, "a")`. Each thread
    arrives as one `write` of whole JSON lines followed by `flush` (and `os.fsync`
    when the stream has a `fileno`)."""

    def write(self, text: str, /) -> object: ...

    def flush(self) -> object: ...


@dataclass(frozen=True, slots=True)
class PurgeReport:
    """What a purge freed. `thread_ids` are the threads deleted (each tree's root
    before its children, roots oldest first); `records` and `bytes` count their
    journal records and those records' UTF-8 bytes (kind plus data); `archived` says
    every one was written to the archive first. `pages_freed` is what the backend's
    own files gave back where it can tell (SQLite: database pages), else None."""

    thread_ids: tuple[str, ...]
    records: int
    bytes: int
    archived: bool
    pages_freed: int | None = None

    @property
    def threads(self) -> int:
        """How many threads were deleted, children included."""
        return len(self.thread_ids)


@dataclass(frozen=True, slots=True)
class PurgeTarget:
    """What a purge decides on: a thread's row and the state of its lease."""

    row: ThreadRow
    owner: str | None
    expires_at: float


@dataclass(frozen=True, slots=True)
class PurgePlan:
    """The trees a purge takes: every thread id, roots oldest first, each root before
    its descendants."""

    thread_ids: tuple[str, ...]


def check_purge_arguments(
    ended_before: float | None, keep_last: int | None, limit: int, bound: int
) -> None:
    """Refuse a purge with no criterion, a negative or non-int `keep_last`, a
    non-number `ended_before` (`InvalidArgumentError`), or a `limit` outside
    1..`bound` (`PageBoundError`)."""
    if ended_before is None and keep_last is None:
        raise InvalidArgumentError("purge needs ended_before, keep_last or both")
    if keep_last is not None and (
        isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 0
    ):
        raise InvalidArgumentError(f"keep_last must be an int >= 0, got {keep_last!r}")
    if ended_before is not None and (
        isinstance(ended_before, bool) or not isinstance(ended_before, int | float)
    ):
        raise InvalidArgumentError(
            f"ended_before must be seconds since the epoch, got {ended_before!r}"
        )
    check_limit(limit, bound)


def cutoff(ended_before: datetime | float | None) -> float | None:
    """`ended_before` in the store's clock (seconds since the epoch); an aware
    datetime is converted, a naive one refused (`InvalidArgumentError`)."""
    if not isinstance(ended_before, datetime):
        return ended_before
    if ended_before.tzinfo is None:
        raise InvalidArgumentError("ended_before must be an aware datetime (with tzinfo)")
    return ended_before.timestamp()


def plan_purge(
    targets: Iterable[PurgeTarget],
    *,
    now: float,
    ended_before: float | None,
    keep_last: int | None,
    limit: int,
) -> PurgePlan:
    """Choose the trees to purge from a snapshot of every thread (taken in the purge's
    transaction). Raises `PurgeRefusedError` when a live lease is held on a thread of
    a chosen tree."""
    by_id = {target.row.thread_id: target for target in targets}
    children: dict[str, list[PurgeTarget]] = {}
    for target in by_id.values():
        if target.row.parent_id is not None:
            children.setdefault(target.row.parent_id, []).append(target)
    roots = sorted(
        (t for t in by_id.values() if t.row.parent_id is None), key=lambda t: t.row.ordinal
    )
    kept = (
        set()
        if keep_last is None or keep_last == 0
        else {t.row.thread_id for t in roots[-keep_last:]}
    )
    chosen: list[str] = []
    leased: list[str] = []
    taken = 0
    for root in roots:
        if taken == limit:
            break
        if root.row.thread_id in kept:
            continue
        tree = _tree(root, children)
        if any(t.row.active or (t.owner is not None and t.expires_at <= now) for t in tree):
            continue  # not ended: work to finish, or a recovery due
        if ended_before is not None and max(t.row.updated_at for t in tree) >= ended_before:
            continue
        taken += 1
        chosen.extend(t.row.thread_id for t in tree)
        leased.extend(t.row.thread_id for t in tree if t.owner is not None)
    if leased:
        raise PurgeRefusedError(tuple(leased))
    return PurgePlan(tuple(chosen))


def _tree(root: PurgeTarget, children: dict[str, list[PurgeTarget]]) -> list[PurgeTarget]:
    tree = [root]
    index = 0
    while index < len(tree):
        below = children.get(tree[index].row.thread_id, [])
        tree.extend(sorted(below, key=lambda t: t.row.ordinal))
        index += 1
    return tree


def record_bytes(records: Iterable[Record]) -> int:
    """The UTF-8 bytes of the records' kinds and data."""
    return sum(len(r.kind.encode()) + len(r.data.encode()) for r in records)


def archive_lines(row: ThreadRow, records: Sequence[Record]) -> str:
    """One thread as JSON lines: a `thread` line (its row), then a `record` line per
    record in journal order."""
    lines = [
        json.dumps(
            {
                "type": "thread",
                "thread_id": row.thread_id,
                "parent_id": row.parent_id,
                "created_at": row.created_at,
                "updated_at": row.updated_at,
                "last_seq": row.last_seq,
                "summary": row.summary,
            },
            ensure_ascii=False,
        )
    ]
    lines.extend(
        json.dumps(
            {
                "type": "record",
                "thread_id": r.thread_id,
                "seq": r.seq,
                "kind": r.kind,
                "data": r.data,
                "at": r.at,
            },
            ensure_ascii=False,
        )
        for r in records
    )
    return "\n".join(lines) + "\n"


def write_archive(sink: ArchiveSink, row: ThreadRow, records: Sequence[Record]) -> None:
    """Write one thread's journal to `sink` whole (one write, then flush and, for a
    file, fsync) before the purge deletes it."""
    sink.write(archive_lines(row, records))
    sink.flush()
    fileno = getattr(sink, "fileno", None)
    if callable(fileno):
        try:
            number = fileno()
        except (OSError, ValueError):  # an in-memory stream has none
            return
        os.fsync(number)
