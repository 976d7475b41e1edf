"""A host in its own process, on a SQLite file, for crash tests.

    python _host_procs.py start  DB EFFECTS [idempotent]  # create, send, hang in the tool
    python _host_procs.py start-first-call  DB EFFECTS    # ... hang in the first model call
    python _host_procs.py start-second-call DB EFFECTS    # ... hang in the call after the tool
    python _host_procs.py resume DB EFFECTS [idempotent]  # recover, report, exit

The agent's model asks for one `charge` call, then answers "paid". Each model call
appends this process's id to `<EFFECTS>.calls`; each `charge` call appends its
idempotency key to EFFECTS. `start*` prints `{"thread_id": ...}` once the thread
exists, then `{"tool": "started"}` (in the tool, after its side effect) or
`{"provider": "first call"}` / `{"provider": "second call"}` where it hangs, until it
is killed. `resume` opens a host on the same file with an agent of the same surface,
waits for the thread to settle, prints `{"status": ..., "items": [...]}` and exits 0.
Every line is one JSON object, flushed at once.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from contextlib import aclosing
from pathlib import Path

from automata.core import Agent, ModelRequest, ToolContext, tool
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import AgentRequest, Host, SQLiteStore, idempotency_key

LEASE_TTL = 1.0


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


async def hang() -> None:
    await asyncio.Event().wait()


def payment_agent(effects: Path, *, hang_in: str | None, idempotent: bool) -> Agent[None]:
    """`hang_in`: None, "tool", "first call" or "second call"."""

    async def charge(amount: int, context: ToolContext) -> str:
        with effects.open("a", encoding="utf-8") as file:
            file.write(idempotency_key(context) + "\n")
        if hang_in == "tool":
            say(tool="started")
            await hang()
        return f"charged {amount}"

    async def model(request: ModelRequest) -> Reply:
        with effects.with_suffix(".calls").open("a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")
        after_tool = request.messages[-1].role == "tool"
        call = "second call" if after_tool else "first call"
        if hang_in == call:
            say(provider=call)
            await hang()
        return "paid" if after_tool else tool_calls(tool_call("c1", "charge", amount=5))

    return Agent(
        FunctionProvider(model),
        system_prompt="You take payments.",
        tools=[tool(charge, name="charge", idempotent=idempotent)],
    )


async def start(db: Path, effects: Path, idempotent: bool, hang_in: str) -> None:
    agent = payment_agent(effects, hang_in=hang_in, idempotent=idempotent)
    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL)
    service = host.thread_service(lambda request: agent)
    thread = await service.create(request_key="create")
    say(thread_id=thread.thread_id)
    await service.send(thread.thread_id, "pay 5", request_key="send")
    await hang()


async def resume(db: Path, effects: Path, idempotent: bool) -> None:
    def factory(request: AgentRequest) -> Agent[None]:
        return payment_agent(effects, hang_in=None, idempotent=idempotent)

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
    if mode == "resume":
        asyncio.run(resume(db, effects, idempotent))
        return
    hang_in = {"start": "tool", "start-first-call": "first call"}.get(mode, "second call")
    asyncio.run(start(db, effects, idempotent, hang_in))


if __name__ == "__main__":
    main()
