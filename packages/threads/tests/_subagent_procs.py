"""A host in its own process, on a SQLite file, killed in the middle of a sub-agent
management call: for packages/threads/tests/test_service_activity_subagent_processes.py.

    python _subagent_procs.py stop DB    # SIGKILL itself right after the write that
                                         # commits the child's cancel (the stop call's
                                         # result not journaled yet)
    python _subagent_procs.py wait DB    # SIGKILL itself right after the wait call is
                                         # dispatched, while its child still runs
    python _subagent_procs.py resume DB  # a fresh host: settle the parent, print it

The parent starts one `slow` child (whose tool never returns, and is not idempotent).
In `stop`, once the child runs, the process sends the child a second input (queued
behind its running turn) and then the parent's model stops the child; in `wait`, the
parent's model waits on the child (which recovery later ends
`effect_outcome_unknown`, its tool not being idempotent). `resume` prints `{"view": <the parent's
ThreadView.to_dict()>, "child": <the child's>, "ended": [each child turn_ended
record's status]}` once the parent settled.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from contextlib import aclosing
from pathlib import Path

from automata.core import Agent, ModelRequest, TextBlock, Tool, ToolResultBlock, tool
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import (
    AgentFactory,
    AgentRequest,
    Host,
    SQLiteStore,
    ThreadService,
    ThreadView,
    start_child_tool,
    stop_children_tool,
    wait_children_tool,
)
from automata.threads.testing import StoreWrite, WriteTap

LEASE_TTL = 1.0


def results(request: ModelRequest) -> list[str]:
    return [
        "".join(part.text for part in block.content if isinstance(part, TextBlock))
        for message in request.messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


async def never() -> str:
    """Never returns."""
    await asyncio.Event().wait()
    return "never"


def factory(mode: str, queued: asyncio.Event, found: list[Tool]) -> AgentFactory:
    async def child_model(request: ModelRequest) -> Reply:
        if request.messages[-1].role == "user":
            return tool_calls(tool_call("n1", "never"))
        return "child ended"

    async def parent_model(request: ModelRequest) -> Reply:
        seen = results(request)
        if not seen:
            return tool_calls(tool_call("s1", "slow", task="C"))
        if len(seen) == 1:
            await queued.wait()  # the child's call runs
            if mode == "stop":
                return tool_calls(tool_call("x1", "stop_children", thread_ids=seen))
            return tool_calls(tool_call("w1", "wait_children", thread_ids=seen))
        return "parent done"

    def make(request: AgentRequest) -> Agent[None]:
        if request.agent == "slow":
            return Agent(FunctionProvider(child_model), tools=[tool(never, name="never")])
        return Agent(FunctionProvider(parent_model), tools=found)

    return make


def tools(service: ThreadService) -> list[Tool]:
    return [
        start_child_tool(service, "slow", "Work slowly."),
        wait_children_tool(service),
        stop_children_tool(service),
    ]


async def crash(db: Path, mode: str) -> None:
    parent: list[str] = []

    async def tapped(write: StoreWrite) -> None:
        if not parent:
            return
        if mode == "stop" and write.thread_id != parent[0] and "turn_ended" in write.kinds:
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "wait" and write.thread_id == parent[0] and "dispatched" in write.kinds:
            dispatched.append(write)
            if len(dispatched) == 2:  # the wait call's
                os.kill(os.getpid(), signal.SIGKILL)

    dispatched: list[StoreWrite] = []
    queued = asyncio.Event()
    found: list[Tool] = []
    host = await Host.open(
        WriteTap(SQLiteStore(db), tapped), lease_ttl=LEASE_TTL, poll_interval=0.05
    )
    service = host.thread_service(factory(mode, queued, found))
    found += tools(service)
    thread = await service.create(request_key="create")
    parent.append(thread.thread_id)
    await service.send(thread.thread_id, "go", request_key="send")
    async with asyncio.timeout(20):
        while True:
            children = (await service.list(parent_id=thread.thread_id)).threads
            if children:
                child = await service.view(children[0].thread_id)
                if any(item.status == "running" for item in child.items):
                    break
            await asyncio.sleep(0.02)
    if mode == "stop":
        await service.send(child.thread_id, "again", request_key="again")
    queued.set()
    await asyncio.sleep(20)
    raise AssertionError("the process was not killed")


async def settled(service: ThreadService, thread_id: str) -> ThreadView:
    async with asyncio.timeout(20), aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status not in ("running", "waiting"):
                return view
    raise AssertionError("the subscription ended before the thread settled")


async def resume(db: Path) -> None:
    store = SQLiteStore(db)
    host = await Host.open(store, lease_ttl=LEASE_TTL, poll_interval=0.05)
    found: list[Tool] = []
    try:
        service = host.thread_service(factory("resume", asyncio.Event(), found))
        found += tools(service)
        roots = (await service.list()).threads
        (parent,) = [row for row in roots if row.parent_id is None]
        view = await settled(service, parent.thread_id)
        (child,) = (await service.list(parent_id=parent.thread_id)).threads
        ended = [
            json.loads(record.data)["status"]
            for record in await store.read(child.thread_id)
            if record.kind == "turn_ended"
        ]
        child_view = await service.view(child.thread_id)
        print(
            json.dumps({"view": view.to_dict(), "child": child_view.to_dict(), "ended": ended}),
            flush=True,
        )
    finally:
        await host.shutdown()


def main() -> None:
    mode, db = sys.argv[1], Path(sys.argv[2])
    asyncio.run(resume(db) if mode == "resume" else crash(db, mode))


if __name__ == "__main__":
    main()
