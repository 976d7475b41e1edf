"""How the PostgreSQL store keeps working when its connections are lost.

Servers drop connections: a cloud database or a proxy ends those idle for a while (a
long model call), an operator terminates backends (`pg_terminate_backend`), the server
restarts (fast or immediate shutdown). The store handles it in three layers:

- **Checked before use.** The store's own pool checks each connection as it hands it
  out (`check_dropped`, the pool's `check` callback); a dead one is discarded and
  another taken or made, waiting (with the pool's backoff) up to `connect_timeout`
  seconds for the server to come back. A server that ends a connection (terminated,
  shutting down, a proxy's idle timeout) sends an error and closes it, so the idle
  connection's socket has something to read: the check looks at the socket without a
  round trip, and only then confirms with `AsyncConnectionPool.check_connection` (one
  empty query). So a connection the server dropped while idle is replaced before
  anything is sent on it, at no cost to a live one.
- **TCP keepalives** (`KEEPALIVES`, unless the DSN sets its own) let the kernel find a
  connection whose server vanished without closing it (a host that lost power, a
  network partition) instead of waiting forever on a reply.
- **Run again only when it is safe.** When the connection breaks while an operation is
  in flight, the operation is run again on a fresh connection (up to `ATTEMPTS` times
  in all) only if doing so cannot apply it twice:
  - `"again"` operations may always be run again: reads, and writes that are
    idempotent (claim, renew, release) or carry a request key (its stored fingerprint
    answers a second try as a duplicate with the first one's outcome);
  - `"once"` operations (writes without a request key) are run again only when the
    break came before their commit was sent: inside an explicit transaction, before
    COMMIT, the server rolls the transaction back when the connection goes. A break
    during COMMIT, or during a single self-committing statement, leaves the outcome
    unknown: the call fails closed with `StoreUnavailableError(committed=None)` and
    is never sent again.
  When no connection can be had in time, the call raises
  `StoreUnavailableError(committed=False)`: nothing was sent.
"""

from __future__ import annotations

import select
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

import psycopg
from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from automata.threads import StoreUnavailableError

__all__ = [
    "ATTEMPTS",
    "KEEPALIVES",
    "Safety",
    "check_dropped",
    "connection_options",
    "make_pool",
    "run",
]

_T = TypeVar("_T")
_Connection = AsyncConnection[TupleRow]
_Pool = AsyncConnectionPool[_Connection]

Safety = Literal["again", "once"]
"""Whether an operation may be run again after its connection broke mid-way
(`"again"`), or only when it is known not to have committed (`"once"`)."""

ATTEMPTS = 3
"""How many times in all an operation is tried when its connection keeps breaking."""

KEEPALIVES: dict[str, Any] = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}
"""libpq's TCP keepalive settings the store's connections use unless the DSN sets
them: a silent server is found dead after about 60 seconds (30 idle, then 3 probes 10
seconds apart)."""


def connection_options(dsn: str) -> dict[str, Any]:
    """The connection options of the store's own connections: autocommit, and the
    `KEEPALIVES` the DSN leaves unset (a DSN's own settings win)."""
    given = conninfo_to_dict(dsn)
    options: dict[str, Any] = {"autocommit": True}
    options.update({key: value for key, value in KEEPALIVES.items() if key not in given})
    return options


async def check_dropped(connection: _Connection) -> None:
    """Raise when the idle `connection` was dropped by the server; return quietly when
    it is alive. A live idle connection has nothing to read; one the server ended has
    its error message or end of stream waiting, which the pool's own check (one empty
    query) then turns into an exception (or passes, for a stray notice)."""
    if connection.closed:
        raise psycopg.OperationalError("the connection is closed")
    if not _readable(connection.fileno()):
        return
    await AsyncConnectionPool.check_connection(connection)


def _readable(descriptor: int) -> bool:
    """Whether the socket has something to read (or is at its end), without waiting:
    `poll` (no limit on descriptor numbers) where there is one, else `select`."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(descriptor, select.POLLIN | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(0))
    readable, _, _ = select.select([descriptor], [], [], 0)
    return bool(readable)


def make_pool(
    dsn: str,
    *,
    min_size: int,
    max_size: int,
    connect_timeout: float,
    configure: Callable[[_Connection], Awaitable[None]],
    name: str,
) -> _Pool:
    """The store's own pool (not opened): connections checked as they are handed out,
    waiting up to `connect_timeout` seconds for one."""
    return AsyncConnectionPool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        kwargs=connection_options(dsn),
        configure=configure,
        check=check_dropped,
        timeout=connect_timeout,
        open=False,
        name=name,
    )


class _Broken(Exception):
    """The connection broke mid-operation; `committed` as in `StoreUnavailableError`."""

    def __init__(self, error: psycopg.Error, committed: bool | None) -> None:
        super().__init__(str(error))
        self.error = error
        self.committed = committed


async def _attempt(
    pool: _Pool, work: Callable[[_Connection], Awaitable[_T]], transaction: bool
) -> _T:
    """One try of `work`; raises `_Broken` when its connection broke during it."""
    try:
        async with pool.connection() as connection:
            in_transaction = transaction or not connection.autocommit
            committing = not in_transaction  # a self-committing statement commits as it runs
            try:
                if not in_transaction:
                    return await work(connection)
                async with connection.transaction():
                    result = await work(connection)
                    committing = True  # leaving the block sends COMMIT
                return result
            except psycopg.Error as error:
                if connection.broken or connection.closed:
                    raise _Broken(error, None if committing else False) from error
                raise
    except PoolTimeout as error:  # only getting a connection times out
        raise StoreUnavailableError(
            f"no connection to the PostgreSQL server: {error}; nothing was sent",
            committed=False,
        ) from error


async def run(
    pool: _Pool,
    work: Callable[[_Connection], Awaitable[_T]],
    *,
    transaction: bool,
    safety: Safety,
) -> _T:
    """Run `work` on a connection of `pool` (in one transaction with `transaction`),
    running it again on a fresh connection when its connection breaks and `safety`
    allows (see the module's docstring). Raises `StoreUnavailableError` when it
    cannot; other database errors pass through."""
    unknown = False  # whether a broken try may have committed
    for tries in range(1, ATTEMPTS + 1):
        try:
            return await _attempt(pool, work, transaction)
        except _Broken as broken:
            unknown = unknown or broken.committed is None
            if broken.committed is None and safety == "once":
                raise StoreUnavailableError(
                    "the connection to the PostgreSQL server was lost during a commit "
                    f"({broken.error}); whether it committed is unknown, and it was not "
                    "sent again",
                    committed=None,
                ) from broken.error
            if tries == ATTEMPTS:
                raise StoreUnavailableError(
                    f"the connection to the PostgreSQL server broke {ATTEMPTS} times in a "
                    f"row ({broken.error})",
                    committed=None if unknown else False,
                ) from broken.error
    raise AssertionError("unreachable")
