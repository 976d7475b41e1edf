"""A host killed while its turn keeps a to-do list, and the process that comes back
(packages/threads/tests/test_service_todos_crash.py).

    python _todo_procs.py run N STORE...    # write N kills the host (0: none)
    python _todo_procs.py reopen STORE...   # a fresh host: the view now, then settled

STORE is `sqlite PATH` or `postgres DSN SCHEMA` (see `_crash_points.py`).

`run` creates a thread (key `create`) and sends "plan" (key `send`); the model calls
`todo` with two items (one in progress), then again with the first completed, then
answers "planned". Each write is printed as `{"write": n, "call": ..., "kinds":
[...]}` and write N SIGKILLs the process before the writer is answered; without a
crash it prints `{"view": ...}` once the turn settled. `reopen` opens a fresh host,
prints `{"view": ...}` as its first read shows the thread, lets recovery finish the
turn, and prints `{"settled": ...}`. A view is `[status, todos, items]`.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Sequence

from _crash_points import open_store, say, settled  # type: ignore[import-not-found]

from automata.core import Agent, ModelRequest
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import Host, ThreadView, todo_tool
from automata.threads.testing import StoreWrite, WriteTap

LISTS = [
    [{"content": "read the code", "status": "in_progress"}, {"content": "fix the bug"}],
    [{"content": "read the code", "status": "completed"}, {"content": "fix the bug"}],
]


def planner() -> Agent[None]:
    async def model(request: ModelRequest) -> Reply:
        done = sum(message.role == "tool" for message in request.messages)
        if done < len(LISTS):
            return tool_calls(tool_call(f"c{done + 1}", "todo", items=LISTS[done]))
        return "planned"

    return Agent(FunctionProvider(model), tools=[todo_tool()])


def shown(view: ThreadView) -> list[object]:
    todos = None
    if view.todos is not None:
        todos = [[item.content, item.status] for item in view.todos.items]
    items = [[item.id, item.kind, item.status, item.text or item.result] for item in view.items]
    return [view.status, todos, items]


async def run(crash_after: int, spec: Sequence[str]) -> None:
    async def tapped(write: StoreWrite) -> None:
        say(write=write.number, call=write.call, kinds=list(write.kinds))
        if write.number == crash_after:
            os.kill(os.getpid(), signal.SIGKILL)

    host = await Host.open(WriteTap(open_store(spec), tapped), lease_ttl=1.0, poll_interval=0.05)
    try:
        service = host.thread_service(lambda request: planner())
        thread = await service.create(request_key="create")
        say(thread_id=thread.thread_id)
        await service.send(thread.thread_id, "plan", request_key="send")
        say(view=shown(await settled(service, thread.thread_id)))
    finally:
        await host.shutdown()


async def reopen(spec: Sequence[str]) -> None:
    host = await Host.open(open_store(spec), lease_ttl=1.0, poll_interval=0.05)
    try:
        service = host.thread_service(lambda request: planner())
        thread_id = (await service.create(request_key="create")).thread_id
        say(view=shown(await service.view(thread_id)))
        say(settled=shown(await settled(service, thread_id)))
    finally:
        await host.shutdown()


if __name__ == "__main__":
    if sys.argv[1] == "run":
        asyncio.run(run(int(sys.argv[2]), sys.argv[3:]))
    else:
        asyncio.run(reopen(sys.argv[2:]))
