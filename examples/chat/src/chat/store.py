"""Where the threads are kept: a SQLite file by default, PostgreSQL given a URL."""

from __future__ import annotations

from automata.threads import SQLiteStore
from automata.threads.store import ThreadStore

__all__ = ["open_store"]

_POSTGRES = ("postgresql://", "postgres://")


def open_store(database: str, *, schema: str | None = None) -> ThreadStore:
    """A `PostgresStore` (automata-ai-postgres) for a `postgresql://` or
    `postgres://` URL, in `schema` (the store's default when None), else a
    `SQLiteStore` on the file `database` names. Nothing is opened yet: `Host.open`
    does that."""
    if database.startswith(_POSTGRES):
        from automata.postgres import DEFAULT_SCHEMA, PostgresStore

        return PostgresStore(database, schema=schema or DEFAULT_SCHEMA)
    return SQLiteStore(database)
