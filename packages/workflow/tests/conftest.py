"""Fixtures for the workflow tests: store backends, and a counter of node calls."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from automata.threads import MemoryStore, SQLiteStore
from automata.threads.store import ThreadStore

Backend = Callable[[], ThreadStore]


@pytest.fixture(params=["memory", "sqlite"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Makes store objects on one backing store: the same `MemoryStore` each time, or a
    new `SQLiteStore` on the same file, as a second process would have."""
    if request.param == "memory":
        shared = MemoryStore()
        return lambda: shared
    path = tmp_path / "runs.db"
    return lambda: SQLiteStore(path)


@pytest.fixture
async def stores(backend: Backend) -> AsyncIterator[Callable[[], ThreadStore]]:
    """Opens store objects on the test's backing store; all are closed at the end."""
    opened: list[ThreadStore] = []

    def make() -> ThreadStore:
        store = backend()
        opened.append(store)
        return store

    yield make
    for store in opened:
        await store.close()


async def opened(store: ThreadStore) -> ThreadStore:
    await store.open()
    return store
