"""Committed steps per second of durable threads on PostgreSQL, beside SQLite, with the
threads spread over several host processes.

Run: uv run python bench/threads_postgres.py [--threads 100] [--processes 4] [--tools 5]
     [--dsn postgresql://...]

Each thread runs one turn of a scripted conversation: N model steps that each call a
tool, then the answer, so a turn commits 2N+1 steps (as in `threads_steps.py`). The
threads are split evenly over P processes, each a host of its own on the same store:
one SQLite file (WAL mode) on this machine, then one PostgreSQL schema (a throwaway
server started for the run unless `--dsn` or `AUTOMATA_TEST_PG_DSN` names one). Every
process creates its threads, waits until all processes are ready, sends one message
to each thread and waits until all its turns are done; the figure is the committed
steps of all threads over the slowest process's wall time. Benchmarks measure; they
never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import aclosing
from pathlib import Path

from automata_pg_testing import throwaway_postgres

from automata.core import Agent, Message, tool
from automata.core.testing import Reply, ScriptedProvider, tool_call, tool_calls
from automata.postgres import PostgresStore
from automata.threads import AgentRequest, Host, SQLiteStore, ThreadService
from automata.threads.store import ThreadStore


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
    each, report the seconds it took."""

    def factory(request: AgentRequest) -> Agent[None]:
        return Agent(ScriptedProvider(script(tools)), system_prompt="bench", tools=[LOOKUP])

    host = await Host.open(open_store(target, schema))
    try:
        service = host.thread_service(factory)
        made = [await service.create(request_key=f"{name}-c{n}") for n in range(threads)]
        print(json.dumps({"ready": True}), flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        started = time.perf_counter()
        for n, thread in enumerate(made):
            await service.send(thread.thread_id, "go", request_key=f"{name}-s{n}")
        await asyncio.gather(*(settle(service, thread.thread_id) for thread in made))
        print(json.dumps({"seconds": time.perf_counter() - started}), flush=True)
    finally:
        await host.shutdown()


def run(target: str, schema: str, threads: int, processes: int, tools: int) -> float:
    """Seconds the slowest of `processes` hosts took to run its share of `threads`."""
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
        for process in children:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        seconds = []
        for process in children:
            assert process.stdout is not None
            seconds.append(float(json.loads(process.stdout.readline())["seconds"]))
            process.wait(timeout=60)
        return max(seconds)
    finally:
        for process in children:
            if process.poll() is None:
                process.kill()


@contextlib.contextmanager
def postgres(dsn: str | None) -> Iterator[str]:
    if dsn:
        yield dsn
        return
    with throwaway_postgres() as started:
        yield started


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        target, schema, threads, tools, name = sys.argv[2:7]
        asyncio.run(child(target, schema, int(threads), int(tools), name))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--tools", type=int, default=5)
    parser.add_argument("--dsn", default=None)
    options = parser.parse_args()
    steps = options.threads * (2 * options.tools + 1)
    print(
        f"{options.threads} threads over {options.processes} processes, "
        f"{2 * options.tools + 1} committed steps per turn"
    )
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "bench.db")
        seconds = run(path, "-", options.threads, options.processes, options.tools)
        print(f"SQLite:     {steps / seconds:8.0f} steps/s ({seconds:.2f} s)")
    with postgres(options.dsn) as dsn:
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        seconds = run(dsn, schema, options.threads, options.processes, options.tools)
        print(f"PostgreSQL: {steps / seconds:8.0f} steps/s ({seconds:.2f} s)")


if __name__ == "__main__":
    main()
