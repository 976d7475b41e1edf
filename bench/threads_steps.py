"""Committed steps per second of durable threads, and their overhead over a plain run.

Run: uv run python bench/threads_steps.py [--tools N] [--threads 1 10 100] [--rounds 5]
         [--commits 300]

Each thread runs one turn of a scripted conversation: N model steps that each call a
tool, then the answer, so a turn commits 2N+1 steps (N model steps with calls, N tool
batches, the answer), plus its input, start and end. With T threads at once on one
SQLite file (a fresh file per size and round, WAL mode; the T inputs sent at once),
the figure is committed steps per second of wall time, all threads together (median
and range of the rounds), beside its baseline: as many plain `session.run`s of the
same agent at once, nothing persisted, in the same rounds; and the CPU time of the
whole process (every thread) per step of each. Overhead: one such turn run durably
(on SQLite, then on the in-memory store) against the same agent's `session.run` with
nothing persisted, as ratios of wall and of CPU time (medians of the rounds, the
sides alternating). Printed first: the disk the temporary files live on and SQLite's
settings; printed after the figures: each against its target of issue 34 (a durable
turn at most 2.0x a plain run on SQLite and 1.3x in memory; at least 5,000 committed
steps/s with 100 threads on SQLite). The tool is sync, as a plain tool usually is,
so every call starts a thread on both sides; with `BENCH_ASYNC_TOOL=1` it is the
same tool written async (no thread per call), which shows the store's and the
host's own costs with less noise.

Durability: the store makes the commit carrying a turn's `dispatched` records durable
(`synchronous = FULL`: synced before any tool runs); every other commit runs at
`synchronous = NORMAL` (synced at checkpoints; a power loss may take the last ones).
Then the store calls one durable turn makes (each a hop to the SQLite store's worker
thread), by method: a count, steady under load. Printed last: single-record commits
per second of a bare store, NORMAL against durable, and the wall time of one turn
with no commit durable (the setting before), the dispatch commits durable (now) and
every append durable, as ratios of the first (median of the rounds, fresh files in
one temporary directory: point TMPDIR at a real disk, as fsync is free on tmpfs).
Each durable commit costs one fsync of the log, so the figures depend on the disk.
Benchmarks measure; they never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sqlite3
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from automata.core import Agent, Message, tool
from automata.core.testing import Reply, ScriptedProvider, tool_call, tool_calls
from automata.threads import AgentRequest, Host, MemoryStore, SQLiteStore, ThreadService
from automata.threads.store import (
    Commit,
    Lease,
    NewRecord,
    Record,
    RequestClaim,
    ThreadRow,
    ThreadStore,
)


def lookup(key: str) -> str:
    """A cheap tool."""
    return key.upper()


async def lookup_async(key: str) -> str:
    """The same tool, async: it runs on the event loop, so no thread is started per
    call (a sync tool gets a thread of its own for each call)."""
    return key.upper()


LOOKUP = tool(lookup)
if os.environ.get("BENCH_ASYNC_TOOL"):
    LOOKUP = tool(lookup_async, name="lookup")


def script(tools: int) -> list[Reply]:
    replies: list[Reply] = [
        tool_calls(tool_call(f"c{n}", "lookup", key=f"k{n}")) for n in range(tools)
    ]
    return [*replies, Message.assistant("done")]


def agent_for(tools: int) -> Agent[None]:
    return Agent(ScriptedProvider(script(tools)), system_prompt="bench", tools=[LOOKUP])


async def settle(service: ThreadService, thread_id: str) -> None:
    async with aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status != "running":
                if view.status != "done":
                    raise RuntimeError(f"thread {thread_id} ended {view.status}: {view.error}")
                return


@dataclass(frozen=True)
class Spent:
    """Wall-clock and CPU seconds (the process's, every thread's) of one measurement."""

    wall: float
    cpu: float


class Clock:
    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def spent(self) -> Spent:
        return Spent(time.perf_counter() - self.wall, time.process_time() - self.cpu)


async def durable_turns(store: ThreadStore, threads: int, tools: int) -> Spent:
    """The time `threads` threads take to run one turn each, all at once."""

    def factory(request: AgentRequest) -> Agent[None]:
        return agent_for(tools)

    host = await Host.open(store, poll_interval=0.01)
    try:
        service = host.thread_service(factory)
        made = [await service.create(request_key=f"c{n}") for n in range(threads)]
        clock = Clock()
        await asyncio.gather(
            *(
                service.send(thread.thread_id, "go", request_key=f"s{n}")
                for n, thread in enumerate(made)
            )
        )
        await asyncio.gather(*(settle(service, thread.thread_id) for thread in made))
        return clock.spent()
    finally:
        await host.shutdown()


async def plain_turns(threads: int, tools: int) -> Spent:
    """The time `threads` plain runs of one turn each take, all at once."""
    sessions = [agent_for(tools).session() for _ in range(threads)]
    clock = Clock()
    await asyncio.gather(*(session.run("go") for session in sessions))
    return clock.spent()


def disk_of(folder: Path) -> str:
    """The device and file system `folder` is on (from /proc/mounts), and its size."""
    best = ("?", "?", "")
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            device, point, kind = line.split()[:3]
            if str(folder).startswith(point) and len(point) >= len(best[2]):
                best = (device, kind, point)
    except OSError:
        pass
    stats = os.statvfs(folder)
    return f"{best[0]} ({best[1]}, {stats.f_blocks * stats.f_frsize / 1e9:.0f} GB) at {best[2]}"


def settings_of(path: Path) -> str:
    """SQLite's journal mode and synchronous setting as a store left its file."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    return f"journal_mode = {mode}, synchronous = NORMAL, FULL for dispatch commits"


def cpu_per_step(spent: Sequence[Spent], steps: int) -> str:
    return f"{statistics.median(s.cpu for s in spent) / steps * 1e6:.0f}"


def spread(values: Sequence[float]) -> str:
    return f"median {statistics.median(values):.0f}, range {min(values):.0f}-{max(values):.0f}"


class ForcedDurability(SQLiteStore):
    """A store whose appends are all made durable (`durable = True`) or none
    (`durable = False`, the store as it was), whatever the caller asks."""

    durable = False

    async def append(
        self,
        thread_id: str,
        records: Sequence[NewRecord],
        *,
        fence: Lease | None = None,
        request: RequestClaim | None = None,
        active: bool | None = None,
        summary: str | None = None,
        revoke_lease: bool = False,
        durable: bool = False,
    ) -> Commit:
        return await super().append(
            thread_id,
            records,
            fence=fence,
            request=request,
            active=active,
            summary=summary,
            revoke_lease=revoke_lease,
            durable=self.durable,
        )


class NormalOnly(ForcedDurability):
    """The store as it was: no commit is made durable."""


class AllFull(ForcedDurability):
    """Every append durable (creating a thread stays NORMAL: once per thread)."""

    durable = True


class CountedCalls(SQLiteStore):
    """The store, counting the calls a host makes of it (each a hop to its worker
    thread and back), by method."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.calls: Counter[str] = Counter()

    async def append(self, thread_id: str, records: Sequence[NewRecord], **options: Any) -> Commit:
        self.calls["append"] += 1
        return await super().append(thread_id, records, **options)

    async def read(self, thread_id: str, **options: Any) -> list[Record]:
        self.calls["read"] += 1
        return await super().read(thread_id, **options)

    async def thread(self, thread_id: str) -> ThreadRow | None:
        self.calls["thread"] += 1
        return await super().thread(thread_id)

    async def claim(self, thread_id: str, owner: str, ttl: float) -> Lease | None:
        self.calls["claim"] += 1
        return await super().claim(thread_id, owner, ttl)

    async def release(self, lease: Lease, **options: Any) -> bool:
        self.calls["release"] += 1
        return await super().release(lease, **options)


async def store_calls(folder: Path, tools: int) -> None:
    """The store calls of one durable turn (sent and followed to its end), a count
    that does not move with the machine's load."""
    store = CountedCalls(folder / "calls.db")
    await durable_turns(store, 1, tools)
    calls = ", ".join(f"{name} {count}" for name, count in sorted(store.calls.items()))
    print(f"store calls per durable turn: {sum(store.calls.values())} ({calls})")


async def commits_per_second(path: Path, count: int, *, durable: bool) -> float:
    store = SQLiteStore(path)
    await store.open()
    try:
        await store.create_thread("t", [])
        started = time.perf_counter()
        for n in range(count):
            await store.append("t", [NewRecord("note", f"record {n}")], durable=durable)
        return count / (time.perf_counter() - started)
    finally:
        await store.close()


async def durability(folder: Path, tools: int, rounds: int, commits: int) -> None:
    normal = await commits_per_second(folder / "normal.db", commits, durable=False)
    synced = await commits_per_second(folder / "synced.db", commits, durable=True)
    print(f"bare commits: NORMAL {normal:.0f}/s, durable {synced:.0f}/s ({normal / synced:.1f}x)")
    ways: dict[str, type[SQLiteStore]] = {
        "none durable (before)": NormalOnly,
        "dispatch durable (now)": SQLiteStore,
        "every append durable": AllFull,
    }
    times: dict[str, list[float]] = {name: [] for name in ways}
    for round_ in range(rounds):
        for n, (name, kind) in enumerate(ways.items()):
            store = kind(folder / f"durability-{n}-{round_}.db")
            times[name].append((await durable_turns(store, 1, tools)).wall)
    before = statistics.median(times["none durable (before)"])
    for name, measured in times.items():
        middle = statistics.median(measured)
        print(f"turn, {name:<22}: {middle * 1000:6.1f} ms, {middle / before:.2f}x")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tools", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--commits", type=int, default=300)
    options = parser.parse_args()
    steps_per_turn = 2 * options.tools + 1
    with tempfile.TemporaryDirectory() as folder:
        print(f"disk: {disk_of(Path(folder))}; SQLite {sqlite3.sqlite_version}")
        print(f"one turn = {steps_per_turn} committed steps")
        rates: dict[int, list[float]] = {}
        for count in options.threads:
            durable: list[Spent] = []
            plain: list[Spent] = []
            for round_ in range(options.rounds):
                path = Path(folder) / f"steps-{count}-{round_}.db"
                durable.append(await durable_turns(SQLiteStore(path), count, options.tools))
                plain.append(await plain_turns(count, options.tools))
            steps = count * steps_per_turn
            rates[count] = [steps / spent.wall for spent in durable]
            plain_rates = [steps / spent.wall for spent in plain]
            ratio = statistics.median(rates[count]) / statistics.median(plain_rates)
            print(
                f"SQLite, {count:>3} threads: {spread(rates[count])} steps/s; "
                f"plain runs at once: {spread(plain_rates)} steps/s ({ratio:.2f}x); "
                f"CPU per step {cpu_per_step(durable, steps)} us, plain "
                f"{cpu_per_step(plain, steps)} us"
            )
        print(settings_of(Path(folder) / f"steps-{options.threads[0]}-0.db"))
        sides: dict[str, list[Spent]] = {"plain": [], "sqlite": [], "memory": []}
        for round_ in range(options.rounds):
            sides["plain"].append(await plain_turns(1, options.tools))
            path = Path(folder) / f"overhead-{round_}.db"
            sides["sqlite"].append(await durable_turns(SQLiteStore(path), 1, options.tools))
            sides["memory"].append(await durable_turns(MemoryStore(), 1, options.tools))
        wall = {side: statistics.median(s.wall for s in spent) for side, spent in sides.items()}
        cpu = {side: statistics.median(s.cpu for s in spent) for side, spent in sides.items()}
        print(
            f"plain session run: {wall['plain'] * 1000:.1f} ms per turn "
            f"(CPU {cpu['plain'] * 1000:.1f} ms)"
        )
        for side, name in (("sqlite", "on SQLite"), ("memory", "in memory")):
            print(
                f"durable {name}: {wall[side] / wall['plain']:.1f}x ({wall[side] * 1000:.1f} ms), "
                f"CPU {cpu[side] / cpu['plain']:.1f}x ({cpu[side] * 1000:.1f} ms)"
            )
        print("targets (issue 34), wall time (CPU):")
        for side, name, target in (("sqlite", "on SQLite", 2.0), ("memory", "in memory", 1.3)):
            print(
                f"  durable turn {name} <= {target}x plain: {wall[side] / wall['plain']:.1f}x "
                f"({cpu[side] / cpu['plain']:.1f}x)"
            )
        if 100 in rates:
            hundred = statistics.median(rates[100])
            print(
                f"  >= 5,000 steps/s, 100 threads on SQLite: {hundred:.0f} ({hundred / 5000:.2f}x)"
            )
        await store_calls(Path(folder), options.tools)
        await durability(Path(folder), options.tools, options.rounds, options.commits)


if __name__ == "__main__":
    asyncio.run(main())
