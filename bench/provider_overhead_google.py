"""Client CPU per agent run on Gemini: automata's Agent + GoogleProvider vs a
hand-written loop on the `google-genai` SDK (the sibling of `provider_overhead.py`,
measured the same way; its `--opcodes` table has the same case).

Run: uv run python bench/provider_overhead_google.py [--runs N] [--rounds R]

One run = one function call, then a final answer (two model calls and one tool call),
against a local Gemini server in a child process, so `time.process_time()` here counts
client CPU only. The case (server routes, the hand-written loop on the SDK, the agent)
is `bench/_gemini_sides.py`. Runs alternate one by one (ABBA); the median ratio
(agent / hand-written) over the rounds is the figure to quote.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from automata_wire_testing import WireServer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._gemini_sides import ANSWER, add_routes, open_sides
from bench.provider_overhead import Timing, interleaved


def serve() -> None:
    """Child process: answer on 127.0.0.1, print the port, serve until terminated."""
    server = WireServer(record=False, pace=False)
    add_routes(server)
    server.start()
    print(server.port, flush=True)
    threading.Event().wait()


async def measure(base_url: str, stream: bool, runs: int, rounds: int) -> Timing:
    by_hand, by_agent, aclose = open_sides(stream, base_url)
    assert await by_hand() == ANSWER
    assert await by_agent() == ANSWER
    for _ in range(max(runs // 2, 5)):  # warm-up
        await by_hand()
        await by_agent()
    try:
        return await interleaved(by_hand, by_agent, runs, rounds)
    finally:
        await aclose()


@contextmanager
def local_server() -> Iterator[str]:
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        yield f"http://127.0.0.1:{child.stdout.readline().strip()}"
    finally:
        child.terminate()
        child.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    print(f"{'case':<22}{'hand-written':>14}{'agent':>12}{'ratio':>9}   range")
    with local_server() as base_url:
        for stream in (False, True):
            timing = asyncio.run(measure(base_url, stream, args.runs, args.rounds))
            print(timing.row("google-stream" if stream else "google-complete"))


if __name__ == "__main__":
    main()
