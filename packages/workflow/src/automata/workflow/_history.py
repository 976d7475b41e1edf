"""Reading runs back: a run's history by pages, and the runs of a session.

Pages are bounded: a limit outside 1..1000 raises `PageBoundError`, never a short
page. A page says where the next one starts (`next_after`, `next_before`) and is None
at the end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from automata.threads import PageBoundError as StorePageBoundError
from automata.threads.store import MAX_PAGE, ThreadRow, ThreadStore
from automata.workflow._errors import PageBoundError, RunNotFoundError
from automata.workflow._events import RunEvent
from automata.workflow._journal import decode
from automata.workflow._runner import run_thread, session_thread

__all__ = ["HistoryPage", "RunSummary", "RunsPage", "read_history", "read_session"]


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """Entries of a run's history, in order; `next_after` continues it (None: the
    page reaches the journal's end)."""

    entries: tuple[RunEvent, ...]
    next_after: int | None


@dataclass(frozen=True, slots=True)
class RunSummary:
    """A run as its session lists it."""

    run_id: str
    workflow: str
    session_id: str
    status: str
    created_at: float
    updated_at: float
    records: int
    cursor: int
    """Give as `before` to list the runs created before this one."""


@dataclass(frozen=True, slots=True)
class RunsPage:
    """Runs of a session, newest first; `next_before` continues (None at the end)."""

    runs: tuple[RunSummary, ...]
    next_before: int | None


def _check(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise PageBoundError(f"page limit must be an int from 1 to {MAX_PAGE}, got {limit!r}")


async def read_history(store: ThreadStore, run_id: str, *, after: int, limit: int) -> HistoryPage:
    """`limit` history entries of run `run_id` after sequence number `after`."""
    _check(limit)
    thread = run_thread(run_id)
    row = await store.thread(thread)
    if row is None:
        raise RunNotFoundError(run_id)
    try:
        records = await store.read(thread, after=after, limit=limit)
    except StorePageBoundError as exc:  # pragma: no cover - checked above
        raise PageBoundError(str(exc)) from None
    entries = tuple(
        RunEvent(run_id, record.seq, record.kind, decode(record), record.at) for record in records
    )
    more = bool(entries) and entries[-1].seq < row.last_seq
    return HistoryPage(entries, entries[-1].seq if more else None)


def _summary(row: ThreadRow) -> RunSummary:
    data: dict[str, Any] = json.loads(row.summary or "{}")
    return RunSummary(
        run_id=str(data.get("run_id", row.thread_id.removeprefix("wf:"))),
        workflow=str(data.get("workflow", "")),
        session_id=str(data.get("session_id", "")),
        status=str(data.get("status", "")),
        created_at=row.created_at,
        updated_at=row.updated_at,
        records=row.last_seq,
        cursor=row.ordinal,
    )


async def read_session(
    store: ThreadStore, session_id: str, *, before: int | None, limit: int
) -> RunsPage:
    """`limit` runs of session `session_id`, newest first, created before `before`."""
    _check(limit)
    parent = session_thread(session_id)
    if await store.thread(parent) is None:
        return RunsPage((), None)
    rows = await store.list_threads(parent_id=parent, before=before, limit=limit)
    runs = tuple(_summary(row) for row in rows)
    more = False
    if len(rows) == limit:
        more = bool(await store.list_threads(parent_id=parent, before=rows[-1].ordinal, limit=1))
    return RunsPage(runs, runs[-1].cursor if more else None)
