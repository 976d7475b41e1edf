"""The path a task takes to the wire: automata's files a run crosses before its first
HTTP send, and how often that path moves between the core and the vendor package.

Run: uv run python bench/provider_path.py [WIRE ...] [--files]

For each wire (`anthropic`, `openai` for Chat Completions, `openai-responses`; all
three by default), streaming and not, an agent with one tool (the agent of
`bench/provider_overhead.py`, against its local server) runs once to warm up, then
once more under a trace of every Python call from `agent.run(task)` (or
`agent.stream(task)`) to the first call of the HTTP client's `send`. It prints the
number of automata source files entered on the way (each counted once, in the order
first entered) and the number of moves between `automata.core` and the vendor
package (a call into a function of the other side; returns are not moves). With
`--files` it lists the files. A count, not a timing: the same on any machine.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.provider_overhead import agent_run, local_server, make_agent

WIRES = ("anthropic", "openai", "openai-responses")
_PACKAGE_MARK = "/automata/"


@dataclass(frozen=True, slots=True)
class WirePath:
    """The automata files a run entered before its first HTTP send, in order, and its
    moves between the core and the vendor package."""

    files: tuple[str, ...]
    moves: int


class _Tracer:
    """Follows calls until the HTTP client's `send`: which automata files are entered
    and how often the side (core or vendor) changes."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self.moves = 0
        self._seen: set[str] = set()
        self._side: str | None = None
        self.done = False

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.done or event != "call":
            return
        filename = frame.f_code.co_filename
        if "httpx" in filename and frame.f_code.co_name == "send":
            self.done = True
            return
        if _PACKAGE_MARK not in filename:
            return
        short = filename.split(_PACKAGE_MARK, 1)[1]
        side = "core" if short.startswith("core/") else "vendor"
        if self._side is not None and side != self._side:
            self.moves += 1
        self._side = side
        if short not in self._seen:
            self._seen.add(short)
            self.files.append(short)


async def trace_run(wire: str, stream: bool) -> WirePath:
    """The path of one warm run of the bench agent on `wire` (streamed or not)."""
    with local_server() as base_url:
        agent, provider = make_agent(wire, base_url)
        try:
            await agent_run(agent, stream)  # warm: imports, connections, caches
            tracer = _Tracer()
            sys.settrace(tracer)
            try:
                await agent_run(agent, stream)
            finally:
                sys.settrace(None)
        finally:
            await provider.aclose()
    return WirePath(tuple(tracer.files), tracer.moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wires", nargs="*", metavar="WIRE", help=f"one of {', '.join(WIRES)}")
    parser.add_argument("--files", action="store_true", help="list the files crossed")
    args = parser.parse_args()
    unknown = [wire for wire in args.wires if wire not in WIRES]
    if unknown:
        parser.error(f"unknown wire {unknown[0]!r}: choose from {', '.join(WIRES)}")
    print(f"{'case':<28}{'files':>7}{'core<->vendor moves':>22}")
    for wire in args.wires or WIRES:
        for stream in (False, True):
            path = asyncio.run(trace_run(wire, stream))
            case = f"{wire} {'stream' if stream else 'complete'}"
            print(f"{case:<28}{len(path.files):>7}{path.moves:>22}")
            if args.files:
                for name in path.files:
                    print(f"    {name}")


if __name__ == "__main__":
    main()
