"""The storage interface durable threads run on, for those who write a backend.

A store keeps, per thread, one append-only journal of opaque records, plus what it
needs to make writes safe: thread rows, request keys and leases. It never decodes a
record's `data`; the thread service owns what records mean. Hosts do not read stores;
they open a host on one (`MemoryStore()`, `SQLiteStore(path)`) and use its thread
service.

The guarantees every backend gives (and `automata.threads.testing.StoreConformance`
checks):

- **S1. Atomic commits.** Each mutating call commits all of its effects (records,
  thread row changes, request key, lease change) in one transaction, or none of them.
- **S2. Ordered journal.** Records of a thread get consecutive sequence numbers from 1,
  in commit order; `read` returns them in that order, never with a gap.
- **S3. Request keys.** A call given a `RequestClaim` whose key is new commits and
  stores the claim's `outcome`. The same key with the same `fingerprint` commits
  nothing and returns the stored outcome (`Commit.duplicate`); with another
  fingerprint it raises `RequestConflictError`. Keys are global to the store and
  outlive the thread they touched (a duplicate delete still answers).
- **S4. Leases.** `claim` gives a thread to one owner until the lease expires by the
  store's clock (`now`); claiming a thread someone else holds unexpired returns None.
  Every claim that changes hands (or follows an expiry or a revoke) increases the
  thread's lease generation; `renew` keeps it. A claim by the owner that holds it
  unexpired is a renewal.
- **S5. Fencing.** A write given `fence=lease` commits only if that owner and
  generation still hold the thread, checked in the write's own transaction; otherwise
  it raises `LeaseLostError` and commits nothing. Expiry alone does not fail a fence
  (no one else can have written since); a new claim or a revoke does.
- **S6. Bounded pages.** `read` and `list_threads` take a limit from 1 to `max_page`;
  anything else raises `PageBoundError` (never a silently short page).
- **S7. Active threads.** A thread's `active` flag is set by the writes that say so;
  `claimable` lists, oldest first, active threads whose lease is free or expired, and
  any thread whose lease expired without being released (its runner died).
- **S8. Fail closed.** A schema newer than the backend knows, or not a threads schema,
  raises `SchemaError` at `open` and changes nothing.

And the retention rules of `purge` (docs/threads-storage.md, "Retention"):

- **RT1. Ended trees by date.** `ended_before` takes whole ended top-level trees
  (nothing active, no lease expired unreleased) last written before it.
- **RT2. Over a count.** `keep_last` keeps the newest top-level threads; at most
  `limit` trees go per call, oldest first.
- **RT3. Live leases refuse.** A live lease on a thread it would take raises
  `PurgeRefusedError`; nothing is deleted.
- **RT4. Archive first.** With `archive_to`, each thread's journal is written there
  (JSON lines) before it is deleted; a failed archive write deletes nothing.
- **RT5. Keys stay, input is checked.** Request keys outlive purged threads; bad
  arguments raise `InvalidArgumentError` or `PageBoundError`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from automata.threads._errors import StoreError

if TYPE_CHECKING:
    from automata.threads._retention import ArchiveSink, PurgeReport

__all__ = [
    "MAX_PAGE",
    "Commit",
    "Lease",
    "NewRecord",
    "ProgressCallback",
    "Record",
    "RequestClaim",
    "ThreadRow",
    "ThreadStore",
]

MAX_PAGE = 1000
"""The most records or threads one `read` or `list_threads` call returns."""

ProgressCallback = Callable[[str], None]
"""Told each phase of `open` ("migrating", then "verifying"); must return promptly."""


@dataclass(frozen=True, slots=True)
class NewRecord:
    """A record to append: its `kind` (a short name the service chose) and `data`
    (text, usually JSON, opaque to the store)."""

    kind: str
    data: str


@dataclass(frozen=True, slots=True)
class Record:
    """A committed record: `seq` is its place in the thread's journal (1 for the
    first) and `at` the store's clock when it was committed (seconds since the epoch)."""

    thread_id: str
    seq: int
    kind: str
    data: str
    at: float


@dataclass(frozen=True, slots=True)
class RequestClaim:
    """A caller-chosen request `key`, the `fingerprint` of the request's input (two
    requests are the same request when key and fingerprint match) and the `outcome`
    (opaque text) to give back to a duplicate."""

    key: str
    fingerprint: str
    outcome: str


@dataclass(frozen=True, slots=True)
class Commit:
    """What a mutating call did. `first_seq`..`last_seq` are the records it appended
    (both 0 when none). `duplicate` is True when a request key had been used with the
    same input: nothing was written and `outcome` is the first request's."""

    first_seq: int
    last_seq: int
    duplicate: bool = False
    outcome: str | None = None


@dataclass(frozen=True, slots=True)
class ThreadRow:
    """What a store knows of a thread besides its journal.

    `ordinal` orders threads by creation (store-wide, increasing); `last_seq` is its
    journal's last sequence number; `active` says it has work to finish (set by the
    service); `summary` is opaque text the service keeps with the row (its title and
    the like), written in the same transaction as the records it summarises."""

    thread_id: str
    parent_id: str | None
    ordinal: int
    created_at: float
    updated_at: float
    last_seq: int
    active: bool
    summary: str


@dataclass(frozen=True, slots=True)
class Lease:
    """Ownership of one thread's runner: held by `owner` at `generation` until
    `expires_at` (the store's clock)."""

    thread_id: str
    owner: str
    generation: int
    expires_at: float


class ThreadStore(ABC):
    """A journal store. All methods are coroutines; a store is opened once, used from
    one event loop, and closed once. Methods other than `open`, `close` and `now`
    raise `StoreClosedError` outside that window.
    """

    max_page: int = MAX_PAGE

    @abstractmethod
    async def open(self, progress: ProgressCallback | None = None) -> None:
        """Create or migrate the schema (atomically) and verify it. Raises
        `SchemaError` for a newer, foreign or damaged schema (S8)."""

    @abstractmethod
    async def close(self) -> None:
        """Release the store's resources. Closing twice is harmless."""

    @abstractmethod
    async def now(self) -> float:
        """The store's clock, in seconds since the epoch: leases expire by it."""

    @abstractmethod
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
        """Create a thread with its first records. Raises `ThreadExistsError` when the
        id is taken (unless `request` is a duplicate, which answers first)."""

    @abstractmethod
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
        """Append `records` to a thread's journal, in one transaction with: the fence
        check (S5), the request key (S3), the `active` flag and `summary` (when not
        None) and, with `revoke_lease`, ending whatever lease is held (the holder's
        later fenced writes fail). Raises `ThreadNotFoundError` for an unknown thread
        (a duplicate request answers first).

        With `durable`, the commit is on stable storage when the call returns, so it
        survives a power loss or an operating-system crash, not only a crash of the
        process; the service asks it for the commit that precedes a tool's effect
        (its `dispatched` records). A backend whose every commit is that durable, or
        that keeps nothing (the memory store), may ignore it."""

    @abstractmethod
    async def read(self, thread_id: str, *, after: int = 0, limit: int = MAX_PAGE) -> list[Record]:
        """Up to `limit` records with `seq > after`, in order. Raises
        `ThreadNotFoundError` and `PageBoundError` (S6)."""

    @abstractmethod
    async def thread(self, thread_id: str) -> ThreadRow | None:
        """The thread's row, or None when there is no such thread."""

    @abstractmethod
    async def list_threads(
        self,
        *,
        parent_id: str | None = None,
        before: int | None = None,
        limit: int = 100,
    ) -> list[ThreadRow]:
        """Threads newest first (by `ordinal`), only those with `ordinal < before`
        when given; top-level threads when `parent_id` is None, else that thread's
        children. Raises `PageBoundError` (S6)."""

    @abstractmethod
    async def delete_thread(self, thread_id: str, *, request: RequestClaim | None = None) -> Commit:
        """Delete a thread, its journal, its lease and its children (recursively).
        Request keys stay. Raises `ThreadNotFoundError` (a duplicate answers first)."""

    @abstractmethod
    async def claim(self, thread_id: str, owner: str, ttl: float) -> Lease | None:
        """Take the thread's lease for `ttl` seconds, or None when another owner holds
        it unexpired (S4). Raises `ThreadNotFoundError`."""

    @abstractmethod
    async def renew(self, lease: Lease, ttl: float) -> Lease:
        """Extend a held lease to `now + ttl`, same generation. Raises
        `LeaseLostError` when `lease` no longer holds the thread."""

    @abstractmethod
    async def release(self, lease: Lease, *, if_last_seq: int | None = None) -> bool:
        """Give the lease up. With `if_last_seq`, only when the journal still ends
        there (no one appended since the runner last looked); returns False, keeping
        the lease, otherwise. Releasing a lease already lost returns True."""

    @abstractmethod
    async def claimable(self, *, limit: int = 100) -> list[str]:
        """Threads that need a runner, by creation (S7): active ones whose lease is free
        or expired, and any whose lease expired unreleased."""

    async def purge(
        self,
        *,
        ended_before: float | None = None,
        keep_last: int | None = None,
        archive_to: ArchiveSink | None = None,
        limit: int = 100,
    ) -> PurgeReport:
        """Delete ended top-level threads, with their children and journals, whose last
        write is before `ended_before` (the store's clock) and that are not among the
        `keep_last` newest top-level threads (both must hold when both are given), up
        to `limit` trees, oldest first; with `archive_to`, each thread's journal is
        written there (JSON lines) before it is deleted. Request keys stay. Raises
        `PurgeRefusedError`, deleting nothing, while a live lease is held on a thread
        it would delete (rules RT1-RT5 of docs/threads-storage.md). A backend that
        cannot purge raises `StoreError` (this default)."""
        raise StoreError(f"{type(self).__name__} cannot purge threads")

    def changes(self) -> AsyncIterator[str] | None:
        """Thread ids as commits to them happen, in any process sharing the store, so a
        host can refresh its subscribers without polling; None (the default) when the
        backend cannot tell, and hosts poll. An id may come more than once, and a feed
        that reconnects may miss some, so hosts keep polling, only less often."""
        return None
