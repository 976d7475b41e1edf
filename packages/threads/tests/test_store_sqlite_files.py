"""The SQLite store creates a file only where none exists, and refuses, leaving every
byte as it was, a file that is empty, cut short, or whose tables do not match the
schema version it claims (rule S8)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from automata.threads import SchemaError, SQLiteStore, StoreClosedError
from automata.threads import _sqlite_schema as schema
from automata.threads.store import NewRecord


async def _filled(path: Path) -> None:
    """A closed threads file of a few pages, its last page holding records."""
    store = SQLiteStore(path)
    await store.open()
    for n in range(3):
        await store.create_thread(
            f"t{n}", [NewRecord("note", f"{n}:{i}:" + "x" * 900) for i in range(8)]
        )
    await store.close()
    assert not path.with_name(path.name + "-wal").exists()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _page_size(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return int(db.execute("PRAGMA page_size").fetchone()[0])


async def _refused(path: Path, match: str, **options: bool) -> None:
    """`open` raises `SchemaError` (matching `match`) and the file is byte for byte as
    it was, with no write-ahead log left beside it."""
    before = _digest(path)
    store = SQLiteStore(path, **options)
    with pytest.raises(SchemaError, match=match):
        await store.open()
    assert _digest(path) == before
    assert not path.with_name(path.name + "-wal").exists()
    with pytest.raises(StoreClosedError):
        await store.thread("t0")


def _older_file(path: Path, threads_table: str) -> None:
    """A file at schema version 1 written in rollback-journal mode (so switching it to
    WAL would change its header), its `threads` table created by `threads_table`."""
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        db.execute(threads_table)
        for statement in schema.MIGRATIONS[0][1:]:
            db.execute(statement)
        db.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
        db.execute("PRAGMA user_version = 1")
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


@pytest.mark.parametrize("short_by", [50, 300])
async def test_a_file_cut_inside_its_last_page_is_refused_unchanged(
    tmp_path: Path, short_by: int
) -> None:
    path = tmp_path / "threads.db"
    await _filled(path)
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size - short_by)
    await _refused(path, "cut short")


async def test_a_file_missing_whole_pages_is_refused_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    await _filled(path)
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size - _page_size(path))
    await _refused(path, "damaged")


async def test_an_existing_empty_file_is_refused_and_stays_empty(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    path.touch()
    await _refused(path, "empty")
    assert path.stat().st_size == 0


async def test_an_empty_file_becomes_a_new_store_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    path.touch()
    store = SQLiteStore(path, adopt_empty=True)
    await store.open()
    try:
        await store.create_thread("t", [NewRecord("note", "kept")])
    finally:
        await store.close()
    reopened = SQLiteStore(path)
    await reopened.open()
    try:
        assert [record.data for record in await reopened.read("t")] == ["kept"]
    finally:
        await reopened.close()


async def test_an_empty_sqlite_database_is_refused_untouched_and_adopted_only_when_asked(
    tmp_path: Path,
) -> None:
    """A file `sqlite3 path VACUUM` leaves (a database with no tables, application id
    0) is as empty as a file of no bytes: refused, or made a store with `adopt_empty`."""
    path = tmp_path / "threads.db"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("VACUUM")
    assert path.stat().st_size > 0
    await _refused(path, "empty SQLite database")
    store = SQLiteStore(path, adopt_empty=True)
    await store.open()
    try:
        await store.create_thread("t", [NewRecord("note", "kept")])
        assert [record.data for record in await store.read("t")] == ["kept"]
    finally:
        await store.close()


async def test_adopting_an_empty_file_never_touches_a_store_with_data(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    await _filled(path)
    store = SQLiteStore(path, adopt_empty=True)
    await store.open()
    try:
        assert len(await store.read("t2")) == 8
    finally:
        await store.close()


async def test_a_new_file_is_created_where_none_exists_and_leaves_no_temporary_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "threads.db"
    store = SQLiteStore(path)
    await store.open()
    await store.close()
    assert sorted(os.listdir(tmp_path)) == ["threads.db", "threads.db.lock"]
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION


async def test_an_older_file_whose_table_lacks_a_column_is_a_schema_error_unchanged(
    tmp_path: Path,
) -> None:
    path = tmp_path / "threads.db"
    _older_file(
        path,
        "CREATE TABLE threads (ordinal INTEGER PRIMARY KEY AUTOINCREMENT, "
        "thread_id TEXT NOT NULL UNIQUE, created_at REAL NOT NULL, "
        "updated_at REAL NOT NULL, last_seq INTEGER NOT NULL DEFAULT 0)",
    )
    await _refused(path, "tables do not match")


async def test_a_current_file_missing_a_table_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "threads.db"
    _older_file(path, schema.MIGRATIONS[0][0])
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        for statement in schema.MIGRATIONS[1]:
            db.execute(statement)
        db.execute("DROP TABLE requests")
        db.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")
    await _refused(path, "tables do not match")


async def test_an_intact_older_file_in_rollback_mode_is_still_migrated(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    _older_file(path, schema.MIGRATIONS[0][0])
    store = SQLiteStore(path)
    await store.open()
    await store.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_a_refused_file_with_commits_in_its_log_keeps_file_and_log_as_they_were(
    tmp_path: Path,
) -> None:
    """A store file copied with its write-ahead log still holding commits (here, a
    table no threads schema has): refused, neither the file nor the log is changed
    (closing a read-write connection would checkpoint the log into the file and
    delete it)."""
    live = tmp_path / "live.db"
    store = SQLiteStore(live)
    await store.open()
    path = tmp_path / "threads.db"
    log = path.with_name(path.name + "-wal")
    try:
        await store.create_thread("t0", [NewRecord("note", "x" * 900) for _ in range(8)])
        with contextlib.closing(sqlite3.connect(live, isolation_level=None)) as db:
            db.execute("CREATE TABLE added (x)")
        shutil.copyfile(live, path)
        shutil.copyfile(live.with_name(live.name + "-wal"), log)
    finally:
        await store.close()
    before = (_digest(path), _digest(log))
    with pytest.raises(SchemaError, match="tables do not match"):
        await SQLiteStore(path).open()
    assert (_digest(path), _digest(log)) == before
