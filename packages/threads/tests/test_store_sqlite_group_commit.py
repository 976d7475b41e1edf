"""The SQLite store commits the writes waiting together in one transaction (group
commit): one commit and one sync of the log for all of them, each caller answered
after it, a refused write left out alone, and a group that fails midway run again
write by write, so a grouped write commits exactly as it would have alone."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

import pytest

from automata.core import InvalidArgumentError
from automata.threads import LeaseLostError, SQLiteStore
from automata.threads._changes import ChangeSignals
from automata.threads.store import Lease, NewRecord

WRITERS = 20


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path / "threads.db")
    await opened.open()
    for n in range(WRITERS):
        await opened.create_thread(f"t{n}", [NewRecord("note", "first")])
    yield opened
    await opened.close()


async def commits_during(store: SQLiteStore, work: Awaitable[object]) -> list[str]:
    """The COMMIT statements the store's connection ran while `work` ran."""
    seen: list[str] = []

    def trace(statement: str) -> None:
        if statement.strip().upper() == "COMMIT":
            seen.append(statement)

    await store._run("solo", lambda: store._db().set_trace_callback(trace))
    try:
        await work
    finally:
        await store._run("solo", lambda: store._db().set_trace_callback(None))
    return seen


async def test_durable_appends_waiting_together_share_one_commit(store: SQLiteStore) -> None:
    appends = asyncio.gather(
        *(
            store.append(f"t{n}", [NewRecord("note", f"second {n}")], durable=True)
            for n in range(WRITERS)
        )
    )
    commits = await commits_during(store, appends)
    assert [commit.first_seq for commit in appends.result()] == [2] * WRITERS
    assert 1 <= len(commits) < WRITERS // 2
    for n in range(WRITERS):
        records = await store.read(f"t{n}")
        assert [record.data for record in records] == ["first", f"second {n}"]


async def test_a_write_refused_in_a_group_fails_alone_and_the_others_commit(
    store: SQLiteStore,
) -> None:
    lease = await store.claim("t0", "host-a", 30.0)
    assert lease is not None
    stale = Lease("t0", "host-a", lease.generation + 1, lease.expires_at)
    writes = asyncio.gather(
        store.append("t0", [NewRecord("note", "fenced out")], fence=stale, durable=True),
        *(store.append(f"t{n}", [NewRecord("note", "kept")]) for n in range(1, WRITERS)),
        return_exceptions=True,
    )
    commits = await commits_during(store, writes)
    refused, *kept = writes.result()
    assert isinstance(refused, LeaseLostError)
    assert all(not isinstance(commit, BaseException) for commit in kept)
    assert len(commits) < WRITERS // 2
    assert [record.data for record in await store.read("t0")] == ["first"]
    assert (await store.thread("t0")).last_seq == 1  # type: ignore[union-attr]
    for n in range(1, WRITERS):
        assert [record.data for record in await store.read(f"t{n}")] == ["first", "kept"]


async def test_a_write_failing_after_it_changed_rows_leaves_nothing_and_the_others_commit(
    store: SQLiteStore,
) -> None:
    writes = await asyncio.gather(
        store.append("t0", [NewRecord("note", "fine"), NewRecord("note", "bad \udc80")]),
        *(store.append(f"t{n}", [NewRecord("note", "kept")]) for n in range(1, WRITERS)),
        return_exceptions=True,
    )
    assert isinstance(writes[0], InvalidArgumentError)
    assert all(not isinstance(commit, BaseException) for commit in writes[1:])
    assert [record.data for record in await store.read("t0")] == ["first"]
    assert (await store.thread("t0")).last_seq == 1  # type: ignore[union-attr]
    for n in range(1, WRITERS):
        assert [record.data for record in await store.read(f"t{n}")] == ["first", "kept"]


async def test_a_change_wakes_the_waiters_of_its_thread_only() -> None:
    signals = ChangeSignals()
    of_a = asyncio.create_task(signals.wait("a", signals.count("a")))
    of_list = asyncio.create_task(signals.wait(None, signals.count(None)))
    await asyncio.sleep(0)
    signals.bump("b")
    await asyncio.sleep(0)
    assert not of_a.done()
    assert not of_list.done()
    signals.bump("a")
    await asyncio.wait_for(of_a, 1)
    assert not of_list.done()
    signals.close()
    await asyncio.wait_for(of_list, 1)
