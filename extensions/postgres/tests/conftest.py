"""One throwaway PostgreSQL server for the whole test session; each test takes fresh
schemas on it (a schema is a tenant: stores on different schemas share nothing)."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator

import pytest
from automata_pg_testing import Backends, PostgresUnavailable, require_postgres, throwaway_postgres

_schemas = itertools.count(1)
_session = uuid.uuid4().hex[:8]  # apart from other sessions on a shared server


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The DSN of the session's server (skipped, or failed in CI, when none)."""
    try:
        with throwaway_postgres() as dsn:
            yield dsn
    except PostgresUnavailable as error:
        require_postgres(error)


@pytest.fixture
def new_schema(pg_server: str) -> Callable[[], str]:
    """Makes a schema name no other test or store of this session uses."""
    return lambda: f"t{_session}_{next(_schemas)}"


@pytest.fixture
def schema(new_schema: Callable[[], str]) -> str:
    """A schema name fresh for this test."""
    return new_schema()


@pytest.fixture
def backends(pg_server: str) -> Backends:
    """The session server's backends, to terminate a store's connections."""
    return Backends(pg_server)
