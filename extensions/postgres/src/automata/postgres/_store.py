"""The PostgreSQL store: many hosts on one database serve the same threads.

How it works (what `docs/threads-storage.md` promises):

- **One transaction per call.** Every write runs in one transaction on a pooled
  connection; reads, `claim` and `renew` are single statements, each its own
  transaction. A write to a thread first locks its row (`SELECT ... FOR UPDATE`), then
  checks the request key and the fence (owner and generation) and takes the next
  sequence numbers from the row's `last_seq`, all under that lock, so writers to one
  thread serialize and commit in sequence order. A call whose caller is cancelled
  still runs to its end (commit or rollback): the work is shielded from cancellation.
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
from automata.postgres import _schema as schema_
from automata.postgres._changes import listen
from automata.postgres._purge import purge
from automata.postgres._queries import Queries
from automata.threads import (
    LeaseLostError,
    PageBoundError,
    RequestConflictError,
    StoreClosedError,
    StoreError,
    ThreadExistsError,
    ThreadNotFoundError,
)
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
_Connection = AsyncConnection[TupleRow]
_Pool = AsyncConnectionPool[_Connection]
_UNIQUE_RETRIES = 3
DEFAULT_STALLED_TRANSACTION_TIMEOUT = 5.0
"""Seconds the server lets a transaction of the store's own pool sit idle before ending
it (rolling it back and releasing its locks)."""
DEFAULT_CONNECT_TIMEOUT = 30.0
"""Seconds a call of the store's own pool waits for a working connection (the server
restarting, say) before it fails with `StoreUnavailableError`."""


def _row(values: TupleRow) -> ThreadRow:
    thread_id, parent_id, ordinal, created, updated, last_seq, active, summary = values
    return ThreadRow(
        thread_id, parent_id, int(ordinal), created, updated, int(last_seq), active, summary
    )


def _check_limit(limit: int, bound: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= bound:
        raise PageBoundError(f"page limit must be an int from 1 to {bound}, got {limit!r}")


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
    ) -> _T:
        """Run `work` on a pooled connection, shielded from the caller's cancellation;
        database errors become `StoreError`, a lost connection `StoreUnavailableError`.
        With `transaction`, `work` runs in one transaction; without it (a single
        statement, or reads that need no snapshot across statements) each statement
        commits by itself, saving the round trips of BEGIN and COMMIT. `safety` says
        whether `work` may run again after its connection broke mid-way ("again":
        reads, idempotent writes, writes with a request key) or only when it is known
        not to have committed ("once")."""
        pool = self._live_pool()

        async def attempt() -> _T:
            for tries in range(_UNIQUE_RETRIES):
                try:
                    return await connections.run(pool, work, transaction=transaction, safety=safety)
                except psycopg.errors.UniqueViolation:
                    if tries == _UNIQUE_RETRIES - 1:
                        raise
            raise AssertionError("unreachable")

        task = asyncio.ensure_future(attempt())
        self._running.add(task)
        task.add_done_callback(self._finished)
        try:
            return await asyncio.shield(task)
        except psycopg.Error as error:
            raise StoreError(
                f"the PostgreSQL store on schema {self.schema!r} failed: {error}"
            ) from error
        except UnicodeEncodeError as error:  # a parameter psycopg could not send
            raise InvalidArgumentError(
                f"text given to the PostgreSQL store holds a lone surrogate at index "
                f"{error.start}, which is not valid Unicode text; nothing was stored"
            ) from error

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
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
        if self._given_pool is None:
            await pool.close()

    async def now(self) -> float:
        """The database server's clock; once closed, the local clock corrected by the
        offset measured at `open` (nothing expires by it then)."""
        if not self._open or self._pool is None:
            return time.time() + self._clock_offset
        q = self._q

        async def now(connection: _Connection) -> float:
            cursor = await connection.execute(q.now)
            found = await cursor.fetchone()
            assert found is not None
            return float(found[0])

        return await self._run(now, transaction=False, safety="again")

    def changes(self) -> AsyncGenerator[str, None]:
        """Thread ids as commits to them happen in any host on this schema, from a
        dedicated LISTEN connection that reconnects after a failure (ids committed
        while it reconnects are missed). Ends when the store closes; `aclose()` it (or
        use `contextlib.aclosing`) to stop listening earlier."""
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

    # -- request keys ---------------------------------------------------------------

    async def _duplicate(
        self, connection: _Connection, request: RequestClaim | None
    ) -> Commit | None:
        if request is None:
            return None
        cursor = await connection.execute(self._q.request, (request.key,))
        found = await cursor.fetchone()
        if found is None:
            return None
        if found[0] != request.fingerprint:
            raise RequestConflictError(request.key)
        return Commit(0, 0, duplicate=True, outcome=found[1])

    async def _remember(
        self, connection: _Connection, request: RequestClaim | None, at: float
    ) -> None:
        if request is not None:
            await connection.execute(
                self._q.remember, (request.key, request.fingerprint, request.outcome, at)
            )

    async def _add(
        self,
        connection: _Connection,
        thread_id: str,
        last_seq: int,
        records: Sequence[NewRecord],
        at: float,
    ) -> Commit:
        if not records:
            return Commit(0, 0)
        async with connection.cursor() as cursor:
            await cursor.executemany(
                self._q.add,
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
        q = self._q

        async def create(connection: _Connection) -> Commit:
            # The row first: once it is seen, the request key committed with it is too.
            cursor = await connection.execute(q.lock_thread, (thread_id,))
            found = await cursor.fetchone()
            duplicate = await self._duplicate(connection, request)
            if duplicate is not None:
                return duplicate
            if found is not None:
                raise ThreadExistsError(thread_id)
            if parent_id is not None:
                await connection.execute(q.tree_shared, (self._tree_lock,))
                cursor = await connection.execute(q.share_thread, (parent_id,))
                if await cursor.fetchone() is None:
                    raise ThreadNotFoundError(parent_id)
            cursor = await connection.execute(
                q.create, (thread_id, parent_id, len(records), active, summary, self.channel)
            )
            created = await cursor.fetchone()
            assert created is not None
            at = float(created[0])
            commit = await self._add(connection, thread_id, 0, records, at)
            await self._remember(connection, request, at)
            return commit

        return await self._run(create, safety="once" if request is None else "again")

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
        q = self._q

        values = {
            "thread": thread_id,
            "fenced": fence is not None,
            "owner": None if fence is None else fence.owner,
            "generation": None if fence is None else fence.generation,
            "kinds": [new.kind for new in records],
            "datas": [new.data for new in records],
            "count": len(records),
            "active": active,
            "summary": summary,
            "revoke": revoke_lease,
            "channel": self.channel,
        }

        async def write(connection: _Connection) -> Commit:
            if durable:  # only `off` skips the local WAL flush; stronger settings stay
                await connection.execute(
                    "SELECT set_config('synchronous_commit', 'on', true) "
                    "WHERE current_setting('synchronous_commit') = 'off'"
                )
            cursor = await connection.execute(q.append, values)
            found = await cursor.fetchone()
            if found is None:
                raise ThreadNotFoundError(thread_id)
            if not found[1]:
                assert fence is not None
                raise LeaseLostError(thread_id, fence.owner, fence.generation)
            last_seq = int(found[0])
            return Commit(last_seq + 1, last_seq + len(records)) if records else Commit(0, 0)

        if request is None:  # one statement: its own transaction (two when durable)
            return await self._run(write, transaction=durable, safety="once")

        async def keyed(connection: _Connection) -> Commit:
            cursor = await connection.execute(q.lock_thread, (thread_id,))
            found = await cursor.fetchone()
            duplicate = await self._duplicate(connection, request)
            if duplicate is not None:
                return duplicate
            if found is None:
                raise ThreadNotFoundError(thread_id)
            commit = await write(connection)
            await self._remember(connection, request, found[3])
            return commit

        return await self._run(keyed, safety="again")

    async def delete_thread(self, thread_id: str, *, request: RequestClaim | None = None) -> Commit:
        q = self._q

        async def delete(connection: _Connection) -> Commit:
            await connection.execute(q.tree_exclusive, (self._tree_lock,))
            cursor = await connection.execute(q.lock_thread, (thread_id,))
            found = await cursor.fetchone()
            duplicate = await self._duplicate(connection, request)
            if duplicate is not None:
                return duplicate
            if found is None:
                raise ThreadNotFoundError(thread_id)
            # Lock the whole tree first; the deletes then run on a snapshot taken with
            # every row locked, so no append to a doomed thread can slip past them.
            cursor = await connection.execute(q.doomed, (thread_id,))
            doomed = [row[0] for row in await cursor.fetchall()]
            await connection.execute(q.delete_records, (doomed,))
            cursor = await connection.execute(q.delete, (doomed, self.channel))
            await cursor.fetchall()
            await self._remember(connection, request, found[3])
            return Commit(0, 0)

        return await self._run(delete, safety="once" if request is None else "again")

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

        async def claim(connection: _Connection) -> Lease | None:
            cursor = await connection.execute(
                q.claim, {"thread": thread_id, "owner": owner, "ttl": ttl}
            )
            taken = await cursor.fetchone()
            if taken is not None:
                return Lease(thread_id, owner, int(taken[0]), float(taken[1]))
            cursor = await connection.execute(q.exists, (thread_id,))
            if await cursor.fetchone() is None:
                raise ThreadNotFoundError(thread_id)
            return None

        return await self._run(claim, transaction=False, safety="again")

    async def renew(self, lease: Lease, ttl: float) -> Lease:
        q = self._q

        async def renew(connection: _Connection) -> Lease:
            cursor = await connection.execute(
                q.renew, (ttl, lease.thread_id, lease.owner, lease.generation)
            )
            found = await cursor.fetchone()
            if found is None:
                raise LeaseLostError(lease.thread_id, lease.owner, lease.generation)
            return Lease(lease.thread_id, lease.owner, lease.generation, float(found[0]))

        return await self._run(renew, transaction=False, safety="again")

    async def release(self, lease: Lease, *, if_last_seq: int | None = None) -> bool:
        q = self._q

        async def release(connection: _Connection) -> bool:
            cursor = await connection.execute(
                q.held, (lease.thread_id, lease.owner, lease.generation)
            )
            found = await cursor.fetchone()
            if found is None:
                return True
            if if_last_seq is not None and int(found[0]) != if_last_seq:
                return False
            await connection.execute(q.release, (lease.thread_id,))
            return True

        return await self._run(release, safety="again")

    # -- reads ----------------------------------------------------------------------

    async def read(self, thread_id: str, *, after: int = 0, limit: int = 1000) -> list[Record]:
        _check_limit(limit, self.max_page)
        q = self._q

        async def read(connection: _Connection) -> list[Record]:
            cursor = await connection.execute(q.read, (thread_id, after, limit))
            rows = await cursor.fetchall()
            if not rows:
                cursor = await connection.execute(q.exists, (thread_id,))
                if await cursor.fetchone() is None:
                    raise ThreadNotFoundError(thread_id)
            return [Record(thread_id, int(s), k, d, float(a)) for s, k, d, a in rows]

        return await self._run(read, transaction=False, safety="again")

    async def thread(self, thread_id: str) -> ThreadRow | None:
        q = self._q

        async def thread(connection: _Connection) -> ThreadRow | None:
            cursor = await connection.execute(q.row, (thread_id,))
            found = await cursor.fetchone()
            return None if found is None else _row(found)

        return await self._run(thread, transaction=False, safety="again")

    async def list_threads(
        self,
        *,
        parent_id: str | None = None,
        before: int | None = None,
        limit: int = 100,
    ) -> list[ThreadRow]:
        _check_limit(limit, self.max_page)
        q = self._q
        last = 2**63 - 1 if before is None else before

        async def list_threads(connection: _Connection) -> list[ThreadRow]:
            if parent_id is None:
                cursor = await connection.execute(q.top_level, (last, limit))
            else:
                cursor = await connection.execute(q.children, (parent_id, last, limit))
            return [_row(values) for values in await cursor.fetchall()]

        return await self._run(list_threads, transaction=False, safety="again")

    async def claimable(self, *, limit: int = 100) -> list[str]:
        _check_limit(limit, self.max_page)
        q = self._q

        async def claimable(connection: _Connection) -> list[str]:
            cursor = await connection.execute(q.claimable, (limit,))
            return [row[0] for row in await cursor.fetchall()]

        return await self._run(claimable, transaction=False, safety="again")
