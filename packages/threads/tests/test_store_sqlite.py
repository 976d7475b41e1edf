"""The SQLite store keeps the storage contract (the conformance suite, on a fresh file
per check), and what it adds: the file's format, schema versions and migrations, and
failing closed on files it must not touch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from automata.threads import SQLiteStore
from automata.threads.store import ThreadStore
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
        return [lambda: SQLiteStore(not_sqlite)]
