"""Maintenance of a SQLite threads file: check it, then give free space back to the disk.

Deleting threads frees pages inside the file; the file shrinks only when those pages
are reclaimed. `maintain_sqlite` does that while no store has the file open (an open
`SQLiteStore` holds a shared lock on `<path>.lock`; maintenance takes it exclusively
and refuses, with `StoreInUseError`, when it cannot).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from automata.threads import _sqlite_file as files
from automata.threads import _sqlite_schema as schema
from automata.threads._errors import SchemaError, StoreError
from automata.threads._sqlite import lock_path, resolve

__all__ = ["MaintenanceReport", "StoreInUseError", "maintain_sqlite", "maintain_sqlite_sync"]


class StoreInUseError(StoreError):
    """Maintenance was refused because a store or host has the file open. Nothing was
    changed; run it again once they are closed."""


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    """The file's size (database plus write-ahead log, in bytes) before and after."""

    bytes_before: int
    bytes_after: int

    @property
    def reclaimed(self) -> int:
        """Bytes given back to the disk."""
        return self.bytes_before - self.bytes_after


def _size(path: Path) -> int:
    total = 0
    for part in (path, path.with_name(path.name + "-wal")):
        with contextlib.suppress(FileNotFoundError):
            total += part.stat().st_size
    return total


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreInUseError(
                f"cannot maintain {path}: a threads store has it open; close it first"
            ) from None
        yield
    finally:
        os.close(fd)


def maintain_sqlite_sync(path: str | os.PathLike[str], *, full: bool = False) -> MaintenanceReport:
    """Check the file's schema and integrity (`PRAGMA integrity_check`), then reclaim
    free pages (`PRAGMA incremental_vacuum`; with `full`, rebuild the file with
    `VACUUM`, which also defragments it). Raises `StoreInUseError` while a store has
    the file open, `SchemaError` for a file that is not a current, intact threads
    store (nothing is changed then), and `StoreError` when there is no file."""
    resolved = resolve(path)
    if not resolved.is_file():
        raise StoreError(f"cannot maintain {resolved}: there is no such file")
    with _exclusive(resolved):
        if files.examine(resolved) != "database":
            raise files.refuse_empty(resolved)
        before = _size(resolved)
        db = sqlite3.connect(resolved, isolation_level=None)
        try:
            state = schema.inspect(db, resolved, check=False)
            if state.fresh or state.version != schema.SCHEMA_VERSION:
                raise SchemaError(
                    f"cannot maintain {resolved}: it holds threads schema version "
                    f"{state.version}, not {schema.SCHEMA_VERSION}; open a store on it first"
                )
            schema.check_tables(db, resolved, state.version)
            problems = [str(row[0]) for row in db.execute("PRAGMA integrity_check").fetchall()]
            if problems != ["ok"]:
                raise SchemaError(f"{resolved} is damaged: {'; '.join(problems[:5])}")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            if full:
                db.execute("VACUUM")
            else:
                # executescript steps the pragma to its end; one `execute` step frees
                # a single page.
                db.executescript("PRAGMA incremental_vacuum;")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.DatabaseError as error:
            raise SchemaError(f"{resolved} is damaged or not a database: {error}") from error
        finally:
            db.close()
        return MaintenanceReport(before, _size(resolved))


async def maintain_sqlite(path: str | os.PathLike[str], *, full: bool = False) -> MaintenanceReport:
    """`maintain_sqlite_sync` on a worker thread, so the event loop keeps running."""
    return await asyncio.to_thread(maintain_sqlite_sync, path, full=full)
