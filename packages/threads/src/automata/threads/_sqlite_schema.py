"""The SQLite schema of a threads store: how a file is recognised, checked and migrated.

A threads file carries `PRAGMA application_id = APPLICATION_ID` and `PRAGMA
user_version` = the number of migrations applied. `inspect` reads both without writing
anything, and `check_tables` compares the file's tables and indexes with those its
version should have, also without writing; `migrate` applies the missing migrations
in one `BEGIN IMMEDIATE` transaction (all of them or none). Everything here runs on a
connection opened with `isolation_level=None` (explicit transactions).
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from automata.threads._errors import SchemaError

__all__ = [
    "APPLICATION_ID",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "FileState",
    "check_tables",
    "inspect",
    "migrate",
    "verify",
]

APPLICATION_ID = 0x41545448
"""Marks a SQLite file as a threads store ("ATTH" in ASCII)."""

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: threads (leases live on the row), records, request keys.
    (
        """CREATE TABLE threads (
            ordinal INTEGER PRIMARY KEY AUTOINCREMENT,
            thread_id TEXT NOT NULL UNIQUE,
            parent_id TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            last_seq INTEGER NOT NULL DEFAULT 0,
            active INTEGER NOT NULL DEFAULT 0,
            summary TEXT NOT NULL DEFAULT '',
            owner TEXT,
            generation INTEGER NOT NULL DEFAULT 0,
            expires_at REAL NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE records (
            thread_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            data TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (thread_id, seq)
        )""",
        """CREATE TABLE requests (
            key TEXT PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            outcome TEXT NOT NULL,
            at REAL NOT NULL
        )""",
    ),
    # 2: indexes for listing children newest first and for finding claimable threads.
    (
        "CREATE INDEX threads_by_parent ON threads (parent_id, ordinal)",
        "CREATE INDEX threads_active ON threads (ordinal) WHERE active = 1",
    ),
)
"""Migration `n` (1-based) is `MIGRATIONS[n - 1]`; a file at version `n` has applied
the first `n`. Append new migrations; never edit a released one."""

SCHEMA_VERSION = len(MIGRATIONS)


@dataclass(frozen=True, slots=True)
class FileState:
    """What `inspect` found: `version` 0 with `fresh` for a file with nothing in it."""

    version: int
    fresh: bool


def inspect(connection: sqlite3.Connection, path: Path, *, check: bool = True) -> FileState:
    """Recognise the file (read only): a fresh file, or a threads file no newer than
    this code that (with `check`) passes `PRAGMA quick_check`. Raises `SchemaError`."""
    try:
        application_id = int(connection.execute("PRAGMA application_id").fetchone()[0])
        version = int(connection.execute("PRAGMA user_version").fetchone()[0])
        tables = int(connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0])
        if application_id == 0 and version == 0 and tables == 0:
            return FileState(0, fresh=True)
        if application_id != APPLICATION_ID:
            raise SchemaError(
                f"{path} is a SQLite database of another application "
                f"(application_id {application_id:#x}); refusing to touch it"
            )
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"{path} has threads schema version {version}, newer than this code knows "
                f"({SCHEMA_VERSION}); upgrade automata-ai-threads to open it"
            )
        if not check:
            return FileState(version, fresh=False)
        problems = [row[0] for row in connection.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.DatabaseError as error:
        raise SchemaError(f"{path} is damaged or not a database: {error}") from error
    if problems != ["ok"]:
        raise SchemaError(f"{path} is damaged: {'; '.join(map(str, problems[:5]))}")
    return FileState(version, fresh=False)


def migrate(connection: sqlite3.Connection, path: Path, *, upto: int = SCHEMA_VERSION) -> bool:
    """Bring the file to version `upto` in one transaction; returns True when it applied
    any migration. The version is read again under the write lock, so processes opening
    one new file at once migrate it once."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        state = inspect(connection, path, check=False)
        for statements in MIGRATIONS[state.version : upto]:
            for statement in statements:
                connection.execute(statement)
        applied = state.version < upto
        if applied:
            connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            connection.execute(f"PRAGMA user_version = {upto}")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return applied


_Object = tuple[str, str, str, str | None]


def _objects(connection: sqlite3.Connection) -> frozenset[_Object]:
    """The schema objects of a database: (type, name, table, SQL) of each."""
    rows = connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    return frozenset((str(t), str(n), str(b), None if q is None else str(q)) for t, n, b, q in rows)


def _expected(version: int) -> frozenset[_Object]:
    """The schema objects (type, name, table, SQL) a file at `version` holds: those
    the first `version` migrations make in an empty database."""
    with contextlib.closing(sqlite3.connect(":memory:", isolation_level=None)) as db:
        for statements in MIGRATIONS[:version]:
            for statement in statements:
                db.execute(statement)
        return _objects(db)


def check_tables(connection: sqlite3.Connection, path: Path, version: int) -> None:
    """Refuse, reading only, a file whose tables and indexes are not exactly those
    the first `version` migrations make (a table missing, a column lost, an object
    added): such a file cannot be migrated or served safely. Raises `SchemaError`."""
    try:
        found = _objects(connection)
    except sqlite3.DatabaseError as error:
        raise SchemaError(f"{path} is damaged or not a database: {error}") from error
    expected = _expected(version)
    if found != expected:
        differing = sorted({entry[1] for entry in found ^ expected})
        raise SchemaError(
            f"{path} is damaged: its tables do not match threads schema version {version} "
            f"(differing: {', '.join(differing)}); refusing to touch it"
        )


def verify(connection: sqlite3.Connection, path: Path) -> None:
    """Check that the file now holds the current schema: marked as ours, at
    `SCHEMA_VERSION`, with exactly the tables and indexes of that version. Raises
    `SchemaError`."""
    state = inspect(connection, path, check=False)
    if state.fresh or state.version != SCHEMA_VERSION:
        raise SchemaError(
            f"{path} does not hold threads schema version {SCHEMA_VERSION} after opening "
            f"(version {state.version})"
        )
    check_tables(connection, path, SCHEMA_VERSION)
