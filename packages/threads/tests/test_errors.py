"""Every durable-threads error belongs to one family a host can catch at once."""

from __future__ import annotations

import pytest

from automata.core import AutomataError
from automata.threads import (
    HostClosedError,
    LeaseLostError,
    PageBoundError,
    RequestConflictError,
    SchemaError,
    StoreClosedError,
    StoreError,
    StoreUnavailableError,
    ThreadExistsError,
    ThreadNotFoundError,
    ThreadsError,
)


@pytest.mark.parametrize(
    "error",
    [
        HostClosedError("closed"),
        LeaseLostError("t1", "runner-a", 3),
        PageBoundError("too big"),
        RequestConflictError("send-1"),
        SchemaError("newer"),
        StoreClosedError("closed"),
        StoreUnavailableError("gone", committed=None),
        ThreadExistsError("t1"),
        ThreadNotFoundError("t1"),
    ],
)
def test_every_error_is_a_threads_error_and_an_automata_error(error: ThreadsError) -> None:
    assert isinstance(error, ThreadsError)
    assert isinstance(error, AutomataError)


def test_store_failures_share_a_base() -> None:
    assert issubclass(SchemaError, StoreError)
    assert issubclass(StoreClosedError, StoreError)
    assert issubclass(StoreUnavailableError, StoreError)
    assert StoreUnavailableError("gone", committed=False).committed is False


def test_errors_name_what_went_wrong() -> None:
    assert "send-1" in str(RequestConflictError("send-1"))
    lost = LeaseLostError("t1", "runner-a", 3)
    assert (lost.thread_id, lost.owner, lost.generation) == ("t1", "runner-a", 3)
    assert "generation 3" in str(lost)
    assert isinstance(ThreadNotFoundError("t9"), LookupError)
    assert isinstance(PageBoundError("x"), ValueError)
