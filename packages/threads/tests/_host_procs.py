"""A host in its own process, on a SQLite file, for crash tests.

    python _host_procs.py start  DB EFFECTS [idempotent]   # create, send, hang in the tool
    python _host_procs.py resume DB EFFECTS [idempotent]   # recover, report, exit

`start` prints `{"thread_id": ...}` once the thread exists and `{"tool": "started"}`
once the `charge` tool has written its side effect (a line in EFFECTS), then hangs in
the tool until it is killed. `resume` opens a host on the same file with an agent of
the same surface, waits for the thread to settle, prints `{"status": ..., "items":
[...]}` and exits 0. Every line is one JSON object, flushed at once.
"""

from __future__ import annotations

import asyncio
import json
import sys
from contextlib import aclosing
from pathlib import Path

from automata.core import Agent, ToolContext, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import AgentRequest, Host, SQLiteStore, idempotency_key

LEASE_TTL = 1.0


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def payment_agent(effects: Path, *, hang: bool, idempotent: bool) -> Agent[None]:
    async def charge(amount: int, context: ToolContext) -> str:
        with effects.open("a", encoding="utf-8") as file:
            file.write(idempotency_key(context) + "\n")
        if hang:
            say(tool="started")
            await asyncio.Event().wait()
        return f"charged {amount}"

    script = [tool_calls(tool_call("c1", "charge", amount=5))] if hang else ["paid"]
    return Agent(
        ScriptedProvider(script),
        system_prompt="You take payments.",
        tools=[tool(charge, name="charge", idempotent=idempotent)],
    )


async def start(db: Path, effects: Path, idempotent: bool) -> None:
    agent = payment_agent(effects, hang=True, idempotent=idempotent)
    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL)
    service = host.thread_service(lambda request: agent)
    thread = await service.create(request_key="create")
    say(thread_id=thread.thread_id)
    await service.send(thread.thread_id, "pay 5", request_key="send")
    await asyncio.Event().wait()


async def resume(db: Path, effects: Path, idempotent: bool) -> None:
    def factory(request: AgentRequest) -> Agent[None]:
        return payment_agent(effects, hang=False, idempotent=idempotent)

    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL, poll_interval=0.05)
    try:
        service = host.thread_service(factory)
        thread_id = (await service.list()).threads[0].thread_id
        async with asyncio.timeout(20), aclosing(service.subscribe(thread_id)) as views:
            async for view in views:
                if view.status not in ("running", "waiting"):
                    break
        say(
            status=view.status,
            items=[[item.kind, item.status, item.text or item.result] for item in view.items],
        )
    finally:
        await host.shutdown()


def main() -> None:
    mode, db, effects = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    idempotent = sys.argv[4:] == ["idempotent"]
    run = start if mode == "start" else resume
    asyncio.run(run(db, effects, idempotent))


if __name__ == "__main__":
    main()
