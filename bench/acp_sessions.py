"""What `session/new` costs an `automata-acp` process that lives long: its memory after
N new sessions, bounded (the default `--max-sessions`) against a bound that never
drops one (the server's behaviour before sessions were bounded).

Run: uv run python bench/acp_sessions.py [--sessions 20000]

Each side is a fresh `automata-acp` subprocess serving a one-line agent, driven by the
`agent-client-protocol` SDK's client over stdio. Printed for each: the child's RSS
(`/proc/<pid>/status`) after `initialize` and after N `session/new`, their
difference, and the bounded side's growth as a share of the unbounded side's.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, Client, spawn_agent_process

from automata.acp import DEFAULT_MAX_SESSIONS

AGENT = """
from automata.core import Agent, Message
from automata.core.testing import FunctionProvider

agent = Agent(FunctionProvider(lambda request: Message.assistant("ok")), name="bench")
"""


class _Quiet:
    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        return None


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def _measure(folder: Path, sessions: int, max_sessions: int) -> tuple[float, float, float]:
    cli = str(Path(sys.executable).with_name("automata-acp"))
    spawned = spawn_agent_process(
        cast(Client, _Quiet()),
        cli,
        "bench_agent:agent",
        "--max-sessions",
        str(max_sessions),
        cwd=folder,
    )
    async with spawned as (conn, process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        before = _rss_mb(process.pid)
        started = time.perf_counter()
        for _ in range(sessions):
            await conn.new_session(cwd="/tmp")
        elapsed = time.perf_counter() - started
        after = _rss_mb(process.pid)
    return before, after, elapsed


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "bench_agent.py").write_text(AGENT, encoding="utf-8")
        rows = {
            f"bounded ({DEFAULT_MAX_SESSIONS})": await _measure(
                folder, args.sessions, DEFAULT_MAX_SESSIONS
            ),
            "never dropped": await _measure(folder, args.sessions, args.sessions + 1),
        }
    print(f"{args.sessions} session/new on one connection")
    for label, (before, after, elapsed) in rows.items():
        print(
            f"  {label:>15}: RSS {before:6.1f} MB -> {after:6.1f} MB "
            f"(+{after - before:5.1f} MB), {args.sessions / elapsed:7.0f} sessions/s"
        )
    (b_before, b_after, _), (u_before, u_after, _) = rows.values()
    growth = (b_after - b_before) / max(u_after - u_before, 0.1)
    print(f"  bounded growth / unbounded growth: {growth:.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
