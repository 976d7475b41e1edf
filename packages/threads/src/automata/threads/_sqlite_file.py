"""A SQLite threads file on disk, looked at before SQLite opens it, and made anew.

`examine` reads the file's size and its 100-byte header, nothing else, and refuses
(`SchemaError`) what SQLite would open without complaint although data is missing: a
file that is not SQLite, one cut short (not a whole number of pages, or fewer pages
than its header counts), and an empty file, unless the caller asked for an empty file
to become a store. `create` builds a new store in a file of its own beside `path` and
moves it into place whole, so a process that dies while creating a store leaves no
half-made file at `path`, and one that finds a file there never creates over it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
from pathlib import Path
from typing import Literal

from automata.threads import _sqlite_schema as schema
from automata.threads._errors import SchemaError

__all__ = ["FileFound", "create", "examine"]

FileFound = Literal["missing", "empty", "database"]

_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100


def _holds_bytes(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except FileNotFoundError:
        return False


def examine(path: Path) -> FileFound:
    """What is at `path`: nothing, an empty file, or a SQLite file whole as far as its
    size and header tell. Raises `SchemaError` for a file that is not SQLite or is cut
    short. Reads only; changes nothing."""
    try:
        with path.open("rb") as file:
            size = os.fstat(file.fileno()).st_size
            head = file.read(_HEADER_SIZE)
    except FileNotFoundError:
        return "missing"
    if size == 0:
        return "empty"
    if head[: len(_MAGIC)] != _MAGIC:
        raise SchemaError(f"{path} is not a SQLite database; refusing to touch it")
    if len(head) < _HEADER_SIZE:
        raise SchemaError(f"{path} is damaged: cut short inside its header ({size} bytes)")
    raw = int.from_bytes(head[16:18], "big")
    page_size = 65536 if raw == 1 else raw
    if page_size < 512 or page_size & (page_size - 1):
        raise SchemaError(f"{path} is damaged: its header names page size {raw}")
    # SQLite writes the main file in whole pages (commits in rollback mode,
    # checkpoints in WAL mode), so a size between pages is always damage.
    if size % page_size:
        raise SchemaError(
            f"{path} is damaged: cut short ({size} bytes is not a whole number of "
            f"{page_size}-byte pages); refusing to touch it"
        )
    # While a journal beside it holds commits, the main file may lag behind its
    # header (a checkpoint or a rollback is due), so the page count is checked at rest.
    at_rest = not any(_holds_bytes(path.with_name(path.name + end)) for end in ("-wal", "-journal"))
    pages = int.from_bytes(head[28:32], "big")
    counted = pages > 0 and head[24:28] == head[92:96]  # the count is valid (file format)
    if at_rest and counted and size < pages * page_size:
        raise SchemaError(
            f"{path} is damaged: cut short ({size // page_size} of the {pages} pages its "
            "header counts); refusing to touch it"
        )
    return "database"


def refuse_empty(path: Path, *, database: bool = False) -> SchemaError:
    """The error for an existing empty file nobody asked to become a store: a file of
    no bytes, or (`database`) a SQLite database that holds nothing at all, such as one
    `sqlite3 path VACUUM` leaves."""
    what = "an empty SQLite database" if database else "an empty file"
    return SchemaError(
        f"{path} is {what}, not a threads store; refusing to treat it as a new one "
        "(a store file emptied by accident would be recreated empty). Remove it, or open "
        "with adopt_empty=True to make it a new store"
    )


def _build(path: Path) -> None:
    """A complete, current threads store in the new file `path`."""
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # before the first table
        db.execute("PRAGMA journal_mode = WAL")
        schema.migrate(db, path)
        schema.verify(db, path)


def _remove(path: Path) -> None:
    for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError):
            part.unlink()


def create(path: Path, *, over_empty: bool = False) -> None:
    """Put a new threads store at `path`, built beside it and moved into place whole,
    then made durable (file and directory synced). Without `over_empty`, a file that
    appeared at `path` meanwhile (another process created the store first) is kept and
    this one discarded; with it, the caller holds the store's exclusive lock and has
    seen `path` empty, and the new store replaces that empty file."""
    building = path.with_name(f".{path.name}.{secrets.token_hex(6)}.new")
    fd = os.open(building, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    os.close(fd)
    try:
        _build(building)
        fd = os.open(building, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        if over_empty:
            os.replace(building, path)
        else:
            with contextlib.suppress(FileExistsError):
                os.link(building, path)
    finally:
        _remove(building)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
