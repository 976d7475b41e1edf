"""A workflow runner in its own process, on a SQLite file, for crash tests.

    python _procs.py start DB EFFECTS mid-node  # hang inside `charge`
    python _procs.py start DB EFFECTS between   # hang before `report` starts
    python _procs.py resume DB EFFECTS          # resume the run, print its output, exit

The workflow: `fetch`, then `charge` and `audit` at once, then the join `report`. Every
node call appends `<node> <idempotency key> <attempt> <pid>` to EFFECTS before it does
anything else (its side effect). Every line printed is one JSON object, flushed at
once: `{"finished": node}` when an activation's end is committed, and `{"hang": where}`
where `start` hangs until it is killed. `resume` waits for the dead runner's lease to
expire, then prints `{"output": ...}`.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from automata.threads import SQLiteStore
from automata.workflow import (
    ActivationInfo,
    CompiledWorkflow,
    NodeContext,
    RunBusyError,
    RunEvent,
    StopReason,
    Workflow,
)

LEASE_TTL = 1.0
RUN_ID = "order-1"


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


async def hang() -> None:
    await asyncio.Event().wait()


def order_flow(
    store: SQLiteStore, effects: Path, hang_at: str | None
) -> CompiledWorkflow[int, str]:
    wf = Workflow[int, str]("order")

    def effect(context: NodeContext) -> None:
        with effects.open("a", encoding="utf-8") as file:
            file.write(
                f"{context.node} {context.idempotency_key} {context.attempt} {os.getpid()}\n"
            )

    @wf.node
    async def fetch(order: int, context: NodeContext) -> int:
        effect(context)
        return order * 100

    @wf.node
    async def charge(cents: int, context: NodeContext) -> str:
        effect(context)
        if hang_at == "mid-node":
            say(hang="charge")
            await hang()
        return f"charged {cents}"

    @wf.node
    async def audit(cents: int, context: NodeContext) -> bool:
        effect(context)
        return cents < 1000

    @wf.join(charge, audit)
    async def report(parts: tuple[str, bool], context: NodeContext) -> str:
        effect(context)
        return f"{parts[0]}, audit {'ok' if parts[1] else 'flagged'}"

    async def pause(info: ActivationInfo) -> StopReason | None:
        if hang_at == "between" and info.node == "report":
            say(hang="before report")
            await hang()
        return None

    async def finished(event: RunEvent) -> None:
        if event.kind == "activation_finished":
            say(finished=event.node)

    wf.entry(fetch)
    wf.fan_out(fetch, [charge, audit])
    wf.exit(report)
    return wf.compile(store, guards=[pause], sinks=[finished], lease_ttl=LEASE_TTL)


async def start(db: Path, effects: Path, hang_at: str) -> None:
    store = SQLiteStore(db)
    await store.open()
    await order_flow(store, effects, hang_at).invoke(5, run_id=RUN_ID)


async def resume(db: Path, effects: Path) -> None:
    store = SQLiteStore(db)
    await store.open()
    flow = order_flow(store, effects, None)
    deadline = time.monotonic() + 20
    try:
        while True:
            try:
                output = await flow.resume(RUN_ID)
                break
            except RunBusyError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        say(output=output)
    finally:
        await store.close()


def main() -> None:
    mode, db, effects = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    if mode == "resume":
        asyncio.run(resume(db, effects))
    else:
        asyncio.run(start(db, effects, sys.argv[4]))


if __name__ == "__main__":
    main()
