"""The change feed of a PostgreSQL store: LISTEN on the schema's channel.

Every committing journal write calls `pg_notify(channel, thread_id)` in its own
transaction, so PostgreSQL delivers the id at commit to every connection listening on
the channel, in any host. The feed holds one dedicated connection (not from the pool:
a listening connection must stay the same one), reconnects with a growing pause when it
fails, and ends when the store closes. Notifications sent while it reconnects are lost;
hosts therefore keep polling, only less often. After each read that brought
notifications, the feed waits `GATHER` seconds before reading again, so under load it
wakes once per batch of notifications, not once per notification.

Each id names the thread; an id sent by a commit of this very store (its notification
came from a server process one of the store's own connections ran on) is an
`OwnCommit`, a `str` equal to the id whose `committed_here` is True, so a host that
already told its subscribers of its own commits can pass over the echo. Every id is
yielded all the same, the store's own included.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

import psycopg
from psycopg import sql

from automata.threads import StoreClosedError

if TYPE_CHECKING:
    from automata.postgres._store import PostgresStore

__all__ = ["CHECK_CLOSED_EVERY", "GATHER", "OwnCommit", "listen"]

CHECK_CLOSED_EVERY = 0.25
"""Seconds between checks, while no notification arrives, that the store is open."""

GATHER = 0.005
"""Seconds the feed lets notifications gather in its socket after it read some, so a
busy schema's notifications are read (and handed on) a batch per wake-up rather than
one by one; an id may come that much later, never lost."""

_RETRY_FIRST, _RETRY_MOST = 0.1, 5.0


class OwnCommit(str):
    """A thread id the feed names for a commit made through the store itself (equal to
    the id as a `str`)."""

    __slots__ = ()

    @property
    def committed_here(self) -> bool:
        """True: the commit was made by the store whose feed yields this id."""
        return True


async def listen(store: PostgresStore) -> AsyncGenerator[str, None]:
    """Yield the thread ids committed to in `store`'s schema, by any host, until the
    store closes, those committed through `store` as `OwnCommit`s. Raises
    `StoreClosedError` when the store is not open at the start."""
    if not store.is_open:
        raise StoreClosedError(f"the PostgreSQL store on schema {store.schema!r} is not open")
    conninfo, kwargs = await store.conninfo()
    kwargs["autocommit"] = True
    pause = _RETRY_FIRST
    while store.is_open:
        try:
            connection = await psycopg.AsyncConnection.connect(conninfo, **kwargs)
        except psycopg.OperationalError:
            await asyncio.sleep(pause)
            pause = min(pause * 2, _RETRY_MOST)
            continue
        try:
            await connection.execute(sql.SQL("LISTEN {}").format(sql.Identifier(store.channel)))
            pause = _RETRY_FIRST
            while store.is_open:
                heard = False
                batch = connection.notifies(timeout=CHECK_CLOSED_EVERY, stop_after=1)
                async for notice in batch:  # what one read of the socket brought
                    heard = True
                    own = store._sent_by_own_connection(notice.pid)
                    yield OwnCommit(notice.payload) if own else notice.payload
                    if not store.is_open:
                        return
                if heard:
                    await asyncio.sleep(GATHER)
        except psycopg.OperationalError:
            await asyncio.sleep(pause)
            pause = min(pause * 2, _RETRY_MOST)
        finally:
            await connection.close()
