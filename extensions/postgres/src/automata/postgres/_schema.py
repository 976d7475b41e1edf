"""The PostgreSQL schema of a threads store: names, migrations, and opening safely.

A store lives in one PostgreSQL schema (a namespace the host chooses per tenant). Its
table `threads_migrations` holds one row per applied migration; the schema's version is
the highest row. `migrate` runs in one transaction holding a transaction-level advisory
lock derived from the schema name, so hosts opening one database at once wait for each
other: the first applies the missing migrations, the others find them applied. A schema
newer than this code, or holding tables that are not a threads store's, fails closed
(`SchemaError`) and the transaction rolls back, changing nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from psycopg import AsyncConnection, sql
from psycopg.rows import TupleRow

from automata.threads import SchemaError
from automata.threads.store import ProgressCallback

__all__ = [
    "DEFAULT_SCHEMA",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "MigrationReport",
    "channel_for",
    "check_schema_name",
    "migrate",
]

DEFAULT_SCHEMA = "automata_threads"

_NAME = re.compile(r"[a-z_][a-z0-9_]{0,47}")
_LOCK_SALT = "automata.threads.migrate:"

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: threads (the lease lives on the row), records, request keys.
    (
        """CREATE TABLE {schema}.threads (
            ordinal bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            thread_id text NOT NULL UNIQUE,
            parent_id text,
            created_at double precision NOT NULL,
            updated_at double precision NOT NULL,
            last_seq bigint NOT NULL DEFAULT 0,
            active boolean NOT NULL DEFAULT false,
            summary text NOT NULL DEFAULT '',
            owner text,
            generation bigint NOT NULL DEFAULT 0,
            expires_at double precision NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE {schema}.records (
            thread_id text NOT NULL,
            seq bigint NOT NULL,
            kind text NOT NULL,
            data text NOT NULL,
            at double precision NOT NULL,
            PRIMARY KEY (thread_id, seq)
        )""",
        """CREATE TABLE {schema}.requests (
            key text PRIMARY KEY,
            fingerprint text NOT NULL,
            outcome text NOT NULL,
            at double precision NOT NULL
        )""",
    ),
    # 2: indexes for listing children newest first and for finding claimable threads.
    (
        "CREATE INDEX threads_by_parent ON {schema}.threads (parent_id, ordinal)",
        "CREATE INDEX threads_active ON {schema}.threads (ordinal) WHERE active",
    ),
)
"""Migration `n` (1-based) is `MIGRATIONS[n - 1]`; `{schema}` is the quoted schema
name. Append new migrations; never edit a released one."""

SCHEMA_VERSION = len(MIGRATIONS)
_TABLES = frozenset({"threads", "records", "requests", "threads_migrations"})


def check_schema_name(schema: str) -> str:
    """`schema` when it is a plain lowercase identifier (letters, digits, underscores,
    at most 48 characters, not starting with a digit or `pg_`); raises `ValueError`."""
    if not isinstance(schema, str) or not _NAME.fullmatch(schema) or schema.startswith("pg_"):
        raise ValueError(
            "schema must be a lowercase identifier of at most 48 characters "
            f"([a-z_][a-z0-9_]*, not starting with 'pg_'), got {schema!r}"
        )
    return schema


def channel_for(schema: str) -> str:
    """The notification channel commits in `schema` are announced on."""
    return f"automata_threads:{schema}"


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """What `migrate` found (`found`, 0 for a new schema) and applied (`applied`)."""

    found: int
    applied: int


async def _version(connection: AsyncConnection[TupleRow], schema: str) -> int:
    """The schema's version: 0 when it does not exist or is empty. Raises `SchemaError`
    for a schema of something else, or one newer than this code."""
    cursor = await connection.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relkind IN ('r', 'p', 'v', 'm', 'f')",
        (schema,),
    )
    tables = {str(row[0]) for row in await cursor.fetchall()}
    if not tables:
        return 0
    if "threads_migrations" not in tables:
        raise SchemaError(
            f"PostgreSQL schema {schema!r} holds tables that are not a threads store's "
            f"({', '.join(sorted(tables)[:5])}); refusing to touch it"
        )
    cursor = await connection.execute(
        sql.SQL("SELECT coalesce(max(version), 0) FROM {}.threads_migrations").format(
            sql.Identifier(schema)
        )
    )
    found = await cursor.fetchone()
    version = int(found[0]) if found is not None else 0
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"PostgreSQL schema {schema!r} has threads schema version {version}, newer than "
            f"this code knows ({SCHEMA_VERSION}); upgrade automata-ai-postgres to open it"
        )
    return version


async def migrate(
    connection: AsyncConnection[TupleRow], schema: str, progress: ProgressCallback | None
) -> MigrationReport:
    """Bring `schema` to `SCHEMA_VERSION` and verify it, in one transaction under the
    schema's advisory lock. Reports "migrating" (only when it applies a migration), then
    "verifying". Raises `SchemaError`; on any error nothing is changed."""
    name = sql.Identifier(schema)
    async with connection.transaction():
        await connection.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (_LOCK_SALT + schema,)
        )
        found = await _version(connection, schema)
        if found < SCHEMA_VERSION:
            if progress is not None:
                progress("migrating")
            await connection.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(name))
            if found == 0:
                await connection.execute(
                    sql.SQL(
                        "CREATE TABLE {}.threads_migrations (version integer PRIMARY KEY, "
                        "applied_at timestamptz NOT NULL DEFAULT clock_timestamp())"
                    ).format(name)
                )
            for number in range(found + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[number - 1]:
                    await connection.execute(sql.SQL(statement).format(schema=name))
                await connection.execute(
                    sql.SQL("INSERT INTO {}.threads_migrations (version) VALUES (%s)").format(name),
                    (number,),
                )
        if progress is not None:
            progress("verifying")
        await _verify(connection, schema)
    return MigrationReport(found, SCHEMA_VERSION - found)


async def _verify(connection: AsyncConnection[TupleRow], schema: str) -> None:
    cursor = await connection.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,)
    )
    names = {str(row[0]) for row in await cursor.fetchall()}
    missing = _TABLES - names
    version = await _version(connection, schema)
    if version != SCHEMA_VERSION or missing:
        raise SchemaError(
            f"PostgreSQL schema {schema!r} does not hold threads schema version "
            f"{SCHEMA_VERSION} after opening (version {version}, missing tables: "
            f"{sorted(missing) or 'none'})"
        )
