"""The change feed of a PostgreSQL store: LISTEN on the schema's channel.

Every committing journal write calls `pg_notify(channel, thread_id)` in its own
transaction, so PostgreSQL delivers the id at commit to every connection listening on
the channel, in any host. The feed holds one dedicated connection (not from the pool:
a listening connection must stay the same one), reconnects with a growing pause when it
fails, and ends when the store closes. Notifications sent while it reconnects are lost;
hosts therefore keep polling, only less often.
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

__all__ = ["CHECK_CLOSED_EVERY", "listen"]

CHECK_CLOSED_EVERY = 0.25
"""Seconds between checks, while no notification arrives, that the store is open."""

_RETRY_FIRST, _RETRY_MOST = 0.1, 5.0


async def listen(store: PostgresStore) -> AsyncGenerator[str, None]:
    """Yield the thread ids committed to in `store`'s schema, by any host, until the
    store closes. Raises `StoreClosedError` when the store is not open at the start."""
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
                async for notice in connection.notifies(timeout=CHECK_CLOSED_EVERY):
                    yield notice.payload
                    if not store.is_open:
                        return
        except psycopg.OperationalError:
            await asyncio.sleep(pause)
            pause = min(pause * 2, _RETRY_MOST)
        finally:
            await connection.close()
