"""Managing sub-agents as child threads one step at a time: tools that start a child
without waiting for it, wait on children, and stop them (docs/threads.md, AC8-AC9).

`child_thread_tool` starts a child and waits for its answer in one call; these split
the work so a model can run several children at once. Each call's activity names its
action (`start`, `wait` or `stop`) and its targets in the order the model gave them
(`SubAgentOperation`). All three are idempotent: a call recovery runs again after a
crash starts no second child (the child is created and sent under request keys made
from the call's idempotency key), waits again from where the children stand, and
stops each child under the same request key as before, so a stop already committed is
a duplicate request and cancels nothing else (not a turn queued since).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from automata.core import FunctionTool, InvalidArgumentError, ToolContext, tool
from automata.threads._agents import idempotency_key, thread_of
from automata.threads._errors import ThreadNotFoundError

if TYPE_CHECKING:
    from automata.threads._service import ThreadService
    from automata.threads._view import ThreadView

__all__ = ["MAX_TARGETS", "start_child_tool", "stop_children_tool", "wait_children_tool"]

MAX_TARGETS = 100
"""The most child threads one wait or stop names (the bound of `SubAgentOperation`)."""

_SETTLED_WAIT = 600.0
"""The longest a wait may be asked to last, in seconds."""


def _parent(context: ToolContext[Any], name: str) -> str:
    parent = thread_of(context)
    if parent is None:
        raise RuntimeError(f"{name} runs only in a thread service's turn")
    return parent


async def _children(
    service: ThreadService, parent: str, thread_ids: Sequence[str]
) -> list[ThreadView]:
    """The views of `thread_ids`, checked to be distinct children of `parent`
    (1 to `MAX_TARGETS` of them); `InvalidArgumentError` names the first that is not."""
    if not 1 <= len(thread_ids) <= MAX_TARGETS:
        raise InvalidArgumentError(f"name 1 to {MAX_TARGETS} child threads, not {len(thread_ids)}")
    if len(set(thread_ids)) != len(thread_ids):
        raise InvalidArgumentError("a child thread is named twice")
    views = []
    for thread_id in thread_ids:
        try:
            view = await service.view(thread_id)
        except (ThreadNotFoundError, InvalidArgumentError):
            view = None
        if view is None or view.parent_id != parent:
            raise InvalidArgumentError(f"{thread_id!r} is not a child thread of this thread")
        views.append(view)
    return views


def _answer(view: ThreadView) -> str | None:
    answers = [item.text for item in view.items if item.kind == "assistant"]
    return answers[-1] if answers and view.status == "done" else None


def _settled(view: ThreadView) -> bool:
    return view.status not in ("running", "waiting")


def start_child_tool(service: ThreadService, name: str, description: str) -> FunctionTool:
    """A tool `name(task)` that starts `task` in a new child thread of the calling
    thread and returns the child's id at once (the child runs on; wait on it with
    `wait_children_tool`). The host's factory is asked for the child's agent with
    `AgentRequest.agent == name`. Its activity: label `<name>: <task>`, operation
    `start` with the child's id, status `started`."""

    async def start_child(task: str, context: ToolContext[Any]) -> str:
        parent = _parent(context, name)
        key = idempotency_key(context)
        child = await service.create(
            request_key=f"{key}/create", title=name, parent_id=parent, agent=name
        )
        context.activity.label(f"{name}: {task}")
        context.activity.operation("start", [child.thread_id])
        await service.send(child.thread_id, task, request_key=f"{key}/send")
        context.activity.status("started")
        return child.thread_id

    start_child.__doc__ = description
    return tool(start_child, name=name, description=description, idempotent=True)


def wait_children_tool(service: ThreadService, name: str = "wait_children") -> FunctionTool:
    """A tool `name(thread_ids, timeout_seconds=60)` that waits until each named child
    thread of the calling thread has settled (not `running` or `waiting`), or the
    timeout passes, and returns a JSON list, in the order given, of each child's
    `thread_id`, `status` and `answer` (its last reply when `done`, else null); a
    child still running at the timeout is reported `running`. Ids that are not
    distinct children of the calling thread are an error the model can correct.
    Its activity: operation `wait` with the ids in order, a row per child as it
    settles, status `<n> of <m> settled`."""

    async def wait_children(
        thread_ids: list[str], context: ToolContext[Any], timeout_seconds: float = 60.0
    ) -> str:
        parent = _parent(context, name)
        if not 0 < timeout_seconds <= _SETTLED_WAIT:
            raise InvalidArgumentError(f"timeout_seconds must be in (0, {_SETTLED_WAIT:g}]")
        views = {view.thread_id: view for view in await _children(service, parent, thread_ids)}
        context.activity.label(f"Waiting on {len(thread_ids)} child thread(s)")
        context.activity.operation("wait", thread_ids)
        settled = 0

        def report(view: ThreadView) -> None:
            nonlocal settled
            settled += 1
            context.activity.row(f"{view.thread_id}: {view.status}")
            context.activity.status(f"{settled} of {len(thread_ids)} settled")

        async def settle(thread_id: str) -> None:
            async with aclosing(service.subscribe(thread_id)) as changes:
                async for view in changes:
                    views[thread_id] = view
                    if _settled(view):
                        report(view)
                        return

        context.activity.status(f"0 of {len(thread_ids)} settled")
        waits = [asyncio.ensure_future(settle(thread_id)) for thread_id in thread_ids]
        try:
            await asyncio.wait(waits, timeout=timeout_seconds)
        finally:
            for waiting in waits:
                waiting.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
        return json.dumps(
            [
                {
                    "thread_id": thread_id,
                    "status": views[thread_id].status,
                    "answer": _answer(views[thread_id]),
                }
                for thread_id in thread_ids
            ]
        )

    return tool(
        wait_children,
        name=name,
        description="Wait until the named child threads settle; report each one's status "
        "and answer.",
        idempotent=True,
    )


def stop_children_tool(service: ThreadService, name: str = "stop_children") -> FunctionTool:
    """A tool `name(thread_ids)` that cancels the running turn of each named child
    thread of the calling thread, in the order given, and returns a JSON list of each
    child's `thread_id` and `status` after the stop. Each cancel is made under a
    request key of its own made from the call's idempotency key, so the call run again
    after a crash stops no child twice. Ids that are not distinct children of the
    calling thread are an error, and then no child is stopped. Its activity:
    operation `stop` with the ids in order, a row per child stopped, status
    `stopped <n>`."""

    async def stop_children(thread_ids: list[str], context: ToolContext[Any]) -> str:
        parent = _parent(context, name)
        await _children(service, parent, thread_ids)
        key = idempotency_key(context)
        context.activity.label(f"Stopping {len(thread_ids)} child thread(s)")
        context.activity.operation("stop", thread_ids)
        stopped = []
        for thread_id in thread_ids:
            view = await service.cancel(thread_id, request_key=f"{key}/stop/{thread_id}")
            context.activity.row(f"{thread_id}: {view.status}")
            stopped.append({"thread_id": thread_id, "status": view.status})
        context.activity.status(f"stopped {len(stopped)}")
        return json.dumps(stopped)

    return tool(
        stop_children,
        name=name,
        description="Stop the running turn of each named child thread.",
        idempotent=True,
    )
