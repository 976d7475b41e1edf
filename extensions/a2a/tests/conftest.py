"""The `agents` server process, shared by the modules that drive it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .processes import ServerProcess, running


@pytest.fixture(scope="session")
def agents() -> Iterator[ServerProcess]:
    """The automata agents of served.py, each mounted under `/<name>/`."""
    with running("agents") as server:
        yield server
