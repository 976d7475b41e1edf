"""Hosts on one database are processes with their own pools: their appends to one
thread all land in one consecutive order, exactly one of ten wins a claim race, a
paused lease holder's late write is refused once another has claimed, ten hosts opening
a new schema at once migrate it exactly once, and a commit in one process reaches
another's change feed. Each worker is a real process (`_pg_procs.py`)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from automata.postgres import PostgresStore
from automata.threads.store import NewRecord

PROCS = Path(__file__).resolve().parent / "_pg_procs.py"


def start(command: str, dsn: str, schema: str, *args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(PROCS), command, dsn, schema, *map(str, args)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def said(process: subprocess.Popen[str]) -> dict[str, object]:
    """The next JSON line the worker printed."""
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, f"worker exited with {process.wait()} before reporting"
    message: dict[str, object] = json.loads(line)
    return message


def go(processes: list[subprocess.Popen[str]]) -> None:
    """Wait until every worker is ready, then release them together."""
    for process in processes:
        assert said(process) == {"ready": True}
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()


def finish(process: subprocess.Popen[str]) -> None:
    assert process.wait(timeout=20) == 0


@pytest.fixture
async def store(pg_server: str, schema: str) -> AsyncIterator[PostgresStore]:
    """An open store on a fresh schema holding an empty, active thread "t"."""
    opened = PostgresStore(pg_server, schema=schema)
    await opened.open()
    await opened.create_thread("t", [], active=True)
    yield opened
    await opened.close()


async def test_ten_hosts_opening_a_new_schema_at_once_migrate_it_exactly_once(
    pg_server: str, schema: str
) -> None:
    hosts = [start("open", pg_server, schema) for _ in range(10)]
    go(hosts)
    reports = [said(host) for host in hosts]
    for host in hosts:
        finish(host)
    assert sorted(report["migrated"] for report in reports) == [False] * 9 + [True]  # type: ignore[type-var]
    store = PostgresStore(pg_server, schema=schema)
    await store.open()
    await store.close()


async def test_appends_from_four_processes_are_all_kept_in_one_consecutive_order(
    store: PostgresStore, pg_server: str, schema: str
) -> None:
    workers, count = 4, 25
    processes = [start("append", pg_server, schema, f"w{n}", count) for n in range(workers)]
    for process in processes:
        assert said(process) == {"done": count}
        finish(process)
    journal = await store.read("t")
    assert [record.seq for record in journal] == list(range(1, workers * count + 1))
    texts = [record.data for record in journal]
    assert sorted(texts) == sorted(f"w{n}:{i}" for n in range(workers) for i in range(count))
    for n in range(workers):  # each worker's commits stay in its own order
        mine = [text for text in texts if text.startswith(f"w{n}:")]
        assert mine == [f"w{n}:{i}" for i in range(count)]


async def test_ten_processes_racing_to_claim_one_thread_exactly_one_wins(
    store: PostgresStore, pg_server: str, schema: str
) -> None:
    racers = [start("claim", pg_server, schema, f"host{n}", 30) for n in range(10)]
    go(racers)
    leases = [said(racer)["lease"] for racer in racers]
    for racer in racers:
        finish(racer)
    winners = [lease for lease in leases if lease is not None]
    assert len(winners) == 1
    assert winners[0]["generation"] == 1  # type: ignore[index]
    row = await store.claim("t", "someone-else", 30)
    assert row is None  # the winner holds it


async def test_a_paused_holder_is_taken_over_after_its_lease_and_its_late_write_refused(
    store: PostgresStore, pg_server: str, schema: str
) -> None:
    ttl = 0.5
    holder = start("hold", pg_server, schema, "paused", ttl)
    paused = said(holder)["lease"]
    assert isinstance(paused, dict)
    holder.send_signal(signal.SIGSTOP)
    try:
        assert await store.claim("t", "successor", 30) is None  # not expired yet
        await asyncio.sleep(ttl + 0.1)
        successor = await store.claim("t", "successor", 30)
        assert successor is not None
        assert successor.generation == paused["generation"] + 1
        await store.append("t", [NewRecord("note", "successor")], fence=successor)
    finally:
        holder.send_signal(signal.SIGCONT)
    assert holder.stdin is not None
    holder.stdin.write("go\n")
    holder.stdin.flush()
    assert said(holder) == {"lost": paused["generation"]}
    finish(holder)
    assert [record.data for record in await store.read("t")] == ["successor"]


async def test_a_commit_in_one_process_reaches_the_change_feed_of_another(
    store: PostgresStore, pg_server: str, schema: str
) -> None:
    listener = start("listen", pg_server, schema, "t")
    assert listener.stdout is not None
    seen = asyncio.ensure_future(asyncio.to_thread(listener.stdout.readline))
    # The listener starts listening at some point after it starts: commit until it hears.
    for _ in range(100):
        await store.append("t", [NewRecord("note", "ping")])
        done, _pending = await asyncio.wait({seen}, timeout=0.1)
        if done:
            break
    assert json.loads(await seen) == {"seen": "t"}
    finish(listener)
