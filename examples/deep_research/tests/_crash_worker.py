"""The research workflow in its own process, on a SQLite file, for the crash test.

    python _crash_worker.py start DB SEARCHES   # run; hang before `write` starts
    python _crash_worker.py resume DB SEARCHES  # resume the run, print its report, exit

Every search the researchers make appends `<query>\t<idempotency key>\t<pid>` to
SEARCHES (the side effect counted). Every line printed is one JSON object, flushed at
once: `{"finished": node}` when an activation's end is committed, `{"hang": "write"}`
where `start` waits to be killed, and `{"report": text}` when `resume` is done.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from deep_research.demo import DemoSearcher, demo_providers
from deep_research.workflow import Report, research_workflow

from automata.threads import SQLiteStore
from automata.tools import SearchResult
from automata.workflow import (
    ActivationInfo,
    CompiledWorkflow,
    RunBusyError,
    RunEvent,
    StopReason,
    current_activation,
)

RUN_ID = "crash-1"
TOPIC = "bees"
LEASE_TTL = 1.0


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


class CountingSearcher:
    """`DemoSearcher`, writing every search to a file first."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._inner = DemoSearcher()

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        activation = current_activation()
        key = activation.idempotency_key if activation is not None else "-"
        with self._path.open("a", encoding="utf-8") as file:
            file.write(f"{query}\t{key}\t{os.getpid()}\n")
        return await self._inner.search(query, max_results=max_results)


def flow(store: SQLiteStore, searches: Path, hang: bool) -> CompiledWorkflow[str, Report]:
    async def pause(info: ActivationInfo) -> StopReason | None:
        if hang and info.node == "write":
            say(hang="write")
            await asyncio.Event().wait()
        return None

    async def finished(event: RunEvent) -> None:
        if event.kind == "activation_finished":
            say(finished=event.node)

    return research_workflow(
        demo_providers(),
        CountingSearcher(searches),
        store,
        guards=[pause],
        sinks=[finished],
        lease_ttl=LEASE_TTL,
    )


async def start(db: Path, searches: Path) -> None:
    store = SQLiteStore(db)
    await store.open()
    await flow(store, searches, hang=True).invoke(TOPIC, run_id=RUN_ID)


async def resume(db: Path, searches: Path) -> None:
    store = SQLiteStore(db)
    await store.open()
    try:
        resuming = flow(store, searches, hang=False)
        deadline = time.monotonic() + 20
        while True:
            try:
                report = await resuming.resume(RUN_ID)
                break
            except RunBusyError:  # the killed runner's lease has not expired yet
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        say(report=report.report)
    finally:
        await store.close()


def main() -> None:
    mode, db, searches = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    asyncio.run(start(db, searches) if mode == "start" else resume(db, searches))


if __name__ == "__main__":
    main()
