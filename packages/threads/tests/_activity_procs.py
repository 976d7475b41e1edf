"""A host in its own process, on a SQLite file, whose tool shows activity: for the
crash tests of packages/threads/tests/test_service_activity_processes.py.

    python _activity_procs.py run DB      # run the turn, print the view, hang
    python _activity_procs.py crash DB    # SIGKILL itself right after the write that
                                          # journals the activity (before it is answered)
    python _activity_procs.py resume DB   # a fresh host: settle the thread, print the view

The agent's model asks for `fetch(url="a.test")` and a `read_lines` call whose
arguments fail its schema, then answers "done"; `fetch` labels itself, adds two rows
and a status. The send carries the labels `{"tenant": "acme"}` and the host map
`{"token": HOST_TOKEN}`, which `fetch` checks it was given (and which must never
reach the file). `run` and `resume` print `{"view": <ThreadView.to_dict()>}` once the
thread settled (`run` then waits to be killed). Every line is one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from contextlib import aclosing
from pathlib import Path

from automata.core import Agent, ModelRequest, ToolContext, tool
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import Host, SQLiteStore, ThreadService, ThreadView
from automata.threads.store import ThreadStore
from automata.threads.testing import StoreWrite, WriteTap

LEASE_TTL = 1.0
HOST_TOKEN = "host-token-7f3a9c"


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def agent() -> Agent[None]:
    async def fetch(url: str, context: ToolContext) -> str:
        if context.host.get("token") not in (HOST_TOKEN, None):
            raise AssertionError("the tool was given another host map")
        context.activity.label(f"Fetching {url}")
        context.activity.row("connected")
        context.activity.row("print('hi')", kind="code", language="python")
        context.activity.status("200")
        return "page"

    def read_lines(path: str, count: int) -> str:
        raise AssertionError("a call that failed its schema ran")

    async def model(request: ModelRequest) -> Reply:
        if request.messages[-1].role == "tool":
            return "done"
        return tool_calls(
            tool_call("c1", "fetch", url="a.test"),
            tool_call("c2", "read_lines", path="b.txt", count="many"),
        )

    return Agent(
        FunctionProvider(model),
        tools=[
            tool(fetch, name="fetch"),
            tool(read_lines, name="read_lines", invalid_label=lambda a: f"Reading {a['path']}"),
        ],
    )


async def settled(service: ThreadService, thread_id: str) -> ThreadView:
    async with asyncio.timeout(20), aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status not in ("running", "waiting"):
                return view
    raise AssertionError("the subscription ended before the thread settled")


async def run(store: ThreadStore, *, hang: bool) -> None:
    host = await Host.open(store, lease_ttl=LEASE_TTL, poll_interval=0.05)
    service = host.thread_service(lambda request: agent())
    thread = await service.create(request_key="create")
    await service.send(
        thread.thread_id,
        "read",
        request_key="send",
        labels={"tenant": "acme"},
        host={"token": HOST_TOKEN},
    )
    say(view=(await settled(service, thread.thread_id)).to_dict())
    if hang:
        await asyncio.Event().wait()
    await host.shutdown()


async def kill_after_activity(write: StoreWrite) -> None:
    if "activity" in write.kinds:
        os.kill(os.getpid(), signal.SIGKILL)


async def resume(db: Path) -> None:
    host = await Host.open(SQLiteStore(db), lease_ttl=LEASE_TTL, poll_interval=0.05)
    try:
        service = host.thread_service(lambda request: agent())
        thread_id = (await service.list()).threads[0].thread_id
        say(view=(await settled(service, thread_id)).to_dict())
    finally:
        await host.shutdown()


def main() -> None:
    mode, db = sys.argv[1], Path(sys.argv[2])
    if mode == "run":
        asyncio.run(run(SQLiteStore(db), hang=True))
    elif mode == "crash":
        asyncio.run(run(WriteTap(SQLiteStore(db), kill_after_activity), hang=False))
    else:
        asyncio.run(resume(db))


if __name__ == "__main__":
    main()
