"""Fixtures for the workflow tests: the store backends a run is checkpointed in."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from automata_pg_testing import PostgresUnavailable, require_postgres, throwaway_postgres

from automata.postgres import PostgresStore
from automata.threads import MemoryStore, SQLiteStore
from automata.threads.store import ThreadStore

Backend = Callable[[], ThreadStore]

_schemas = itertools.count(1)
_session = uuid.uuid4().hex[:8]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A throwaway PostgreSQL server for the session (skipped, or failed in CI, when
    none can be had), started only when a test asks for the postgres backend."""
    try:
        with throwaway_postgres() as dsn:
            yield dsn
    except PostgresUnavailable as error:
        require_postgres(error)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Makes store objects on one backing store: the same `MemoryStore` each time, or a
    new `SQLiteStore` on the same file, or a new `PostgresStore` on the same schema, as
    a second process would have."""
    if request.param == "memory":
        shared = MemoryStore()
        return lambda: shared
    if request.param == "postgres":
        dsn: str = request.getfixturevalue("pg_server")
        schema = f"wf{_session}_{next(_schemas)}"
        return lambda: PostgresStore(dsn, schema=schema, max_size=4)
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
