"""The SQLite schema of a threads store: how a file is recognised, checked and migrated.

A threads file carries `PRAGMA application_id = APPLICATION_ID` and `PRAGMA
user_version` = the number of migrations applied. `inspect` reads both without writing
anything; `migrate` applies the missing migrations in one `BEGIN IMMEDIATE` transaction
(all of them or none). Everything here runs on a connection opened with
`isolation_level=None` (explicit transactions).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from automata.threads._errors import SchemaError

__all__ = [
    "APPLICATION_ID",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "FileState",
    "check_header",
    "inspect",
    "migrate",
    "verify",
]

APPLICATION_ID = 0x41545448
"""Marks a SQLite file as a threads store ("ATTH" in ASCII)."""

_HEADER = b"SQLite format 3\x00"

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


def check_header(path: Path) -> None:
    """Refuse a non-empty file that is not a SQLite database, before SQLite opens it."""
    try:
        with path.open("rb") as file:
            head = file.read(len(_HEADER))
    except FileNotFoundError:
        return
    if head and head != _HEADER:
        raise SchemaError(f"{path} is not a SQLite database; refusing to touch it")


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


def verify(connection: sqlite3.Connection, path: Path) -> None:
    """Check that the file now holds the current schema: marked as ours, at
    `SCHEMA_VERSION`, with every table the store uses. Raises `SchemaError`."""
    state = inspect(connection, path, check=False)
    names = {
        row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    missing = {"threads", "records", "requests"} - names
    if state.fresh or state.version != SCHEMA_VERSION or missing:
        raise SchemaError(
            f"{path} does not hold threads schema version {SCHEMA_VERSION} after opening "
            f"(version {state.version}, missing tables: {sorted(missing) or 'none'})"
        )
