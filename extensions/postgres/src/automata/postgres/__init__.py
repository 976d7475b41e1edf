"""automata.postgres: a PostgreSQL store for durable threads.

`PostgresStore` keeps threads in one PostgreSQL schema that any number of hosts share:
leases expire by the database's clock, every fenced write is checked in its own
transaction, and commits are announced to every host with LISTEN/NOTIFY
(`PostgresStore.changes`). Open a host of `automata.threads` on it as on any store.
"""

from __future__ import annotations

from automata.postgres._schema import DEFAULT_SCHEMA, SCHEMA_VERSION
from automata.postgres._store import PostgresStore

__all__ = ["DEFAULT_SCHEMA", "SCHEMA_VERSION", "PostgresStore"]
