"""The in-memory store: the storage contract with no durability, for tests and
short-lived programs. Everything is lost when the process ends."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from automata.threads._errors import (
    LeaseLostError,
    PageBoundError,
    RequestConflictError,
    StoreClosedError,
    ThreadExistsError,
    ThreadNotFoundError,
)
from automata.threads.store import (
    Commit,
    Lease,
    NewRecord,
    ProgressCallback,
    Record,
    RequestClaim,
    ThreadRow,
    ThreadStore,
)

if TYPE_CHECKING:
    from automata.threads._retention import ArchiveSink, PurgeReport

__all__ = ["MemoryStore"]


@dataclass
class _Thread:
    row: ThreadRow
    records: list[Record] = field(default_factory=list)
    owner: str | None = None
    generation: int = 0
    expires_at: float = 0.0


@dataclass(frozen=True, slots=True)
class _StoredRequest:
    fingerprint: str
    outcome: str


def check_limit(limit: int, bound: int) -> None:
    """Refuse a page size outside 1..`bound` (S6)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= bound:
        raise PageBoundError(f"page limit must be an int from 1 to {bound}, got {limit!r}")


class MemoryStore(ThreadStore):
    """A `ThreadStore` in this process's memory. `clock` (seconds since the epoch,
    `time.time` by default) is the store's clock; tests pass their own to expire
    leases without waiting."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._threads: dict[str, _Thread] = {}
        self._requests: dict[str, _StoredRequest] = {}
        self._ordinal = 0
        self._open = False

    async def open(self, progress: ProgressCallback | None = None) -> None:
        if progress is not None:
            progress("verifying")
        self._open = True

    async def close(self) -> None:
        self._open = False

    async def now(self) -> float:
        return self._clock()

    def _check_open(self) -> None:
        if not self._open:
            raise StoreClosedError("the store is not open")

    def _get(self, thread_id: str) -> _Thread:
        found = self._threads.get(thread_id)
        if found is None:
            raise ThreadNotFoundError(thread_id)
        return found

    def _duplicate(self, request: RequestClaim | None) -> Commit | None:
        if request is None:
            return None
        stored = self._requests.get(request.key)
        if stored is None:
            return None
        if stored.fingerprint != request.fingerprint:
            raise RequestConflictError(request.key)
        return Commit(0, 0, duplicate=True, outcome=stored.outcome)

    def _remember(self, request: RequestClaim | None) -> None:
        if request is not None:
            self._requests[request.key] = _StoredRequest(request.fingerprint, request.outcome)

    def _add(self, thread: _Thread, records: Sequence[NewRecord], at: float) -> Commit:
        first = thread.row.last_seq + 1
        thread_id = thread.row.thread_id
        for offset, new in enumerate(records):
            thread.records.append(Record(thread_id, first + offset, new.kind, new.data, at))
        last = thread.row.last_seq + len(records)
        thread.row = replace(thread.row, last_seq=last, updated_at=at)
        return Commit(first if records else 0, last if records else 0)

    async def create_thread(
        self,
        thread_id: str,
        records: Sequence[NewRecord],
        *,
        parent_id: str | None = None,
        summary: str = "",
        active: bool = False,
        request: RequestClaim | None = None,
    ) -> Commit:
        self._check_open()
        duplicate = self._duplicate(request)
        if duplicate is not None:
            return duplicate
        if thread_id in self._threads:
            raise ThreadExistsError(thread_id)
        if parent_id is not None:
            self._get(parent_id)
        at = self._clock()
        self._ordinal += 1
        row = ThreadRow(thread_id, parent_id, self._ordinal, at, at, 0, active, summary)
        thread = _Thread(row)
        commit = self._add(thread, records, at)
        self._threads[thread_id] = thread
        self._remember(request)
        return commit

    async def append(
        self,
        thread_id: str,
        records: Sequence[NewRecord],
        *,
        fence: Lease | None = None,
        request: RequestClaim | None = None,
        active: bool | None = None,
        summary: str | None = None,
        revoke_lease: bool = False,
        durable: bool = False,  # nothing here outlives the process anyway
    ) -> Commit:
        self._check_open()
        duplicate = self._duplicate(request)
        if duplicate is not None:
            return duplicate
        thread = self._get(thread_id)
        if fence is not None and (
            thread.owner != fence.owner or thread.generation != fence.generation
        ):
            raise LeaseLostError(thread_id, fence.owner, fence.generation)
        commit = self._add(thread, records, self._clock())
        if active is not None:
            thread.row = replace(thread.row, active=active)
        if summary is not None:
            thread.row = replace(thread.row, summary=summary)
        if revoke_lease and thread.owner is not None:
            thread.owner = None
            thread.generation += 1
        self._remember(request)
        return commit

    async def read(self, thread_id: str, *, after: int = 0, limit: int = 1000) -> list[Record]:
        self._check_open()
        check_limit(limit, self.max_page)
        thread = self._get(thread_id)
        start = max(after, 0)
        return thread.records[start : start + limit]

    async def thread(self, thread_id: str) -> ThreadRow | None:
        self._check_open()
        found = self._threads.get(thread_id)
        return None if found is None else found.row

    async def list_threads(
        self,
        *,
        parent_id: str | None = None,
        before: int | None = None,
        limit: int = 100,
    ) -> list[ThreadRow]:
        self._check_open()
        check_limit(limit, self.max_page)
        rows = [
            thread.row
            for thread in self._threads.values()
            if thread.row.parent_id == parent_id and (before is None or thread.row.ordinal < before)
        ]
        rows.sort(key=lambda row: row.ordinal, reverse=True)
        return rows[:limit]

    async def delete_thread(self, thread_id: str, *, request: RequestClaim | None = None) -> Commit:
        self._check_open()
        duplicate = self._duplicate(request)
        if duplicate is not None:
            return duplicate
        self._get(thread_id)
        doomed = [thread_id]
        index = 0
        while index < len(doomed):
            parent = doomed[index]
            doomed.extend(t for t, th in self._threads.items() if th.row.parent_id == parent)
            index += 1
        for gone in doomed:
            del self._threads[gone]
        self._remember(request)
        return Commit(0, 0)

    async def claim(self, thread_id: str, owner: str, ttl: float) -> Lease | None:
        self._check_open()
        thread = self._get(thread_id)
        now = self._clock()
        held = thread.owner is not None and thread.expires_at > now
        if held and thread.owner != owner:
            return None
        if not held or thread.owner != owner:
            thread.generation += 1
        thread.owner = owner
        thread.expires_at = now + ttl
        return Lease(thread_id, owner, thread.generation, thread.expires_at)

    async def renew(self, lease: Lease, ttl: float) -> Lease:
        self._check_open()
        thread = self._threads.get(lease.thread_id)
        if thread is None or thread.owner != lease.owner or thread.generation != lease.generation:
            raise LeaseLostError(lease.thread_id, lease.owner, lease.generation)
        thread.expires_at = self._clock() + ttl
        return replace(lease, expires_at=thread.expires_at)

    async def release(self, lease: Lease, *, if_last_seq: int | None = None) -> bool:
        self._check_open()
        thread = self._threads.get(lease.thread_id)
        if thread is None or thread.owner != lease.owner or thread.generation != lease.generation:
            return True
        if if_last_seq is not None and thread.row.last_seq != if_last_seq:
            return False
        thread.owner = None
        thread.expires_at = 0.0
        return True

    async def claimable(self, *, limit: int = 100) -> list[str]:
        self._check_open()
        check_limit(limit, self.max_page)
        now = self._clock()
        free = [
            thread.row
            for thread in self._threads.values()
            if (thread.row.active and thread.owner is None)
            or (thread.owner is not None and thread.expires_at <= now)
        ]
        free.sort(key=lambda row: row.ordinal)
        return [row.thread_id for row in free[:limit]]

    async def purge(
        self,
        *,
        ended_before: float | None = None,
        keep_last: int | None = None,
        archive_to: ArchiveSink | None = None,
        limit: int = 100,
    ) -> PurgeReport:
        """See `ThreadStore.purge`: nothing is deleted unless every archive write
        succeeded."""
        from automata.threads import _retention as retention

        self._check_open()
        retention.check_purge_arguments(ended_before, keep_last, limit, self.max_page)
        plan = retention.plan_purge(
            [retention.PurgeTarget(t.row, t.owner, t.expires_at) for t in self._threads.values()],
            now=self._clock(),
            ended_before=ended_before,
            keep_last=keep_last,
            limit=limit,
        )
        doomed = [self._threads[thread_id] for thread_id in plan.thread_ids]
        if archive_to is not None:
            for thread in doomed:
                retention.write_archive(archive_to, thread.row, thread.records)
        for thread_id in plan.thread_ids:
            del self._threads[thread_id]
        return retention.PurgeReport(
            plan.thread_ids,
            sum(len(t.records) for t in doomed),
            retention.record_bytes(r for t in doomed for r in t.records),
            archived=archive_to is not None,
        )
