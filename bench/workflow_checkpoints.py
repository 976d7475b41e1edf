"""Checkpoint overhead of typed workflows, and a 1,000-node fan-out/join.

Run: uv run python bench/workflow_checkpoints.py [--chain 200] [--fan 1000] [--rounds 5]

Overhead: a chain of N nodes (each adds one to an int; then the same with a 1 ms
`asyncio.sleep` in each node, a stand-in for real work) run as a workflow, every
activation checkpointed (a start and an end record, each a fenced append), on the
in-memory store and on SQLite (a fresh file per round, WAL mode), against the same
node functions awaited one after another in the same process with nothing persisted.
The sides take turns within each round. Printed: microseconds per activation, the
ratio of wall times, and the microseconds each activation adds over the direct call of
the same round (medians of the rounds, with their range). Fan-out/join: one node fans
out to F branches, a list join gathers them; the time of the whole run and activations
per second (F + 2 activations). Beside the trivial chain, each store's bare appends: N
fenced appends of what one step of a chain appends (an end and the next start), with
no workflow around them, the floor an activation on that store cannot go below.
Benchmarks measure; they never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from automata.threads import MemoryStore, SQLiteStore
from automata.threads.store import NewRecord, ThreadStore
from automata.workflow import CompiledWorkflow, Node, Workflow

NodeFn = Callable[[int], Awaitable[int]]


def adder(work: float) -> NodeFn:
    async def add(number: int) -> int:
        if work:
            await asyncio.sleep(work)
        return number + 1

    return add


def chain(length: int, work: float, store: ThreadStore) -> CompiledWorkflow[int, int]:
    wf = Workflow[int, int]("chain")
    nodes = [wf.node(adder(work), name=f"n{index}") for index in range(length)]
    for first, second in itertools.pairwise(nodes):
        wf.edge(first, second)
    wf.entry(nodes[0])
    wf.exit(nodes[-1])
    return wf.compile(store)


def fan(width: int, store: ThreadStore) -> CompiledWorkflow[int, int]:
    wf = Workflow[int, int]("fan")
    start = wf.node(adder(0), name="start")
    branches: list[Node[int, int]] = [wf.node(adder(0), name=f"b{i}") for i in range(width)]

    @wf.join_all(branches)
    async def total(parts: list[int]) -> int:
        return sum(parts)

    wf.entry(start)
    wf.fan_out(start, branches)
    wf.exit(total)
    return wf.compile(store, max_concurrency=64)


async def direct(length: int, work: float) -> float:
    functions = [adder(work) for _ in range(length)]
    started = time.perf_counter()
    value = 0
    for function in functions:
        value = await function(value)
    return time.perf_counter() - started


async def timed(flow: CompiledWorkflow[int, int], run_id: str) -> tuple[float, float]:
    """The run's wall time and this process's CPU time over it (the SQLite store's
    worker thread included), in seconds."""
    started, cpu = time.perf_counter(), time.process_time()
    await flow.invoke(0, run_id=run_id)
    return time.perf_counter() - started, time.process_time() - cpu


async def on_store(kind: str, folder: Path, run: int) -> ThreadStore:
    store: ThreadStore = MemoryStore() if kind == "memory" else SQLiteStore(folder / f"{run}.db")
    await store.open()
    return store


def spread(values: list[float], scale: float) -> str:
    """The median of `values` times `scale`, with their range."""
    return (
        f"{statistics.median(values) * scale:8.1f}"
        f" [{min(values) * scale:.1f}-{max(values) * scale:.1f}]"
    )


STEP = [
    NewRecord(
        "activation_finished",
        '{"attempt":1,"deliveries":[],"id":"activation-0123456789abcdef","node":"n1",'
        '"output":2,"routes":["n2"],"scheduled":[{"id":"activation-fedcba9876543210",'
        '"node":"n2","source":{"from":"activation-0123456789abcdef"}}],"v":1}',
    ),
    NewRecord(
        "activation_started",
        '{"attempt":1,"id":"activation-fedcba9876543210","node":"n2","v":1}',
    ),
]
"""What one step of a chain appends: an end and the next start, in one append."""


async def bare_appends(store: ThreadStore, count: int) -> float:
    """`count` fenced appends of `STEP` to a thread of `store`, one after another: what
    a chain's activations cost the store alone, with no workflow around it."""
    await store.create_thread("bare", [])
    lease = await store.claim("bare", "bench", 60)
    assert lease is not None
    started = time.perf_counter()
    for _ in range(count):
        await store.append("bare", STEP, fence=lease)
    return time.perf_counter() - started


async def overhead(length: int, work: float, rounds: int, folder: Path) -> None:
    """The sides in turn within each round (direct, memory, SQLite), so load that
    comes and goes falls on all of them. Without work, each store's bare appends too."""
    walls: dict[str, list[float]] = {"direct": [], "memory": [], "sqlite": []}
    added: dict[str, list[float]] = {"memory": [], "sqlite": []}
    appends: dict[str, list[float]] = {"memory": [], "sqlite": []}
    cpus: dict[str, list[float]] = {"memory": [], "sqlite": []}
    for run in range(rounds):
        base = await direct(length, work)
        walls["direct"].append(base)
        for kind in ("memory", "sqlite"):
            store = await on_store(kind, folder, run + int(work * 1e6))
            took, cpu = await timed(chain(length, work, store), f"chain-{run}")
            cpus[kind].append(cpu)
            if not work:
                appends[kind].append(await bare_appends(store, length))
            await store.close()
            walls[kind].append(took)
            added[kind].append(took - base)
    base = statistics.median(walls["direct"])
    print(f"chain of {length} nodes, {work * 1000:g} ms of work each (median [range] of {rounds}):")
    print(f"  direct calls     {spread(walls['direct'], 1e6 / length)} us/activation")
    for kind in ("memory", "sqlite"):
        took = statistics.median(walls[kind])
        print(
            f"  workflow {kind:7} {spread(walls[kind], 1e6 / length)} us/activation"
            f"  ({took / base:.2f}x direct), over direct {spread(added[kind], 1e6 / length)} us"
        )
    for kind in ("memory", "sqlite") if not work else ():
        print(f"  CPU, workflow {kind:7} {spread(cpus[kind], 1e6 / length)} us/activation")
    for kind in ("memory", "sqlite") if not work else ():
        print(f"  bare append {kind:7} {spread(appends[kind], 1e6 / length)} us (the store alone)")


async def fan_out(width: int, rounds: int, folder: Path) -> None:
    print(f"fan-out of {width} nodes and a join ({width + 2} activations):")
    for kind in ("memory", "sqlite"):
        times = []
        for run in range(rounds):
            store = await on_store(kind, folder, 10_000 + run)
            times.append((await timed(fan(width, store), f"fan-{run}"))[0])
            await store.close()
        took = statistics.median(times)
        print(f"  {kind:7} {took:7.3f} s  {(width + 2) / took:9.0f} activations/s")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chain", type=int, default=200)
    parser.add_argument("--fan", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for work in (0.0, 0.001):
            await overhead(args.chain, work, args.rounds, Path(folder))
        await fan_out(args.fan, args.rounds, Path(folder))


if __name__ == "__main__":
    asyncio.run(main())
