"""Retention (docs/threads-storage.md, RT1-RT5) beyond the conformance suite: the
thread service's purge, the pages a SQLite file gives back, and a lease held by a
host in another process refusing a purge until that host is gone."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from automata.core import Agent, InvalidArgumentError
from automata.core.testing import ScriptedProvider
from automata.threads import (
    PurgeRefusedError,
    SQLiteStore,
    ThreadNotFoundError,
    ThreadService,
    ThreadView,
)
from automata.threads.store import NewRecord, ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
Settle = Callable[..., Awaitable[ThreadView]]
PROCS = Path(__file__).resolve().parent / "_store_procs.py"


async def test_the_service_purges_ended_threads_and_their_views_are_gone(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """RT1, RT2 through `ThreadService.purge`: an ended conversation is deleted, the
    newest kept, and the host no longer serves the purged one."""
    service = await service_for(lambda r: Agent(ScriptedProvider(["hello", "again"])))
    old = await service.create(request_key="c1", title="old")
    await service.send(old.thread_id, "hi", request_key="s1")
    await settle(service, old.thread_id)
    new = await service.create(request_key="c2", title="new")
    records = len(await store.read(old.thread_id))
    report = await service.purge(keep_last=1)
    assert report.thread_ids == (old.thread_id,)
    assert report.records == records > 1
    with pytest.raises(ThreadNotFoundError):
        await service.view(old.thread_id)
    assert [t.thread_id for t in (await service.list()).threads] == [new.thread_id]


async def test_the_service_takes_an_aware_datetime_and_refuses_a_naive_one(
    service_for: ServiceFor,
) -> None:
    """RT5 at the service: `ended_before` may be an aware datetime; a naive one is
    refused before anything is deleted."""
    service = await service_for(lambda r: Agent(ScriptedProvider([])))
    made = await service.create(request_key="c1")
    with pytest.raises(InvalidArgumentError, match="aware"):
        await service.purge(ended_before=datetime(3000, 1, 1))
    assert (await service.view(made.thread_id)).thread_id == made.thread_id
    report = await service.purge(ended_before=datetime(3000, 1, 1, tzinfo=UTC))
    assert report.thread_ids == (made.thread_id,)


def _pages(path: Path) -> tuple[int, int]:
    """The file's (page_count, freelist_count), read on a connection of its own."""
    with sqlite3.connect(path) as db:
        return (
            int(db.execute("PRAGMA page_count").fetchone()[0]),
            int(db.execute("PRAGMA freelist_count").fetchone()[0]),
        )


async def test_a_sqlite_purge_gives_the_freed_pages_back_to_the_file(tmp_path: Path) -> None:
    """RT1 on a real file: the purged rows are gone, the pages they held are counted
    in `pages_freed` and returned by the incremental vacuum (the page count drops by
    as many, none left on the free list), and the file shrinks at the checkpoint."""
    path = tmp_path / "threads.db"
    store = SQLiteStore(path)
    await store.open()
    try:
        big = [NewRecord("note", "x" * 4000) for _ in range(50)]
        await store.create_thread("old", big)
        await store.create_thread("kept", [NewRecord("note", "small")])
        await store.append("old", [], active=False)
        pages_before, _ = _pages(path)
        report = await store.purge(keep_last=1)
        pages_after, free_after = _pages(path)
    finally:
        await store.close()
    assert report.thread_ids == ("old",)
    assert report.records == 50
    assert report.bytes == 50 * (4 + 4000)
    assert report.pages_freed is not None
    assert report.pages_freed >= 50
    assert pages_before - pages_after == report.pages_freed
    assert free_after == 0
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM records WHERE thread_id = 'old'").fetchone() == (0,)
        assert db.execute("SELECT thread_id FROM threads").fetchall() == [("kept",)]
    page_size = 4096
    assert path.stat().st_size <= (pages_after + 1) * page_size


async def _start_holder(path: Path, ttl: float) -> asyncio.subprocess.Process:
    """A process that opens its own store on `path`, claims thread "t" for `ttl`
    seconds and sleeps until killed; returns once it holds the lease."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(PROCS), "hold", str(path), "holder", str(ttl),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    said = json.loads(await process.stdout.readline())
    assert said["lease"] is not None, said
    return process


async def test_a_lease_held_in_another_process_refuses_the_purge_until_it_is_gone(
    tmp_path: Path,
) -> None:
    """RT3 across processes: while another process holds the lease of an ended thread,
    purge raises `PurgeRefusedError` and deletes nothing; once that process is
    SIGKILLed and its lease expires, the thread is due a recovery and stays out of
    the purge; once recovered (claimed and released), it is purged."""
    path = tmp_path / "threads.db"
    store = SQLiteStore(path)
    await store.open()
    try:
        await store.create_thread("t", [NewRecord("note", "ended")])
        await store.create_thread("other", [NewRecord("note", "ended too")])
        ttl = 1.5
        holder = await _start_holder(path, ttl)
        try:
            with pytest.raises(PurgeRefusedError) as refused:
                await store.purge(keep_last=0)
            assert refused.value.thread_ids == ("t",)
            assert {r.thread_id for r in await store.list_threads()} == {"t", "other"}
        finally:
            holder.send_signal(signal.SIGKILL)
            assert await holder.wait() == -signal.SIGKILL
        await asyncio.sleep(ttl + 0.2)
        after_death = await store.purge(keep_last=0)
        assert after_death.thread_ids == ("other",)
        lease = await store.claim("t", "recoverer", 30)
        assert lease is not None
        await store.release(lease)
        assert (await store.purge(keep_last=0)).thread_ids == ("t",)
    finally:
        await store.close()
