"""What a tool call's activity costs a durable thread: store writes and wall time.

Run: uv run python bench/thread_activity.py [--rows 0 10 200] [--rounds 7]

One turn on a SQLite file (a fresh file per run, WAL mode): the model calls `show`,
which adds `rows` activity rows (a label first, a status last, so rows + 2 changes),
then answers. Counted with `WriteTap`: the store writes the turn made and the records
they appended, next to the turn whose tool shows nothing (rows 0 and no label): a
live activity is kept in the host's memory and journaled once per call, with the
batch's results (docs/threads.md, AC3, AC7), so the writes are the same whatever the
rows and one `activity` record is added. Then the median wall time of the turn, as a
ratio of the turn that shows nothing (sides alternated round by round; range in
brackets). Benchmarks measure; they never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from contextlib import aclosing
from pathlib import Path

from automata.core import Agent, ToolContext, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import Host, SQLiteStore, ThreadService
from automata.threads.testing import StoreWrite, WriteTap


def agent(rows: int | None) -> Agent[None]:
    """The turn's agent: `show` adds `rows` rows (None: shows nothing at all)."""

    async def show(context: ToolContext) -> str:
        """Show some rows."""
        if rows is not None:
            context.activity.label("Working")
            for n in range(rows):
                context.activity.row(f"row {n}")
            context.activity.status("done")
        return "ok"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "show")), "done"])
    return Agent(provider, tools=[tool(show, name="show")])


async def settle(service: ThreadService, thread_id: str) -> None:
    async with aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status != "running":
                return


async def one_turn(folder: Path, rows: int | None) -> tuple[float, int, int]:
    """Wall time of one turn, and the writes and records it made."""
    writes: list[StoreWrite] = []

    async def tapped(write: StoreWrite) -> None:
        writes.append(write)

    store = WriteTap(SQLiteStore(folder / f"t{time.monotonic_ns()}.db"), tapped)
    host = await Host.open(store)
    try:
        service = host.thread_service(lambda request: agent(rows))
        thread = await service.create(request_key="c")
        start = time.perf_counter()
        await service.send(thread.thread_id, "go", request_key="s")
        await settle(service, thread.thread_id)
        took = time.perf_counter() - start
    finally:
        await host.shutdown()
    appends = [w for w in writes if w.call == "append"]
    return took, len(appends), sum(len(w.kinds) for w in appends)


async def main(sizes: list[int], rounds: int) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        sides: list[int | None] = [None, *sizes]
        times: dict[int | None, list[float]] = {side: [] for side in sides}
        counts: dict[int | None, tuple[int, int]] = {}
        await one_turn(folder, None)  # warm up
        for round_number in range(rounds):
            order = sides if round_number % 2 == 0 else list(reversed(sides))
            for side in order:
                took, appends, records = await one_turn(folder, side)
                times[side].append(took)
                counts[side] = (appends, records)
        base = statistics.median(times[None])
        print(f"{'rows':>8} {'appends':>8} {'records':>8} {'time':>8}  range")
        for side in sides:
            median = statistics.median(times[side])
            low, high = min(times[side]) / base, max(times[side]) / base
            name = "none" if side is None else str(side)
            appends, records = counts[side]
            print(
                f"{name:>8} {appends:>8} {records:>8} {median / base:>7.2f}x"
                f"  [{low:.2f}-{high:.2f}]"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[0, 10, 200])
    parser.add_argument("--rounds", type=int, default=7)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.rows, arguments.rounds))
