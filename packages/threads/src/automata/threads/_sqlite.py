"""The SQLite store: the embedded default, one file that several processes may share.

How it works (what `docs/threads-storage.md` promises):

- **One thread per store.** Every call runs on the store's own worker thread
  (`_sqlite_worker`), which owns the store's single `sqlite3` connection; calls are
  serialized there and the event loop never blocks on SQLite. A call cancelled while
  it runs still runs to its end (commit or rollback) on the worker, so a commit is
  never cut in half.
- **Transactions.** Every write runs in a `BEGIN IMMEDIATE` transaction: it takes the
  file's write lock before reading anything it decides on, so processes sharing the
  file serialize their writes, and a fence (owner and generation, S5) is checked in
  the transaction that writes. Writes waiting together share one transaction (group
  commit: one commit, one sync of the log for all of them; a write refused is left
  out alone, see `_sqlite_worker`). A writer waits for the lock up to `busy_timeout`.
- **Clock.** `now` is this machine's wall clock (`time.time()`), read inside the write
  transaction; processes sharing a file share a machine, hence a clock.
- **File.** WAL journal mode; `auto_vacuum = INCREMENTAL` (set before the first table
  is created); the schema is recognised by `PRAGMA application_id` and versioned by
  `PRAGMA user_version` (see `_sqlite_schema`).
- **Open lock.** An open store holds a shared `flock` on the sidecar file
  `<path>.lock`; `maintain_sqlite` takes it exclusively, so it never runs while a
  store has the file open.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from automata.threads import _retention, _sqlite_purge
from automata.threads import _sqlite_file as files
from automata.threads import _sqlite_schema as schema
from automata.threads._errors import (
    LeaseLostError,
    RequestConflictError,
    StoreClosedError,
    StoreError,
    ThreadExistsError,
    ThreadNotFoundError,
)
from automata.threads._memory import check_limit
from automata.threads._retention import ArchiveSink, PurgeReport
from automata.threads._sqlite_statements import APPEND, READ, ROW, refuse, thread_row
from automata.threads._sqlite_worker import Kind, SQLiteWorker
from automata.threads._text import refused_text
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

__all__ = ["DEFAULT_BUSY_TIMEOUT", "SQLiteStore", "lock_path"]

DEFAULT_BUSY_TIMEOUT = 5.0
"""Seconds a write waits for another process's write lock before failing."""

_T = TypeVar("_T")


def lock_path(path: Path) -> Path:
    """The sidecar file an open store holds a shared lock on."""
    return path.with_name(path.name + ".lock")


def resolve(path: str | os.PathLike[str]) -> Path:
    """The absolute database path; its directory must exist."""
    resolved = Path(path).expanduser().absolute()
    if not resolved.parent.is_dir():
        raise StoreError(
            f"cannot open a threads store at {resolved}: directory {resolved.parent} "
            "does not exist (create it first)"
        )
    if resolved.is_dir():
        raise StoreError(f"cannot open a threads store at {resolved}: it is a directory")
    return resolved


class SQLiteStore(ThreadStore):
    """A `ThreadStore` in one SQLite file at `path` (its directory must exist). `open`
    creates the store only where no file exists; an existing empty file (no bytes, or
    a SQLite database with nothing in it) is refused with `SchemaError` unless
    `adopt_empty` (a file made empty on purpose, e.g. by `tempfile.mkstemp`). Several
    processes may open the same file; writes serialize on SQLite's lock, waiting up to
    `busy_timeout` seconds for it.

    Use from one event loop. The clock is the machine's wall clock."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        adopt_empty: bool = False,
    ) -> None:
        if busy_timeout < 0:
            raise ValueError(f"busy_timeout must be >= 0 seconds, got {busy_timeout!r}")
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self.adopt_empty = adopt_empty
        self._worker: SQLiteWorker | None = None
        self._connection: sqlite3.Connection | None = None
        self._lock_fd: int | None = None
        self._open = False

    # -- running on the worker ------------------------------------------------------

    async def _run(self, kind: Kind, call: Callable[[], _T], *, durable: bool = False) -> _T:
        """`call`'s result, run on the worker: a `write` in a transaction (grouped
        with the writes waiting beside it; `durable`: at `synchronous = FULL`), a
        `read` as it is, a `solo` alone."""
        if not self._open or self._worker is None:
            raise StoreClosedError(f"the SQLite store at {self.path} is not open")
        try:
            result: _T = await self._worker.submit(kind, call, durable=durable)
            return result
        except sqlite3.Error as error:
            raise StoreError(f"the SQLite store at {self.path} failed: {error}") from error
        except UnicodeEncodeError as error:  # a parameter; the transaction rolled back
            raise refused_text(error, f"the SQLite store at {self.path}") from error

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            raise StoreClosedError(f"the SQLite store at {self.path} is not open")
        return self._connection

    @contextlib.contextmanager
    def _write(self, *, durable: bool = False) -> Iterator[sqlite3.Connection]:
        """One `BEGIN IMMEDIATE` transaction of its own, for a `solo` call (see
        `SQLiteWorker.transaction`)."""
        assert self._worker is not None
        with self._worker.transaction(durable=durable) as db:
            yield db

    # -- lifecycle ------------------------------------------------------------------

    async def open(self, progress: ProgressCallback | None = None) -> None:
        if self._open:
            raise StoreError(f"the SQLite store at {self.path} is already open")
        path = resolve(self.path)
        worker = SQLiteWorker(self._db, name="automata-sqlite")
        try:
            await worker.submit("solo", lambda: self._open_sync(path, progress))
        except BaseException as error:
            await asyncio.shield(worker.submit("solo", self._close_sync))
            worker.stop()
            if isinstance(error, sqlite3.Error):
                raise StoreError(f"cannot open the threads store at {path}: {error}") from error
            raise
        self._worker = worker
        self._open = True

    def _open_sync(self, path: Path, progress: ProgressCallback | None) -> None:
        self._lock_fd = _take_lock(path, self.busy_timeout)
        found = files.examine(path)
        if found == "empty":
            if not self.adopt_empty:
                raise files.refuse_empty(path)
            self._adopt_empty(path)
        elif found == "missing":
            files.create(path)
        if self._check_read_only(path).fresh and not self.adopt_empty:
            raise files.refuse_empty(path, database=True)
        db = sqlite3.connect(path, timeout=self.busy_timeout, isolation_level=None)
        self._connection = db
        db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
        state = schema.inspect(db, path, check=False)
        if state.fresh:
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        if not state.fresh and state.version < schema.SCHEMA_VERSION and progress is not None:
            progress("migrating")
        schema.migrate(db, path)
        if progress is not None:
            progress("verifying")
        schema.verify(db, path)

    def _check_read_only(self, path: Path) -> schema.FileState:
        """Recognise the file and check its pages and tables (`schema.inspect`,
        `schema.check_tables`) on a read-only connection, so a file refused here is left
        as it was: closing the last read-write connection of a file in WAL mode would
        checkpoint its write-ahead log into it and delete the log. Raises
        `SchemaError`."""
        uri = f"{path.as_uri()}?mode=ro"
        probe = sqlite3.connect(uri, uri=True, timeout=self.busy_timeout, isolation_level=None)
        with contextlib.closing(probe):
            probe.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            state = schema.inspect(probe, path)
            schema.check_tables(probe, path, state.version)
        return state

    def _adopt_empty(self, path: Path) -> None:
        """Make the empty file at `path` a new store, under the exclusive lock so no
        other store has it open meanwhile; then hold the shared lock again."""
        assert self._lock_fd is not None
        os.close(self._lock_fd)
        self._lock_fd = None
        exclusive = _take_lock(path, self.busy_timeout, exclusive=True)
        try:
            if files.examine(path) == "empty":  # not adopted by another process meanwhile
                files.create(path, over_empty=True)
        finally:
            os.close(exclusive)
        self._lock_fd = _take_lock(path, self.busy_timeout)

    async def close(self) -> None:
        worker = self._worker
        if worker is None:
            return
        self._open = False
        self._worker = None
        try:
            await asyncio.shield(worker.submit("solo", self._close_sync))
        finally:
            worker.stop()

    def _close_sync(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    async def now(self) -> float:
        return time.time()

    # -- request keys ---------------------------------------------------------------

    @staticmethod
    def _duplicate(db: sqlite3.Connection, request: RequestClaim | None) -> Commit | None:
        if request is None:
            return None
        found = db.execute(
            "SELECT fingerprint, outcome FROM requests WHERE key = ?", (request.key,)
        ).fetchone()
        if found is None:
            return None
        if found[0] != request.fingerprint:
            raise RequestConflictError(request.key)
        return Commit(0, 0, duplicate=True, outcome=str(found[1]))

    @staticmethod
    def _remember(db: sqlite3.Connection, request: RequestClaim | None, at: float) -> None:
        if request is not None:
            db.execute(
                "INSERT INTO requests (key, fingerprint, outcome, at) VALUES (?, ?, ?, ?)",
                (request.key, request.fingerprint, request.outcome, at),
            )

    @staticmethod
    def _add(
        db: sqlite3.Connection,
        thread_id: str,
        last_seq: int,
        records: Sequence[NewRecord],
        at: float,
    ) -> Commit:
        if not records:
            return Commit(0, 0)
        db.executemany(
            "INSERT INTO records (thread_id, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)",
            [
                (thread_id, last_seq + 1 + offset, new.kind, new.data, at)
                for offset, new in enumerate(records)
            ],
        )
        return Commit(last_seq + 1, last_seq + len(records))

    # -- writes ---------------------------------------------------------------------

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
        records = tuple(records)

        def create() -> Commit:
            db = self._db()
            duplicate = self._duplicate(db, request)
            if duplicate is not None:
                return duplicate
            exists = db.execute("SELECT 1 FROM threads WHERE thread_id = ?", (thread_id,))
            if exists.fetchone() is not None:
                raise ThreadExistsError(thread_id)
            if parent_id is not None:
                found = db.execute("SELECT 1 FROM threads WHERE thread_id = ?", (parent_id,))
                if found.fetchone() is None:
                    raise ThreadNotFoundError(parent_id)
            at = time.time()
            db.execute(
                "INSERT INTO threads (thread_id, parent_id, created_at, updated_at, "
                "last_seq, active, summary) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (thread_id, parent_id, at, at, len(records), int(active), summary),
            )
            commit = self._add(db, thread_id, 0, records, at)
            self._remember(db, request, at)
            return commit

        return await self._run("write", create)

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
        records = tuple(records)

        def append() -> Commit:
            db = self._db()
            duplicate = self._duplicate(db, request)
            if duplicate is not None:
                return duplicate
            at = time.time()
            moved = db.execute(
                APPEND,
                {
                    "thread": thread_id,
                    "count": len(records),
                    "at": at,
                    "active": None if active is None else int(active),
                    "summary": summary,
                    "revoke": int(revoke_lease),
                    "fenced": int(fence is not None),
                    "owner": None if fence is None else fence.owner,
                    "generation": None if fence is None else fence.generation,
                },
            ).fetchall()  # to its end: a statement left running would hold up the commit
            if not moved:
                refuse(db, thread_id, fence)
            commit = self._add(db, thread_id, int(moved[0][0]) - len(records), records, at)
            self._remember(db, request, at)
            return commit

        return await self._run("write", append, durable=durable)

    async def delete_thread(self, thread_id: str, *, request: RequestClaim | None = None) -> Commit:
        def delete() -> Commit:
            db = self._db()
            duplicate = self._duplicate(db, request)
            if duplicate is not None:
                return duplicate
            found = db.execute("SELECT 1 FROM threads WHERE thread_id = ?", (thread_id,))
            if found.fetchone() is None:
                raise ThreadNotFoundError(thread_id)
            doomed = [
                str(row[0])
                for row in db.execute(
                    "WITH RECURSIVE doomed(id) AS (SELECT ? UNION "
                    "SELECT threads.thread_id FROM threads JOIN doomed "
                    "ON threads.parent_id = doomed.id) SELECT id FROM doomed",
                    (thread_id,),
                )
            ]
            db.executemany("DELETE FROM records WHERE thread_id = ?", [(t,) for t in doomed])
            db.executemany("DELETE FROM threads WHERE thread_id = ?", [(t,) for t in doomed])
            self._remember(db, request, time.time())
            return Commit(0, 0)

        return await self._run("write", delete)

    async def purge(
        self,
        *,
        ended_before: float | None = None,
        keep_last: int | None = None,
        archive_to: ArchiveSink | None = None,
        limit: int = 100,
    ) -> PurgeReport:
        """See `ThreadStore.purge`; one write transaction, then the freed pages go back
        to the disk (`pages_freed`; see `_sqlite_purge`)."""
        _retention.check_purge_arguments(ended_before, keep_last, limit, self.max_page)
        return await self._run(
            "solo",
            lambda: _sqlite_purge.purge_sync(
                self._write,
                ended_before=ended_before,
                keep_last=keep_last,
                archive_to=archive_to,
                limit=limit,
            ),
        )

    # -- leases ---------------------------------------------------------------------

    async def claim(self, thread_id: str, owner: str, ttl: float) -> Lease | None:
        def claim() -> Lease | None:
            db = self._db()
            found = db.execute(
                "SELECT owner, generation, expires_at FROM threads WHERE thread_id = ?",
                (thread_id,),
            ).fetchone()
            if found is None:
                raise ThreadNotFoundError(thread_id)
            holder, generation, expires_at = found[0], int(found[1]), float(found[2])
            now = time.time()
            held = holder is not None and expires_at > now
            if held and holder != owner:
                return None
            if not held or holder != owner:
                generation += 1
            db.execute(
                "UPDATE threads SET owner = ?, generation = ?, expires_at = ? WHERE thread_id = ?",
                (owner, generation, now + ttl, thread_id),
            )
            return Lease(thread_id, owner, generation, now + ttl)

        return await self._run("write", claim)

    async def renew(self, lease: Lease, ttl: float) -> Lease:
        def renew() -> Lease:
            db = self._db()
            expires_at = time.time() + ttl
            changed = db.execute(
                "UPDATE threads SET expires_at = ? "
                "WHERE thread_id = ? AND owner = ? AND generation = ?",
                (expires_at, lease.thread_id, lease.owner, lease.generation),
            ).rowcount
            if changed != 1:
                raise LeaseLostError(lease.thread_id, lease.owner, lease.generation)
            return Lease(lease.thread_id, lease.owner, lease.generation, expires_at)

        return await self._run("write", renew)

    async def release(self, lease: Lease, *, if_last_seq: int | None = None) -> bool:
        def release() -> bool:
            db = self._db()
            found = db.execute(
                "SELECT last_seq FROM threads WHERE thread_id = ? AND owner = ? AND generation = ?",
                (lease.thread_id, lease.owner, lease.generation),
            ).fetchone()
            if found is None:
                return True
            if if_last_seq is not None and int(found[0]) != if_last_seq:
                return False
            db.execute(
                "UPDATE threads SET owner = NULL, expires_at = 0 WHERE thread_id = ?",
                (lease.thread_id,),
            )
            return True

        return await self._run("write", release)

    # -- reads ----------------------------------------------------------------------

    async def read(self, thread_id: str, *, after: int = 0, limit: int = 1000) -> list[Record]:
        check_limit(limit, self.max_page)

        def read() -> list[Record]:
            rows = (
                self._db()
                .execute(READ, {"thread": thread_id, "after": after, "limit": limit})
                .fetchall()
            )
            if not rows:
                raise ThreadNotFoundError(thread_id)
            if rows[0][0] is None:
                return []
            return [Record(thread_id, int(s), str(k), str(d), float(a)) for s, k, d, a in rows]

        return await self._run("read", read)

    async def thread(self, thread_id: str) -> ThreadRow | None:
        def thread() -> ThreadRow | None:
            found = self._db().execute(
                f"SELECT {ROW} FROM threads WHERE thread_id = ?", (thread_id,)
            )
            values = found.fetchone()
            return None if values is None else thread_row(values)

        return await self._run("read", thread)

    async def list_threads(
        self,
        *,
        parent_id: str | None = None,
        before: int | None = None,
        limit: int = 100,
    ) -> list[ThreadRow]:
        check_limit(limit, self.max_page)

        def list_threads() -> list[ThreadRow]:
            rows = self._db().execute(
                f"SELECT {ROW} FROM threads WHERE parent_id IS ? AND ordinal < ? "
                "ORDER BY ordinal DESC LIMIT ?",
                (parent_id, 2**63 - 1 if before is None else before, limit),
            )
            return [thread_row(values) for values in rows.fetchall()]

        return await self._run("read", list_threads)

    async def claimable(self, *, limit: int = 100) -> list[str]:
        check_limit(limit, self.max_page)

        def claimable() -> list[str]:
            rows = self._db().execute(
                "SELECT thread_id FROM threads WHERE (active = 1 AND owner IS NULL) "
                "OR (owner IS NOT NULL AND expires_at <= ?) ORDER BY ordinal LIMIT ?",
                (time.time(), limit),
            )
            return [str(row[0]) for row in rows.fetchall()]

        return await self._run("read", claimable)


def _take_lock(path: Path, timeout: float, *, exclusive: bool = False) -> int:
    """Hold a lock on `path`'s sidecar: shared for as long as the store is open, or
    exclusive while an empty file is made a store. Waits up to `timeout` seconds
    while another holder excludes it (maintenance, or an adoption)."""
    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise StoreError(
                    f"cannot open the threads store at {path}: "
                    + ("it is open elsewhere" if exclusive else "maintenance is running on it")
                ) from None
            time.sleep(0.05)
