"""Sub-agents as child threads: a tool that hands a task to another agent, in a thread
of its own whose parent is the calling thread.

The child thread is an ordinary thread (viewable, listable with `list(parent_id=...)`,
cancellable), run by the same host with the agent the factory gives for
`AgentRequest.agent == name`. The tool is idempotent by construction: the child is
created and the task sent under request keys made from the call's idempotency key, so
a call run again after a crash finds the same child and waits for it instead of
starting another.
"""

from __future__ import annotations

import asyncio
import contextlib
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from automata.core import FunctionTool, ToolContext, tool
from automata.threads._agents import idempotency_key, thread_of
from automata.threads._errors import HostClosedError

if TYPE_CHECKING:
    from automata.threads._service import ThreadService

__all__ = ["child_thread_tool"]


def child_thread_tool(service: ThreadService, name: str, description: str) -> FunctionTool:
    """A tool `name(task)` that runs `task` in a child thread of the calling thread
    and returns the child's final answer. The host's factory is asked for the child's
    agent with `AgentRequest.agent == name` (and `parent_id` set). A child turn that
    ends other than `done` makes the call fail with its status and error. Cancelling
    the parent's turn cancels the child's. The call's activity (AC rules) is labelled
    with the task, names its child in a `start` operation and ends with the child's
    status."""

    async def run_child(task: str, context: ToolContext[Any]) -> str:
        parent = thread_of(context)
        if parent is None:
            raise RuntimeError(f"{name} runs only in a thread service's turn")
        key = idempotency_key(context)
        child = await service.create(
            request_key=f"{key}/create", title=name, parent_id=parent, agent=name
        )
        child_id = child.thread_id
        context.activity.label(f"{name}: {task}")
        context.activity.operation("start", [child_id])
        try:
            await service.send(child_id, task, request_key=f"{key}/send")
            async with aclosing(service.subscribe(child_id)) as views:
                async for view in views:
                    if view.status not in ("running", "waiting"):
                        break
                else:
                    raise RuntimeError(f"{name}: the child thread {child_id} went away")
        except asyncio.CancelledError:
            # the parent's turn was cancelled: so is the child's (not at shutdown,
            # when the child is left to be resumed like any thread)
            with contextlib.suppress(HostClosedError):
                await asyncio.shield(service.cancel(child_id, request_key=f"{key}/cancel"))
            raise
        context.activity.status(view.status)
        if view.status != "done":
            raise RuntimeError(f"{name} ended {view.status}: {view.error or 'no answer'}")
        answers = [item.text for item in view.items if item.kind == "assistant"]
        return answers[-1] if answers else ""

    run_child.__doc__ = description
    return tool(run_child, name=name, description=description, idempotent=True)
