"""A host in its own process, on a PostgreSQL schema, for the multi-host crash tests.

    python _pg_host_procs.py MODE DSN SCHEMA EFFECTS [idempotent]

- `tool`: create a thread, send "pay 5"; the model calls `charge`, which writes its side
  effect (a line in EFFECTS), prints {"tool": "started"} and hangs until killed.
- `model`: create a thread, send "pay 5"; the model call prints {"model": "started"}
  and hangs until killed.
- `slow`: like `tool`, but `charge` returns one second after it started; then the
  host waits two more seconds and prints {"status": ..., "items": [...]}, the thread's
  view as the store has it, and exits.
- `resume`: open a host with an agent of the same surface (the model calls `charge`,
  then answers "paid"), wait until the thread settles, print {"status": ..., "items":
  [...]} and exit.

The first two print {"thread_id": ...} once the thread exists. Every line is one JSON
object, flushed at once. Leases last `LEASE_TTL` seconds.
"""

from __future__ import annotations

import asyncio
import json
import sys
from contextlib import aclosing
from pathlib import Path

from automata.core import Agent, ModelRequest, ToolContext, tool
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.postgres import PostgresStore
from automata.threads import AgentRequest, Host, ThreadService, ThreadView, idempotency_key

LEASE_TTL = 1.0


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def report(view: ThreadView) -> None:
    say(
        status=view.status,
        items=[[item.kind, item.status, item.text or item.result] for item in view.items],
    )


def payment_agent(effects: Path, mode: str, idempotent: bool) -> Agent[None]:
    async def charge(amount: int, context: ToolContext) -> str:
        with effects.open("a", encoding="utf-8") as file:
            file.write(idempotency_key(context) + "\n")
        if mode in ("tool", "slow"):
            say(tool="started")
        if mode == "tool":
            await asyncio.Event().wait()
        if mode == "slow":
            await asyncio.sleep(1.0)
        return f"charged {amount}"

    async def model(request: ModelRequest) -> Reply:
        if mode == "model":
            say(model="started")
            await asyncio.Event().wait()
        answered = any(
            block.type == "tool_result" for message in request.messages for block in message.content
        )
        return "paid" if answered else tool_calls(tool_call("c1", "charge", amount=5))

    return Agent(
        FunctionProvider(model),
        system_prompt="You take payments.",
        tools=[tool(charge, name="charge", idempotent=idempotent)],
    )


async def settled(service: ThreadService, thread_id: str) -> ThreadView:
    async with asyncio.timeout(20), aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status not in ("running", "waiting"):
                return view
    raise AssertionError("the subscription ended before the thread settled")


async def main(mode: str, dsn: str, schema: str, effects: Path, idempotent: bool) -> None:
    def factory(request: AgentRequest) -> Agent[None]:
        return payment_agent(effects, mode, idempotent)

    store = PostgresStore(dsn, schema=schema, max_size=4)
    host = await Host.open(store, lease_ttl=LEASE_TTL, poll_interval=0.05)
    try:
        service = host.thread_service(factory)
        if mode == "resume":
            thread_id = (await service.list()).threads[0].thread_id
            report(await settled(service, thread_id))
            return
        thread = await service.create(request_key="create")
        say(thread_id=thread.thread_id)
        await service.send(thread.thread_id, "pay 5", request_key="send")
        if mode == "slow":
            await asyncio.sleep(3.0)
            report(await service.view(thread.thread_id))
            return
        await asyncio.Event().wait()
    finally:
        await host.shutdown()


if __name__ == "__main__":
    asyncio.run(
        main(
            sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4]), sys.argv[5:] == ["idempotent"]
        )
    )
