"""What a streamed run leaves to the garbage collector, automata beside hand-written SDK
streams, in one process.

Run from the repository root:
    uv run python -m bench.gc_per_run [--runs 500] [--sessions 500] [--wire openai]

Both sides are those of `scale_sessions.py` (the real provider on the official SDK
client, against the same local server in a child process). Printed per side:

- cyclic garbage per run: objects only the collector can free (reference cycles),
  counted with `gc.DEBUG_SAVEALL` over `--runs` sequential streamed runs;
- collections per 1,000 sequential runs (the collector's own counters);
- GC-tracked objects per idle session (made, holding its transcript), per running
  session (mid-stream, its reply held open by the server) and per finished session
  (its run over, the session kept), counted with `gc.get_objects()` over `--sessions`
  sessions; what a young or full collection has to traverse grows with these;
- collections while those `--sessions` running sessions finish (their replies
  released, a few deltas each, close together), and the objects they traversed (the
  young generation's trigger counts allocations minus deallocations, so a churn that
  frees old objects while making new ones grows it far past its threshold of 700).

Benchmarks measure; they never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
from collections.abc import AsyncIterator, Callable
from typing import Any

from bench import scale_sessions as scale


class Traversed:
    """While installed in `gc.callbacks`: the objects each collection was given."""

    def __init__(self) -> None:
        self.objects = 0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations = range(info["generation"] + 1)
            self.objects += sum(len(gc.get_objects(g)) for g in generations)


def collections() -> list[int]:
    return [generation["collections"] for generation in gc.get_stats()]


async def drain(texts: AsyncIterator[str]) -> None:
    async for _ in texts:
        pass


async def measure(
    name: str,
    server: scale.Server,
    make: Callable[[int], Any],
    texts: Callable[[Any], AsyncIterator[str]],
    runs: int,
    count: int,
) -> None:
    """The figures for one side, printed."""
    server.command("pace 0.0001 3")
    for n in range(5):
        await drain(texts(make(n)))
    scale.settle()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    for n in range(runs):
        await drain(texts(make(n)))
    gc.collect()
    garbage = len(gc.garbage)
    gc.set_debug(0)
    gc.garbage.clear()
    gc.enable()

    before = collections()
    for n in range(runs):
        await drain(texts(make(n)))
    sequential = [
        (after - start) * 1000 / runs for start, after in zip(before, collections(), strict=True)
    ]

    scale.settle()
    base = len(gc.get_objects())
    sessions = [make(n) for n in range(count)]
    scale.settle()
    idle = len(gc.get_objects())
    round_, tasks = await scale.hold_all(server, scale.Side(name, make, texts), sessions)
    scale.settle()
    running = len(gc.get_objects())
    before = collections()
    traversed = Traversed()
    gc.callbacks.append(traversed)
    server.command("go")
    await asyncio.gather(*tasks)
    gc.callbacks.remove(traversed)
    released = [after - start for start, after in zip(before, collections(), strict=True)]
    del tasks, round_
    scale.settle()
    finished = len(gc.get_objects())

    def per(objects: int) -> str:
        return f"{(objects - base) / count:6.1f}"

    print(f"{name}:")
    print(f"  cyclic garbage per run        {garbage / runs:6.1f} objects ({runs} runs)")
    print(f"  collections per 1,000 runs    {' / '.join(f'{c:.1f}' for c in sequential)}")
    print(
        f"  tracked objects per session   idle {per(idle)}   running {per(running)}   "
        f"finished {per(finished)}   ({count} sessions)"
    )
    print(
        f"  collections while they finish {' / '.join(str(c) for c in released)} "
        f"(young / middle / full), {traversed.objects:,} objects traversed"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--wire", choices=("openai", "anthropic"), default="openai")
    options = parser.parse_args()
    server = scale.Server()
    made, clients = scale.agents(options.wire, server.url, 1, options.sessions + 10)
    agent, client = made[0], clients[0]
    try:
        await measure(
            "automata",
            server,
            lambda n: agent.session(messages=scale.transcript(n)),
            scale.automata_texts,
            options.runs,
            options.sessions,
        )
        await measure(
            "hand-written SDK streams",
            server,
            lambda n: scale.SDKSession(client, options.wire, n),
            scale.SDKSession.texts,
            options.runs,
            options.sessions,
        )
    finally:
        await client.close()
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
