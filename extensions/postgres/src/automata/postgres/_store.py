"""The PostgreSQL store: many hosts on one database serve the same threads.

How it works (what `docs/threads-storage.md` promises):

- **One transaction per call, few round trips.** Every write runs in one transaction
  on a pooled connection; reads and lease calls are single statements, each its own
  transaction. A write to a thread first locks its row (`FOR UPDATE`), then checks the
  request key and the fence (owner and generation) and takes the next sequence numbers
  from the row's `last_seq`, all under that lock, so writers to one thread serialize
  and commit in sequence order. An append without a request key is one statement
  (`_appends`); those made while the store's previous batch is in flight share the
  next one's statement and commit (group commit, `_batches`), each still fenced and
  all or nothing; reads are batched the same way (`_reads`). Creates, deletes and
  keyed appends are transactions of a few statements (`_writes`; a keyed append is
  pipelined). A call whose caller is cancelled still runs to its end (commit or
  rollback): the work is shielded from cancellation.
- **The database's clock.** Lease expiry and record times come from the server's
  `clock_timestamp()`, in seconds since the epoch, inside the statement that decides;
  no host's wall clock is ever compared with another's.
- **Claims in one statement.** `claim` is a single `UPDATE` whose `WHERE` clause admits
  only a free, expired or own lease; two hosts racing serialize on the row lock and the
  second sees the first's lease.
- **Notifications.** Each committing journal write (create, append, delete) calls
  `pg_notify` with the thread id in its transaction; PostgreSQL delivers it at commit,
  to every listener (`changes`).
- **Request keys** live in a table whose primary key is the key; a race between two
  first uses of one key is settled by that constraint (the loser retries and answers as
  a duplicate or a conflict).
- **Lost connections** (`_connections`): the store's pool checks each connection as it
  hands it out, and a call whose connection breaks mid-way is run again on a fresh one
  only when that cannot apply it twice; otherwise it fails closed with
  `StoreUnavailableError`.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import psycopg
from psycopg import AsyncConnection, sql
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool

from automata.core import InvalidArgumentError
from automata.postgres import _connections as connections
from automata.postgres import _reads as reads
from automata.postgres import _schema as schema_
from automata.postgres import _writes as writes
from automata.postgres._appends import AppendItem, append_many
from automata.postgres._batches import BatchQueue
from automata.postgres._changes import listen
from automata.postgres._purge import purge
from automata.postgres._queries import Queries
from automata.threads import StoreClosedError, StoreError
from automata.threads._retention import ArchiveSink, PurgeReport, check_purge_arguments
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

__all__ = ["DEFAULT_CONNECT_TIMEOUT", "DEFAULT_STALLED_TRANSACTION_TIMEOUT", "PostgresStore"]

_T = TypeVar("_T")
_I = TypeVar("_I")
_Connection = AsyncConnection[TupleRow]
_Pool = AsyncConnectionPool[_Connection]
_UNIQUE_RETRIES = 3
_FLUSHERS = 1  # batches of appends (and of reads) in flight at once, per store
DEFAULT_STALLED_TRANSACTION_TIMEOUT = 5.0
"""Seconds the server lets a transaction of the store's own pool sit idle before ending
it (rolling it back and releasing its locks)."""
DEFAULT_CONNECT_TIMEOUT = 30.0
"""Seconds a call of the store's own pool waits for a working connection (the server
restarting, say) before it fails with `StoreUnavailableError`."""


async def _first(outcomes: Awaitable[list[_T | Exception]]) -> _T:
    """The one outcome of a batch of one, raised when it is an error."""
    (outcome,) = await outcomes
    if isinstance(outcome, Exception):
        raise outcome
    return outcome


class PostgresStore(ThreadStore):
    """A `ThreadStore` in one PostgreSQL schema, shared by any number of hosts.

    `dsn_or_pool` is a connection string (the store then owns a pool of `min_size` to
    `max_size` connections, opened at `open` and closed at `close`) or an
    `AsyncConnectionPool` the host owns (the store uses it and never closes it; its
    connections may be in autocommit mode or not). A transaction of the store's own
    pool that stalls mid-way (its process paused, its event loop blocked) is ended by
    the server after `stalled_transaction_timeout` seconds, releasing its row locks;
    give a pool of your own the same setting (`idle_in_transaction_session_timeout`).
    The store's own pool checks each connection as it hands it out, replacing one the
    server dropped (idle, terminated, or from before a restart) and waiting up to
    `connect_timeout` seconds for the server; give a pool of your own
    `check=AsyncConnectionPool.check_connection` for the same. A call whose connection
    breaks mid-way is run again only when that cannot apply it twice, else it raises
    `StoreUnavailableError` (see docs/threads-storage.md).
    `schema` is the tenant's namespace: stores on different schemas of one database
    share nothing. Use from one event loop.

    The clock (`now`, lease expiry) is the database server's."""

    def __init__(
        self,
        dsn_or_pool: str | _Pool,
        *,
        schema: str = schema_.DEFAULT_SCHEMA,
        min_size: int = 1,
        max_size: int = 10,
        stalled_transaction_timeout: float = DEFAULT_STALLED_TRANSACTION_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    ) -> None:
        self.schema = schema_.check_schema_name(schema)
        self.channel = schema_.channel_for(schema)
        if isinstance(dsn_or_pool, str):
            if not 0 <= min_size <= max_size or max_size < 1:
                raise ValueError(f"need 0 <= min_size <= max_size >= 1, got {min_size}, {max_size}")
            self._dsn: str | None = dsn_or_pool
            self._given_pool: _Pool | None = None
        else:
            self._dsn = None
            self._given_pool = dsn_or_pool
        if stalled_transaction_timeout <= 0:
            raise ValueError(
                f"stalled_transaction_timeout must be positive, got {stalled_transaction_timeout}"
            )
        if connect_timeout <= 0:
            raise ValueError(f"connect_timeout must be positive, got {connect_timeout}")
        self.min_size, self.max_size = min_size, max_size
        self.connect_timeout = connect_timeout
        self.stalled_transaction_timeout = stalled_transaction_timeout
        self._pool: _Pool | None = None
        self._open = False
        self._clock_offset = 0.0
        self._running: set[asyncio.Task[Any]] = set()
        self._q = Queries(sql.Identifier(self.schema))
        self._tree_lock = f"automata.threads.tree:{self.schema}"
        self._appends: BatchQueue[AppendItem, Commit] | None = None
        self._reads: BatchQueue[reads.ReadItem, list[Record]] | None = None
        self._rows: BatchQueue[str, tuple[ThreadRow | None]] | None = None
        self._backends: set[int] = set()  # server processes of the store's connections

    async def _configure(self, connection: _Connection) -> None:
        """Make the server end a transaction of ours that stalls (its process paused or
        hung mid-transaction), so the row locks it holds do not stop other hosts."""
        milliseconds = max(1, round(self.stalled_transaction_timeout * 1000))
        await connection.execute(f"SET idle_in_transaction_session_timeout = {milliseconds}")

    def __repr__(self) -> str:
        return f"PostgresStore(schema={self.schema!r})"

    # -- running calls --------------------------------------------------------------

    def _live_pool(self) -> _Pool:
        if not self._open or self._pool is None:
            raise StoreClosedError(f"the PostgreSQL store on schema {self.schema!r} is not open")
        return self._pool

    async def _run(
        self,
        work: Callable[[_Connection], Awaitable[_T]],
        *,
        transaction: bool = True,
        safety: connections.Safety = "once",
        pool: _Pool | None = None,
    ) -> _T:
        """Run `work` on a pooled connection, shielded from the caller's cancellation;
        database errors become `StoreError`, a lost connection `StoreUnavailableError`.
        With `transaction`, `work` runs in one transaction; without it (a single
        statement, or reads that need no snapshot across statements) each statement
        commits by itself, saving the round trips of BEGIN and COMMIT. `safety` says
        whether `work` may run again after its connection broke mid-way ("again":
        reads, idempotent writes, writes with a request key) or only when it is known
        not to have committed ("once"). `pool` is the open store's pool, taken while it
        was open by a call that started then (a flush of queued calls)."""
        if pool is None:
            pool = self._live_pool()

        backends = self._backends

        async def tracked(connection: _Connection) -> _T:
            backends.add(connection.info.backend_pid)
            return await work(connection)

        async def attempt() -> _T:
            for tries in range(_UNIQUE_RETRIES):
                try:
                    return await connections.run(
                        pool, tracked, transaction=transaction, safety=safety
                    )
                except psycopg.errors.UniqueViolation:
                    if tries == _UNIQUE_RETRIES - 1:
                        raise
            raise AssertionError("unreachable")

        try:
            return await asyncio.shield(self._spawn(attempt()))
        except psycopg.Error as error:
            raise StoreError(
                f"the PostgreSQL store on schema {self.schema!r} failed: {error}"
            ) from error
        except UnicodeEncodeError as error:  # a parameter psycopg could not send
            raise InvalidArgumentError(
                f"text given to the PostgreSQL store holds a lone surrogate at index "
                f"{error.start}, which is not valid Unicode text; nothing was stored"
            ) from error

    def _spawn(self, work: Awaitable[_T]) -> asyncio.Future[_T]:
        """Run `work` as a task `close` waits for."""
        task = asyncio.ensure_future(work)
        self._running.add(task)
        task.add_done_callback(self._finished)
        return task

    def _append_queue(self) -> BatchQueue[AppendItem, Commit]:
        """The queue of appends without a request key, run on the open pool."""
        pool = self._live_pool()
        if self._appends is None:
            q, channel = self._q, self.channel

            async def run(items: Sequence[AppendItem], wait: bool) -> list[Commit | Exception]:
                return await self._run(
                    lambda connection: append_many(connection, q, channel, items, wait=wait),
                    transaction=False,
                    safety="once",
                    pool=pool,
                )

            self._appends = BatchQueue(
                lambda items: run(items, False),
                lambda item: _first(run([item], True)),
                self._spawn,
                flushers=_FLUSHERS,
                key=lambda item: item.thread_id,
            )
        return self._appends

    def _read_queue(self) -> BatchQueue[reads.ReadItem, list[Record]]:
        """The queue of reads, run on the open pool."""
        pool = self._live_pool()
        if self._reads is None:
            self._reads = self._batched_reads(pool, reads.read_many)
        return self._reads

    def _row_queue(self) -> BatchQueue[str, tuple[ThreadRow | None]]:
        """The queue of thread rows asked for (`thread`), run on the open pool."""
        pool = self._live_pool()
        if self._rows is None:
            self._rows = self._batched_reads(pool, reads.thread_rows)
        return self._rows

    def _batched_reads(
        self,
        pool: _Pool,
        fetch: Callable[[_Connection, Queries, Sequence[_I]], Awaitable[list[_T | Exception]]],
    ) -> BatchQueue[_I, _T]:
        """A queue whose waiting items `fetch` answers in one statement (outside a
        transaction, safe to run again after a broken connection)."""
        q = self._q

        async def run(items: Sequence[_I]) -> list[_T | Exception]:
            return await self._run(
                lambda connection: fetch(connection, q, items),
                transaction=False,
                safety="again",
                pool=pool,
            )

        return BatchQueue(run, lambda item: _first(run([item])), self._spawn, flushers=_FLUSHERS)

    def _sent_by_own_connection(self, backend_pid: int) -> bool:
        """Whether `backend_pid` is the server process of a connection this store ran a
        call on (a notification it sent is the echo of the store's own commit). The
        ids of connections since closed stay until the store closes: a later server
        process given such an id has its ids marked too, and a host passing one over
        then sees that change at its next poll, so a mark only ever delays a wake-up."""
        return backend_pid in self._backends

    def _finished(self, task: asyncio.Task[Any]) -> None:
        """Forget a finished call; its outcome is retrieved here too, as a caller that
        was cancelled while it ran never asks for it."""
        self._running.discard(task)
        if not task.cancelled():
            task.exception()

    # -- lifecycle ------------------------------------------------------------------

    async def open(self, progress: ProgressCallback | None = None) -> None:
        if self._open:
            raise StoreError(f"the PostgreSQL store on schema {self.schema!r} is already open")
        pool = self._given_pool
        if pool is None:
            assert self._dsn is not None
            pool = connections.make_pool(
                self._dsn,
                min_size=self.min_size,
                max_size=self.max_size,
                connect_timeout=self.connect_timeout,
                configure=self._configure,
                name=f"automata-threads-{self.schema}",
            )
        try:
            if self._given_pool is None:
                await pool.open(wait=True)
            async with pool.connection() as connection:
                await schema_.migrate(connection, self.schema, progress)
                async with connection.transaction():
                    cursor = await connection.execute(self._q.now)
                    found = await cursor.fetchone()
                    assert found is not None
                    self._clock_offset = float(found[0]) - time.time()
        except BaseException as error:
            if self._given_pool is None:
                await pool.close()
            if isinstance(error, psycopg.Error):
                raise StoreError(
                    f"cannot open the PostgreSQL store on schema {self.schema!r}: {error}"
                ) from error
            raise
        self._pool = pool
        self._open = True

    async def close(self) -> None:
        pool = self._pool
        if pool is None:
            return
        self._open = False
        self._pool = None
        while self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
        self._appends = self._reads = None
        self._rows = None
        self._backends.clear()
        if self._given_pool is None:
            await pool.close()

    async def now(self) -> float:
        """The database server's clock; once closed, the local clock corrected by the
        offset measured at `open` (nothing expires by it then)."""
        if not self._open or self._pool is None:
            return time.time() + self._clock_offset
        q = self._q
        return await self._run(
            lambda connection: reads.now(connection, q), transaction=False, safety="again"
        )

    def changes(self) -> AsyncGenerator[str, None]:
        """Thread ids as commits to them happen in any host on this schema, from a
        dedicated LISTEN connection that reconnects after a failure (ids committed
        while it reconnects are missed). An id committed through this store itself
        comes as an `OwnCommit` (equal to the id; `committed_here` is True). Ends when
        the store closes; `aclose()` it (or use `contextlib.aclosing`) to stop
        listening earlier."""
        return listen(self)

    @property
    def is_open(self) -> bool:
        """Whether the store is between `open` and `close`."""
        return self._open

    async def conninfo(self) -> tuple[str, dict[str, Any]]:
        """The connection string and connection options a dedicated connection to the
        store's database uses (the feed's listening connection): the DSN, or the given
        pool's (resolving them when the pool computes them)."""
        if self._dsn is not None:
            return self._dsn, connections.connection_options(self._dsn)
        assert self._given_pool is not None
        conninfo: Any = self._given_pool.conninfo
        kwargs: Any = self._given_pool.kwargs
        if callable(conninfo):
            conninfo = conninfo()
        if callable(kwargs):
            kwargs = kwargs()
        if inspect.isawaitable(conninfo):
            conninfo = await conninfo
        if inspect.isawaitable(kwargs):
            kwargs = await kwargs
        return str(conninfo), dict(kwargs or {})

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
        records, q = tuple(records), self._q
        return await self._run(
            lambda connection: writes.create_thread(
                connection,
                q,
                thread_id=thread_id,
                records=records,
                parent_id=parent_id,
                summary=summary,
                active=active,
                request=request,
                tree_lock=self._tree_lock,
                channel=self.channel,
            ),
            safety="once" if request is None else "again",
        )

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
        """See `ThreadStore.append`. Without a request key, concurrent appends share
        one statement and its commit (`_appends`); with one, a transaction of its own
        (`_writes.append_keyed`)."""
        item = AppendItem(thread_id, tuple(records), fence, active, summary, revoke_lease, durable)
        if request is None:
            return await self._append_queue().submit(item)
        q, channel = self._q, self.channel
        return await self._run(
            lambda connection: writes.append_keyed(connection, q, item, request, channel),
            transaction=False,  # its own, pipelined
            safety="again",
        )

    async def delete_thread(self, thread_id: str, *, request: RequestClaim | None = None) -> Commit:
        q = self._q
        return await self._run(
            lambda connection: writes.delete_thread(
                connection,
                q,
                thread_id=thread_id,
                request=request,
                tree_lock=self._tree_lock,
                channel=self.channel,
            ),
            safety="once" if request is None else "again",
        )

    async def purge(
        self,
        *,
        ended_before: float | None = None,
        keep_last: int | None = None,
        archive_to: ArchiveSink | None = None,
        limit: int = 100,
    ) -> PurgeReport:
        """See `ThreadStore.purge`: this schema's threads only, in one transaction
        (`_purge`)."""
        check_purge_arguments(ended_before, keep_last, limit, self.max_page)
        scope = (self._q, self.schema, self.channel, self._tree_lock)
        return await self._run(
            lambda connection: purge(connection, *scope, ended_before, keep_last, archive_to, limit)
        )

    # -- leases ---------------------------------------------------------------------

    async def claim(self, thread_id: str, owner: str, ttl: float) -> Lease | None:
        q = self._q
        return await self._run(
            lambda connection: reads.claim(connection, q, thread_id, owner, ttl),
            transaction=False,
            safety="again",
        )

    async def renew(self, lease: Lease, ttl: float) -> Lease:
        q = self._q
        return await self._run(
            lambda connection: reads.renew(connection, q, lease, ttl),
            transaction=False,
            safety="again",
        )

    async def release(self, lease: Lease, *, if_last_seq: int | None = None) -> bool:
        q = self._q
        return await self._run(
            lambda connection: reads.release(connection, q, lease, if_last_seq),
            transaction=False,
            safety="again",
        )

    # -- reads ----------------------------------------------------------------------

    async def read(self, thread_id: str, *, after: int = 0, limit: int = 1000) -> list[Record]:
        """See `ThreadStore.read`: reads made while others are in flight share one
        statement (`_batches`); each still reads one snapshot."""
        reads.check_limit(limit, self.max_page)
        return await self._read_queue().submit(reads.ReadItem(thread_id, after, limit))

    async def thread(self, thread_id: str) -> ThreadRow | None:
        """See `ThreadStore.thread`: rows asked for while others are in flight share
        one statement (`_batches`)."""
        (row,) = await self._row_queue().submit(thread_id)
        return row

    async def list_threads(
        self,
        *,
        parent_id: str | None = None,
        before: int | None = None,
        limit: int = 100,
    ) -> list[ThreadRow]:
        reads.check_limit(limit, self.max_page)
        q = self._q
        last = 2**63 - 1 if before is None else before
        return await self._run(
            lambda connection: reads.list_threads(connection, q, parent_id, last, limit),
            transaction=False,
            safety="again",
        )

    async def claimable(self, *, limit: int = 100) -> list[str]:
        reads.check_limit(limit, self.max_page)
        q = self._q
        return await self._run(
            lambda connection: reads.claimable(connection, q, limit),
            transaction=False,
            safety="again",
        )
