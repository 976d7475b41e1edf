"""A host in its own process, on a SQLite file, killed while a tool call shows live
activity: for packages/threads/tests/test_service_activity_live_processes.py.

    python _live_activity_procs.py run DB     # start the turn, print the first view
                                              # whose call shows both rows, hang
    python _live_activity_procs.py resume DB  # a fresh host: settle, print the view

The model asks for `watch()` (not idempotent), which labels itself "Watching", adds
two rows and then never returns; `resume`'s host never runs it again (recovery ends
the turn `effect_outcome_unknown`). Each line is `{"view": <ThreadView.to_dict()>}`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from contextlib import aclosing
from pathlib import Path

from automata.core import Agent, ModelRequest, ToolContext, tool
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import Host, SQLiteStore, ThreadService, ThreadView

LEASE_TTL = 1.0


def say(view: ThreadView) -> None:
    print(json.dumps({"view": view.to_dict()}), flush=True)


def agent() -> Agent[None]:
    async def watch(context: ToolContext) -> str:
        context.activity.label("Watching")
        context.activity.row("first")
        context.activity.row("second")
        await asyncio.Event().wait()
        return "never"

    async def model(request: ModelRequest) -> Reply:
        if request.messages[-1].role == "tool":
            return "done"
        return tool_calls(tool_call("c1", "watch"))

    return Agent(FunctionProvider(model), tools=[tool(watch, name="watch")])


def rows(view: ThreadView) -> int:
    calls = [item for item in view.items if item.kind == "tool_call"]
    return len(calls[0].activity.rows) if calls and calls[0].activity else 0


async def run(db: Path) -> None:
    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL, poll_interval=0.05)
    service = host.thread_service(lambda request: agent())
    thread = await service.create(request_key="create")
    async with asyncio.timeout(20), aclosing(service.subscribe(thread.thread_id)) as views:
        await service.send(thread.thread_id, "go", request_key="send")
        async for view in views:
            if rows(view) == 2:
                say(view)
                break
    await asyncio.Event().wait()


async def settled(service: ThreadService, thread_id: str) -> ThreadView:
    async with asyncio.timeout(20), aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status not in ("running", "waiting"):
                return view
    raise AssertionError("the subscription ended before the thread settled")


async def resume(db: Path) -> None:
    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL, poll_interval=0.05)
    try:
        service = host.thread_service(lambda request: agent())
        thread_id = (await service.list()).threads[0].thread_id
        say(await settled(service, thread_id))
    finally:
        await host.shutdown()


def main() -> None:
    mode, db = sys.argv[1], Path(sys.argv[2])
    asyncio.run(run(db) if mode == "run" else resume(db))


if __name__ == "__main__":
    main()
