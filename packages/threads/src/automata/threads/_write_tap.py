"""`WriteTap`: a store that tells a test about each write another store committed, for
crash tests at every write of a sequence.

A host opened on `WriteTap(store, tapped)` works as on `store`; after each write
`store` committed and before the writer is told, `tapped` is awaited with the write
(its number from 1, the call, the record kinds). A `tapped` that kills the process
(`os.kill(os.getpid(), signal.SIGKILL)`) when the number is N leaves the store as a
crash right after write N would, so a test can stop a host after each write of a
turn in turn, deterministically, and check what another process recovers.

The taps are the calls that commit in a sequence's order: `create_thread`, `append`,
`claim` (one that got the lease), `release` (one that gave it up) and
`delete_thread`. Renewals are not tapped: they come by the clock, not by the
sequence, and would make the numbering depend on timing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass

from automata.threads.store import (
    MAX_PAGE,
    Commit,
    Lease,
    NewRecord,
    ProgressCallback,
    Record,
    RequestClaim,
    ThreadRow,
    ThreadStore,
)

__all__ = ["StoreWrite", "WriteTap"]


@dataclass(frozen=True, slots=True)
class StoreWrite:
    """One committed write: `number` counts the tapped writes from 1, `call` is the
    store method (`append`, `claim`, ...), `kinds` the kinds of the records it
    appended (empty for a lease change), `thread_id` the thread it wrote to."""

    number: int
    call: str
    thread_id: str
    kinds: tuple[str, ...] = ()


Tapped = Callable[[StoreWrite], Awaitable[None]]
"""Awaited after each tapped write committed, before the writer is answered."""


class WriteTap(ThreadStore):
    """`inner` with `tapped` awaited after each write it committed (see the module)."""

    def __init__(self, inner: ThreadStore, tapped: Tapped) -> None:
        self.inner = inner
        self.max_page = inner.max_page
        self._tapped = tapped
        self._count = 0

    async def _tap(self, call: str, thread_id: str, records: Sequence[NewRecord] = ()) -> None:
        self._count += 1
        await self._tapped(
            StoreWrite(self._count, call, thread_id, tuple(record.kind for record in records))
        )

    async def open(self, progress: ProgressCallback | None = None) -> None:
        await self.inner.open(progress)

    async def close(self) -> None:
        await self.inner.close()

    async def now(self) -> float:
        return await self.inner.now()

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
        commit = await self.inner.create_thread(
            thread_id,
            records,
            parent_id=parent_id,
            summary=summary,
            active=active,
            request=request,
        )
        await self._tap("create_thread", thread_id, () if commit.duplicate else records)
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
        durable: bool = False,
    ) -> Commit:
        commit = await self.inner.append(
            thread_id,
            records,
            fence=fence,
            request=request,
            active=active,
            summary=summary,
            revoke_lease=revoke_lease,
            durable=durable,
        )
        await self._tap("append", thread_id, () if commit.duplicate else records)
        return commit

    async def read(self, thread_id: str, *, after: int = 0, limit: int = MAX_PAGE) -> list[Record]:
        return await self.inner.read(thread_id, after=after, limit=limit)

    async def thread(self, thread_id: str) -> ThreadRow | None:
        return await self.inner.thread(thread_id)

    async def list_threads(
        self,
        *,
        parent_id: str | None = None,
        before: int | None = None,
        limit: int = 100,
    ) -> list[ThreadRow]:
        return await self.inner.list_threads(parent_id=parent_id, before=before, limit=limit)

    async def delete_thread(self, thread_id: str, *, request: RequestClaim | None = None) -> Commit:
        commit = await self.inner.delete_thread(thread_id, request=request)
        await self._tap("delete_thread", thread_id)
        return commit

    async def claim(self, thread_id: str, owner: str, ttl: float) -> Lease | None:
        lease = await self.inner.claim(thread_id, owner, ttl)
        if lease is not None:
            await self._tap("claim", thread_id)
        return lease

    async def renew(self, lease: Lease, ttl: float) -> Lease:
        return await self.inner.renew(lease, ttl)

    async def release(self, lease: Lease, *, if_last_seq: int | None = None) -> bool:
        released = await self.inner.release(lease, if_last_seq=if_last_seq)
        if released:
            await self._tap("release", lease.thread_id)
        return released

    async def claimable(self, *, limit: int = 100) -> list[str]:
        return await self.inner.claimable(limit=limit)

    def changes(self) -> AsyncIterator[str] | None:
        return self.inner.changes()
