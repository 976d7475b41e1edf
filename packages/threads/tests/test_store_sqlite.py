"""The SQLite store keeps the storage contract (the conformance suite, on a fresh file
per check), and what it adds: the file's format, schema versions and migrations, and
failing closed on files it must not touch."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from automata.threads import (
    SchemaError,
    SQLiteStore,
    StoreClosedError,
    StoreError,
    StoreInUseError,
    maintain_sqlite,
    maintain_sqlite_sync,
)
from automata.threads import _sqlite_schema as schema
from automata.threads.store import NewRecord, ThreadStore
from automata.threads.testing import StoreConformance


class TestSQLiteStoreConformance(StoreConformance):
    @pytest.fixture(autouse=True)
    def _directory(self, tmp_path: Path) -> None:
        self.directory = tmp_path
        self.made = 0

    def make_store(self) -> SQLiteStore:
        self.made += 1
        return SQLiteStore(self.directory / f"store{self.made}.db")

    def incompatible_stores(self) -> Sequence[Callable[[], ThreadStore]]:
        not_sqlite = self.directory / "notes.txt"
        not_sqlite.write_text("just some text, not a database\n" * 10)
        newer = self.directory / "newer.db"
        with contextlib.closing(sqlite3.connect(newer, isolation_level=None)) as db:
            schema.migrate(db, newer)
            db.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
        return [lambda: SQLiteStore(not_sqlite), lambda: SQLiteStore(newer)]


# -- helpers -------------------------------------------------------------------------


async def _filled(path: Path, threads: int = 3, records: int = 20, size: int = 2000) -> None:
    """A closed store file holding `threads` threads of `records` records each."""
    store = SQLiteStore(path)
    await store.open()
    for n in range(threads):
        body = [NewRecord("note", f"{n}:{i}:" + "x" * size) for i in range(records)]
        await store.create_thread(f"t{n}", body)
    await store.close()


def _bytes(path: Path) -> bytes:
    return path.read_bytes()


def _pragma(path: Path, name: str) -> object:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return db.execute(f"PRAGMA {name}").fetchone()[0]


async def _refused(path: Path) -> SchemaError:
    """Open a store on `path`, expecting `SchemaError`, and check the file's bytes did
    not change."""
    before = _bytes(path)
    store = SQLiteStore(path)
    with pytest.raises(SchemaError) as raised:
        await store.open()
    assert _bytes(path) == before
    with pytest.raises(StoreClosedError):
        await store.thread("t0")
    return raised.value


# -- the file ------------------------------------------------------------------------


async def test_a_new_file_is_a_versioned_wal_file_with_incremental_auto_vacuum(
    tmp_path: Path,
) -> None:
    path = tmp_path / "threads.db"
    phases: list[str] = []
    store = SQLiteStore(path)
    await store.open(phases.append)
    await store.create_thread("t", [NewRecord("note", "hello")])
    await store.close()
    assert phases == ["verifying"]
    assert _pragma(path, "journal_mode") == "wal"
    assert _pragma(path, "auto_vacuum") == 2  # incremental
    assert _pragma(path, "application_id") == schema.APPLICATION_ID
    assert _pragma(path, "user_version") == schema.SCHEMA_VERSION


async def test_reopening_keeps_the_journal_and_reports_only_verifying(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    await _filled(path, threads=2, records=3, size=1)
    phases: list[str] = []
    store = SQLiteStore(str(path))
    await store.open(phases.append)
    try:
        assert phases == ["verifying"]
        assert [r.seq for r in await store.read("t1")] == [1, 2, 3]
        assert [row.thread_id for row in await store.list_threads()] == ["t1", "t0"]
    finally:
        await store.close()


async def test_an_older_file_is_migrated_at_open_reporting_migrating_then_verifying(
    tmp_path: Path,
) -> None:
    path = tmp_path / "threads.db"
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        db.execute("PRAGMA journal_mode = WAL")
        schema.migrate(db, path, upto=1)
        db.execute(
            "INSERT INTO threads (thread_id, created_at, updated_at, last_seq, active) "
            "VALUES ('old', 1.0, 1.0, 1, 1)"
        )
        db.execute("INSERT INTO records VALUES ('old', 1, 'note', 'kept', 1.0)")
    assert _pragma(path, "user_version") == 1
    phases: list[str] = []
    store = SQLiteStore(path)
    await store.open(phases.append)
    try:
        assert phases == ["migrating", "verifying"]
        assert [r.data for r in await store.read("old")] == ["kept"]
        assert await store.claimable() == ["old"]
    finally:
        await store.close()
    assert _pragma(path, "user_version") == schema.SCHEMA_VERSION


async def test_a_newer_schema_fails_closed_and_the_file_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    await _filled(path)
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
    error = await _refused(path)
    assert "newer" in str(error)


async def test_another_applications_database_fails_closed_and_is_unchanged(
    tmp_path: Path,
) -> None:
    unmarked = tmp_path / "app.db"
    with contextlib.closing(sqlite3.connect(unmarked)) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.execute("INSERT INTO notes VALUES ('mine')")
        db.commit()
    assert "another application" in str(await _refused(unmarked))
    marked = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(marked)) as db:
        db.execute("PRAGMA application_id = 1234")
        db.execute("CREATE TABLE threads (x)")
        db.commit()
    assert "another application" in str(await _refused(marked))


async def test_a_file_that_is_not_sqlite_fails_closed_and_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"not a database at all\n" * 500)
    assert "not a SQLite database" in str(await _refused(path))


async def test_a_damaged_file_fails_closed_and_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    await _filled(path, threads=4, records=30)
    page = int(_pragma(path, "page_size"))  # type: ignore[call-overload]
    data = bytearray(path.read_bytes())
    assert len(data) > 8 * page
    data[3 * page : 6 * page] = bytes(range(256)) * (3 * page // 256)
    path.write_bytes(bytes(data))
    await _refused(path)


async def test_the_directory_must_exist(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "missing" / "threads.db")
    with pytest.raises(StoreError, match="does not exist"):
        await store.open()
    assert not (tmp_path / "missing").exists()


async def test_a_write_waiting_for_another_writer_does_not_block_the_event_loop(
    tmp_path: Path,
) -> None:
    path = tmp_path / "threads.db"
    store = SQLiteStore(path)
    await store.open()
    await store.create_thread("t", [])
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another writer holds the file's write lock
        append = asyncio.create_task(store.append("t", [NewRecord("note", "waited")]))
        ticks = 0
        for _ in range(20):
            await asyncio.sleep(0.01)
            ticks += 1
        assert ticks == 20
        assert not append.done()
        other.execute("COMMIT")
        assert (await append).first_seq == 1
    finally:
        other.close()
        await store.close()


async def test_a_cancelled_write_still_commits_whole_or_not_at_all(tmp_path: Path) -> None:
    """Cancelling the caller does not cut a commit in half: the write runs to its end
    on the store's worker thread (here: it commits once the lock is free)."""
    path = tmp_path / "threads.db"
    store = SQLiteStore(path)
    await store.open()
    await store.create_thread("t", [])
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        append = asyncio.create_task(
            store.append("t", [NewRecord("note", "a"), NewRecord("note", "b")], summary="ab")
        )
        await asyncio.sleep(0.05)
        append.cancel()
        with pytest.raises(asyncio.CancelledError):
            await append
        other.execute("COMMIT")
        assert [r.data for r in await store.read("t")] == ["a", "b"]
        row = await store.thread("t")
        assert row is not None
        assert row.summary == "ab"
    finally:
        other.close()
        await store.close()


async def test_a_write_that_cannot_get_the_lock_in_time_fails_as_a_store_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "threads.db"
    store = SQLiteStore(path, busy_timeout=0.1)
    await store.open()
    await store.create_thread("t", [])
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreError, match="locked"):
            await store.append("t", [NewRecord("note", "never")])
        other.execute("ROLLBACK")
        assert await store.read("t") == []
    finally:
        other.close()
        await store.close()


# -- maintenance ---------------------------------------------------------------------


async def test_maintenance_after_deleting_threads_shrinks_the_file(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    await _filled(path, threads=6, records=40)
    store = SQLiteStore(path)
    await store.open()
    for n in range(5):
        await store.delete_thread(f"t{n}")
    await store.close()
    report = await maintain_sqlite(path)
    assert report.bytes_after < report.bytes_before / 3
    assert report.reclaimed == report.bytes_before - report.bytes_after
    assert path.stat().st_size == report.bytes_after
    store = SQLiteStore(path)
    await store.open()
    try:
        assert len(await store.read("t5")) == 40
    finally:
        await store.close()
    again = maintain_sqlite_sync(path, full=True)
    assert again.bytes_after <= again.bytes_before


async def test_maintenance_is_refused_while_a_store_has_the_file_open(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    await _filled(path, threads=1, records=1)
    store = SQLiteStore(path)
    await store.open()
    try:
        before = path.read_bytes()
        with pytest.raises(StoreInUseError):
            await maintain_sqlite(path)
        assert path.read_bytes() == before
    finally:
        await store.close()
    await maintain_sqlite(path)


async def test_maintenance_refuses_files_that_are_not_intact_threads_stores(
    tmp_path: Path,
) -> None:
    with pytest.raises(StoreError, match="no such file"):
        maintain_sqlite_sync(tmp_path / "absent.db")
    foreign = tmp_path / "app.db"
    with contextlib.closing(sqlite3.connect(foreign)) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.commit()
    before = foreign.read_bytes()
    with pytest.raises(SchemaError):
        maintain_sqlite_sync(foreign)
    assert foreign.read_bytes() == before
