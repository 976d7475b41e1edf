"""Retention on PostgreSQL (docs/threads-storage.md, RT1-RT5) beyond the conformance
suite: a purge takes only its own tenant's schema, and a lease held by a host in
another process refuses it, that host's fenced write still landing after."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from automata.postgres import PostgresStore
from automata.threads import PurgeRefusedError
from automata.threads.store import NewRecord

PROCS = Path(__file__).resolve().parent / "_pg_procs.py"


async def test_a_purge_takes_only_its_own_tenants_threads(
    pg_server: str, new_schema: Callable[[], str]
) -> None:
    """RT1, RT4 per tenant: the same thread ids on two schemas; purging one schema
    deletes and archives its threads only."""
    tenants = [PostgresStore(pg_server, schema=new_schema()) for _ in range(2)]
    for store in tenants:
        await store.open()
    try:
        for store in tenants:
            await store.create_thread("a", [NewRecord("note", store.schema)])
            await store.create_thread("b", [NewRecord("note", "kid")], parent_id="a")
        archive = io.StringIO()
        report = await tenants[0].purge(keep_last=0, archive_to=archive)
        assert report.thread_ids == ("a", "b")
        assert report.records == 2
        assert report.pages_freed is None
        first = json.loads(archive.getvalue().splitlines()[1])
        assert first["data"] == tenants[0].schema
        assert await tenants[0].list_threads() == []
        assert [r.thread_id for r in await tenants[1].list_threads()] == ["a"]
        assert [r.data for r in await tenants[1].read("a")] == [tenants[1].schema]
    finally:
        for store in tenants:
            await store.close()


async def test_a_lease_held_by_a_host_in_another_process_refuses_the_purge(
    pg_server: str, schema: str
) -> None:
    """RT3 across processes: another process holds thread "t"'s lease; the purge
    raises `PurgeRefusedError` and deletes nothing, so the holder's fenced write
    still commits."""
    store = PostgresStore(pg_server, schema=schema)
    await store.open()
    holder = None
    try:
        await store.create_thread("t", [NewRecord("note", "ended")])
        holder = await asyncio.create_subprocess_exec(
            sys.executable, str(PROCS), "hold", pg_server, schema, "holder", "30",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert holder.stdin is not None
        assert holder.stdout is not None
        assert json.loads(await holder.stdout.readline())["lease"] is not None
        with pytest.raises(PurgeRefusedError) as refused:
            await store.purge(keep_last=0)
        assert refused.value.thread_ids == ("t",)
        holder.stdin.write(b"go\n")
        await holder.stdin.drain()
        assert json.loads(await holder.stdout.readline()) == {"written": True}
        assert await holder.wait() == 0
        assert [r.data for r in await store.read("t")] == ["ended", "late"]
    finally:
        if holder is not None and holder.returncode is None:
            holder.kill()
            await holder.wait()
        await store.close()
