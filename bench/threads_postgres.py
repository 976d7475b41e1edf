"""Committed steps per second of durable threads on PostgreSQL, beside SQLite, with the
threads spread over several host processes.

Run: uv run python bench/threads_postgres.py [--threads 100] [--processes 4] [--tools 5]
     [--rounds 3] [--fsync] [--dsn postgresql://...]

Each thread runs one turn of a scripted conversation: N model steps that each call a
tool, then the answer, so a turn commits 2N+1 steps (as in `threads_steps.py`). The
threads are split evenly over P processes, each a host of its own on the same store:
one SQLite file (WAL mode) on this machine, then one PostgreSQL schema (a throwaway
server started for the run unless `--dsn` or `AUTOMATA_TEST_PG_DSN` names one). Every
process creates its threads, waits until all processes are ready, sends one message
to each thread and waits until all its turns are done; the figure is the committed
steps of all threads over the slowest process's wall time. The two stores alternate
round by round (SQLite first in odd rounds, PostgreSQL first in even ones); medians and
ranges are printed, with the PostgreSQL median as a ratio of the SQLite one.

Beside the wall-clock figure, which a shared machine's load moves a lot, each round
prints counts that it does not move: the hosts' CPU per committed step, the server's
(on a server started here), the server's transactions per step and, on PostgreSQL, the
hosts' calls of the store per step, by kind. The server's
durability settings are printed as they were; `--fsync` runs the PostgreSQL side again
on the same throwaway server restarted with `fsync`, `synchronous_commit` and
`full_page_writes` on (the server's own defaults). Benchmarks measure; they never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import aclosing
from pathlib import Path

import psycopg
from automata_pg_testing import DSN_ENV, local_postgres

from automata.core import Agent, Message, tool
from automata.core.testing import Reply, ScriptedProvider, tool_call, tool_calls
from automata.postgres import PostgresStore
from automata.threads import AgentRequest, Host, SQLiteStore, ThreadService
from automata.threads.store import ThreadStore

_DURABLE = "-c fsync=on -c synchronous_commit=on -c full_page_writes=on"


def lookup(key: str) -> str:
    """A cheap tool."""
    return key.upper()


LOOKUP = tool(lookup)


def script(tools: int) -> list[Reply]:
    replies: list[Reply] = [
        tool_calls(tool_call(f"c{n}", "lookup", key=f"k{n}")) for n in range(tools)
    ]
    return [*replies, Message.assistant("done")]


async def settle(service: ThreadService, thread_id: str) -> None:
    async with aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status != "running":
                if view.status != "done":
                    raise RuntimeError(f"thread {thread_id} ended {view.status}: {view.error}")
                return


def open_store(target: str, schema: str) -> ThreadStore:
    """A SQLite store on the file `target` (`schema` "-"), else a PostgreSQL store on
    the DSN `target`, in `schema`."""
    if schema == "-":
        return SQLiteStore(target, busy_timeout=30)
    return PostgresStore(target, schema=schema, max_size=10)


async def child(target: str, schema: str, threads: int, tools: int, name: str) -> None:
    """One host: create `threads` threads, report ready, wait for "go", run one turn on
    each, report the seconds it took and the CPU seconds it used."""

    def factory(request: AgentRequest) -> Agent[None]:
        return Agent(ScriptedProvider(script(tools)), system_prompt="bench", tools=[LOOKUP])

    store = open_store(target, schema)
    calls = count_calls(store)
    host = await Host.open(store)
    try:
        service = host.thread_service(factory)
        made = [await service.create(request_key=f"{name}-c{n}") for n in range(threads)]
        print(json.dumps({"ready": True}), flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        calls.clear()
        started, cpu = time.perf_counter(), time.process_time()
        for n, thread in enumerate(made):
            await service.send(thread.thread_id, "go", request_key=f"{name}-s{n}")
        await asyncio.gather(*(settle(service, thread.thread_id) for thread in made))
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(json.dumps({"seconds": seconds, "cpu": cpu, "calls": calls}), flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # the server's counts are read
    finally:
        await host.shutdown()


_COUNTED = ("append", "read", "thread", "claim", "renew", "release", "list_threads")


def count_calls(store: ThreadStore) -> dict[str, int]:
    """Count the host's calls of `store`'s methods, by name (an append with a request
    key as "append keyed"), in the dict returned."""
    calls: dict[str, int] = {}

    def counted(name: str, method: Callable[..., Awaitable[object]]) -> Callable[..., object]:
        async def call(*args: object, **kwargs: object) -> object:
            kind = "append keyed" if name == "append" and kwargs.get("request") else name
            calls[kind] = calls.get(kind, 0) + 1
            return await method(*args, **kwargs)

        return call

    for name in _COUNTED:
        setattr(store, name, counted(name, getattr(store, name)))
    return calls


@dataclasses.dataclass(frozen=True)
class Round:
    """One run of one store: the slowest host's seconds, all hosts' CPU seconds and
    their calls of the store."""

    seconds: float
    cpu: float
    calls: dict[str, int] = dataclasses.field(default_factory=dict)

    def per_step(self, steps: int) -> str:
        """The store calls per committed step, by kind."""
        shown = (f"{kind} {n / steps:.2f}" for kind, n in sorted(self.calls.items()))
        return "store calls/step: " + ", ".join(shown)


def run(
    target: str,
    schema: str,
    threads: int,
    processes: int,
    tools: int,
    server: Server | None = None,
) -> tuple[Round, float | None, int]:
    """Run `processes` hosts sharing `threads` on one store; with `server`, also the
    server's CPU seconds and transactions while the turns ran (hosts' start and
    shutdown left out)."""
    share = [threads // processes + (n < threads % processes) for n in range(processes)]
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--child", target, schema, str(count), str(tools), f"p{n}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n, count in enumerate(share)
    ]
    try:
        for process in children:
            assert process.stdout is not None
            assert json.loads(process.stdout.readline()) == {"ready": True}
        before = (server.cpu(), server.transactions()) if server else (None, 0)
        _tell(children)
        reports = []
        for process in children:
            assert process.stdout is not None
            reports.append(json.loads(process.stdout.readline()))
        after = (server.cpu(), server.transactions()) if server else (None, 0)
        _tell(children)
        for process in children:
            process.wait(timeout=60)
        cpu = None if before[0] is None or after[0] is None else after[0] - before[0]
        calls: dict[str, int] = {}
        for report in reports:
            for kind, n in report["calls"].items():
                calls[kind] = calls.get(kind, 0) + n
        spent = Round(max(r["seconds"] for r in reports), sum(r["cpu"] for r in reports), calls)
        return spent, cpu, after[1] - before[1]
    finally:
        for process in children:
            if process.poll() is None:
                process.kill()


def _tell(children: list[subprocess.Popen[str]]) -> None:
    for process in children:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()


class Server:
    """The PostgreSQL server of the run: its DSN and, when started here, its data
    directory (to read its processes' CPU time)."""

    def __init__(self, dsn: str, data: Path | None) -> None:
        self.dsn, self.data = dsn, data

    def settings(self) -> str:
        names = ("server_version", "fsync", "synchronous_commit", "full_page_writes")
        with psycopg.connect(self.dsn, autocommit=True) as connection:
            values = [connection.execute(f"SHOW {name}").fetchone() for name in names]
        shown = ", ".join(f"{n}={v[0] if v else '?'}" for n, v in zip(names, values, strict=True))
        return f"{shown}; data directory {self.disk()}"

    def disk(self) -> str:
        if self.data is None:
            return "on the server named by the DSN (not inspected)"
        device = os.stat(self.data).st_dev
        for line in Path("/proc/mounts").read_text().splitlines():
            source, point, kind = line.split()[:3]
            if os.path.exists(point) and os.stat(point).st_dev == device:
                return f"on {source} ({kind}, mounted at {point})"
        return "on an unknown device"

    def transactions(self) -> int:
        """The server's next transaction id: its rise counts the transactions that
        wrote (read-only ones take no id), at once and whatever else is connected."""
        with psycopg.connect(self.dsn, autocommit=True) as connection:
            found = connection.execute("SELECT pg_current_xact_id()::text::bigint").fetchone()
        return int(found[0]) if found else 0

    def cpu(self) -> float | None:
        """CPU seconds of the server's processes so far, those ended included (the
        postmaster's reaped children); None for a server not started here."""
        if self.data is None:
            return None
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        ticks = 0
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(pid) == postmaster:
                ticks += sum(int(f) for f in fields[11:15])
            elif int(fields[1]) == postmaster:
                ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def servers(dsn: str | None, durable_too: bool) -> Iterator[Iterator[Server]]:
    """The server(s) of the run: the named one, or a throwaway one as the test kit
    starts it, then (with `durable_too`) the same restarted with durable settings."""
    dsn = dsn or os.environ.get(DSN_ENV)
    if dsn:
        yield iter([Server(dsn, None)])
        return
    with local_postgres() as started:

        def each() -> Iterator[Server]:
            yield Server(started.dsn, started.data)
            if durable_too:
                durable = dataclasses.replace(started, options=f"{started.options} {_DURABLE}")
                durable.restart()
                yield Server(started.dsn, started.data)

        yield each()


def _spread(values: list[float]) -> str:
    return (
        f"{statistics.median(values):8.0f} steps/s (range {min(values):.0f} to {max(values):.0f})"
    )


def measure(server: Server, folder: Path, options: argparse.Namespace) -> None:
    steps = options.threads * (2 * options.tools + 1)
    per_step = 1000 / steps
    print(f"PostgreSQL: {server.settings()}")
    sqlite: list[float] = []
    postgres: list[float] = []
    for number in range(options.rounds):
        order = ["sqlite", "postgres"] if number % 2 == 0 else ["postgres", "sqlite"]
        for side in order:
            if side == "sqlite":
                path = str(folder / f"{uuid.uuid4().hex[:8]}.db")  # a new file each round
                result, _, _ = run(path, "-", options.threads, options.processes, options.tools)
                sqlite.append(steps / result.seconds)
                print(
                    f"  round {number + 1} SQLite:     {steps / result.seconds:6.0f} steps/s, "
                    f"hosts {result.cpu * per_step:.3f} ms CPU/step"
                )
                continue
            schema = f"bench_{uuid.uuid4().hex[:8]}"
            result, cpu, transactions = run(
                server.dsn, schema, options.threads, options.processes, options.tools, server
            )
            served = "" if cpu is None else f", server {cpu * per_step:.3f}"
            postgres.append(steps / result.seconds)
            print(
                f"  round {number + 1} PostgreSQL: {steps / result.seconds:6.0f} steps/s, "
                f"hosts {result.cpu * per_step:.3f}{served} ms CPU/step, "
                f"{(transactions - 1) / steps:.2f} writing transactions/step"
            )
            print(f"    {result.per_step(steps)}")
    print(f"SQLite:     {_spread(sqlite)}")
    ratio = statistics.median(postgres) / statistics.median(sqlite)
    print(f"PostgreSQL: {_spread(postgres)}  ({ratio:.2f}x SQLite)")


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        target, schema, threads, tools, name = sys.argv[2:7]
        asyncio.run(child(target, schema, int(threads), int(tools), name))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--tools", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fsync", action="store_true", help="also on a durable server")
    parser.add_argument("--dsn", default=None)
    options = parser.parse_args()
    print(
        f"{options.threads} threads over {options.processes} processes, "
        f"{2 * options.tools + 1} committed steps per turn, {os.cpu_count()} cores"
    )
    with tempfile.TemporaryDirectory() as folder, servers(options.dsn, options.fsync) as each:
        for server in each:
            measure(server, Path(folder), options)


if __name__ == "__main__":
    main()
