"""Processes sharing one SQLite file: their writes serialize, exactly one wins a
claim race, and a SIGKILLed lease holder is replaced at a higher generation, its
replayed lease refused. Each worker is a real process (`_store_procs.py`)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from automata.threads import SQLiteStore

PROCS = Path(__file__).resolve().parent / "_store_procs.py"


def start(*args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(PROCS), *map(str, args)],
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


def finish(process: subprocess.Popen[str]) -> None:
    assert process.wait(timeout=20) == 0


@pytest.fixture
async def shared(tmp_path: Path) -> Path:
    """A store file holding an empty thread "t", closed."""
    path = tmp_path / "shared.db"
    store = SQLiteStore(path)
    await store.open()
    await store.create_thread("t", [], active=True)
    await store.close()
    return path


async def _journal(path: Path) -> list[tuple[int, str]]:
    store = SQLiteStore(path)
    await store.open()
    try:
        return [(record.seq, record.data) for record in await store.read("t")]
    finally:
        await store.close()


async def test_appends_from_many_processes_are_all_kept_in_one_consecutive_order(
    shared: Path,
) -> None:
    workers, count = 4, 25
    processes = [start("append", shared, f"w{n}", count) for n in range(workers)]
    for process in processes:
        assert said(process) == {"done": count}
        finish(process)
    journal = await _journal(shared)
    assert [seq for seq, _ in journal] == list(range(1, workers * count + 1))
    texts = [text for _, text in journal]
    assert sorted(texts) == sorted(f"w{n}:{i}" for n in range(workers) for i in range(count))
    for n in range(workers):  # each worker's commits stay in its own order
        mine = [text for text in texts if text.startswith(f"w{n}:")]
        assert mine == [f"w{n}:{i}" for i in range(count)]


async def test_two_processes_racing_to_claim_one_thread_exactly_one_wins(shared: Path) -> None:
    racers = [start("claim", shared, owner, 30) for owner in ("a", "b")]
    for racer in racers:
        assert said(racer) == {"ready": True}
    for racer in racers:
        assert racer.stdin is not None
        racer.stdin.write("go\n")
        racer.stdin.flush()
    leases = [said(racer)["lease"] for racer in racers]
    for racer in racers:
        finish(racer)
    winners = [lease for lease in leases if lease is not None]
    assert len(winners) == 1
    assert winners[0]["generation"] == 1  # type: ignore[index]


async def test_a_killed_holders_lease_expires_and_its_replayed_lease_is_refused(
    shared: Path,
) -> None:
    ttl = 0.5
    holder = start("hold", shared, "doomed", ttl)
    dead = said(holder)["lease"]
    assert isinstance(dead, dict)
    holder.send_signal(signal.SIGKILL)
    assert holder.wait(timeout=10) == -signal.SIGKILL
    store = SQLiteStore(shared)
    await store.open()
    try:
        assert await store.claim("t", "eager", 30) is None  # not expired yet
        assert await store.claimable() == []
    finally:
        await store.close()

    await asyncio.sleep(ttl)
    racer = start("claim", shared, "successor", 30)
    assert said(racer) == {"ready": True}
    assert racer.stdin is not None
    racer.stdin.write("go\n")
    racer.stdin.flush()
    successor = said(racer)["lease"]
    finish(racer)
    assert isinstance(successor, dict)
    assert successor["owner"] == "successor"
    assert successor["generation"] == dead["generation"] + 1

    replay = start("fenced", shared, json.dumps(dead))
    assert said(replay) == {"lost": dead["generation"]}
    finish(replay)
    written = start("fenced", shared, json.dumps(successor))
    assert said(written) == {"written": True}
    finish(written)
    assert await _journal(shared) == [(1, "late")]
