"""A Starlette app that streams an agent run to a browser over Server-Sent Events.

`GET /runs?task=...` starts one run and answers with `text/event-stream`. The run's
events are folded into a `StreamAccumulator`; after each event the app sends the view
of the lane that changed (`event: view`), and at the end one `event: done` frame with
the result and every view, or one `event: error` frame with the error and the partial
output. The stream is read inside `async with`, so a browser that goes away (the
request is cancelled) cancels the run and its tools. `GET /` serves a small page that
renders the views.

A run costs model calls, so it is bounded: the app runs behind `automata.web.WebGuard`
(packages/web), which refuses a Host header that is not one of the server's
names and a `GET /runs` from a page of another origin (403); at most `max_runs` runs
stream at once (beyond that 503 `ServerBusy`, with `Retry-After`), and a task is at
most `max_task_chars` characters (400).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from importlib import resources

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from automata.core import Agent, AgentView, AutomataError, RunError, StreamAccumulator, Usage
from automata.web import BadRequest, GuardPolicy, ServerBusy, WebGuard, refusal
from sse_server.demo import demo_agent

__all__ = [
    "MAX_RUNS",
    "MAX_TASK_CHARS",
    "AgentFactory",
    "create_app",
    "run_frames",
    "sse_frame",
    "view_json",
]

MAX_RUNS = 8
"""The default bound of the runs streaming at once."""

MAX_TASK_CHARS = 4000
"""The default bound of a task's length, in characters."""

AgentFactory = Callable[[], Agent]
"""Builds the agent for one request (a fresh one, or a shared one: agents are safe to
run concurrently)."""

JSONObject = dict[str, object]


def sse_frame(event: str, data: JSONObject) -> str:
    """One Server-Sent Events frame. JSON escapes newlines, so `data` is one line."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def usage_json(usage: Usage) -> JSONObject:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
    }


def view_json(view: AgentView) -> JSONObject:
    """An accumulator lane as JSON. `lane` identifies it across frames."""
    return {
        "lane": f"{view.agent}/{view.invocation_id}",
        "agent": view.agent,
        "invocation_id": view.invocation_id,
        "depth": view.depth,
        "text": view.text,
        "thinking": view.thinking,
        "tool_calls": [
            {
                "id": call.id,
                "name": call.name,
                "input": dict(call.call.input) if call.call is not None else None,
                "done": call.done,
                "result": call.result,
                "is_error": call.is_error,
            }
            for call in view.tool_calls
        ],
        "usage": usage_json(view.usage),
    }


async def run_frames(agent: Agent, task: str) -> AsyncIterator[str]:
    """The SSE frames of one run of `agent` on `task` (see the module docstring)."""
    accumulator = StreamAccumulator()
    try:
        async with agent.stream(task) as stream:
            async for event in stream:
                accumulator.add(event)
                view = accumulator.view(event.agent, event.invocation_id)
                if view is not None:
                    yield sse_frame("view", view_json(view))
    except AutomataError as error:
        partial = error.result if isinstance(error, RunError) else None
        yield sse_frame(
            "error",
            {
                "type": type(error).__name__,
                "message": str(error),
                "output": str(partial.output) if partial is not None else "",
                "stop_reason": str(partial.stop_reason) if partial is not None else "error",
                "views": [view_json(v) for v in accumulator.views()],
            },
        )
        return
    result = stream.result
    yield sse_frame(
        "done",
        {
            "output": str(result.output),
            "stop_reason": str(result.stop_reason),
            "usage": usage_json(result.usage),
            "totals": usage_json(accumulator.totals()),
            "views": [view_json(v) for v in accumulator.views()],
        },
    )


def _page() -> str:
    return resources.files("sse_server").joinpath("index.html").read_text(encoding="utf-8")


class _RunSlots:
    """How many of the app's `capacity` runs are streaming now."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("max_runs must be at least 1")
        self.capacity = capacity
        self.taken = 0

    def take(self) -> None:
        """Take a slot; `ServerBusy` when all are taken."""
        if self.taken >= self.capacity:
            raise ServerBusy(f"{self.capacity} runs are streaming already; try again later")
        self.taken += 1

    def give_back(self) -> None:
        self.taken -= 1


class _RunResponse(StreamingResponse):
    """A run's stream, which gives its slot back however the response ends (finished,
    failed, or the browser gone)."""

    def __init__(self, frames: AsyncIterator[str], slots: _RunSlots) -> None:
        super().__init__(
            frames,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        self._slots = slots

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._slots.give_back()


def create_app(
    make_agent: AgentFactory = demo_agent,
    *,
    policy: GuardPolicy | None = None,
    max_runs: int = MAX_RUNS,
    max_task_chars: int = MAX_TASK_CHARS,
) -> Starlette:
    """The app: `GET /` (the page) and `GET /runs?task=...` (one run as SSE).

    `policy` is what its `WebGuard` lets through (by default the loopback host names;
    `GET /runs` is always checked for its origin); at most `max_runs` runs stream at
    once, and a task is at most `max_task_chars` characters."""
    page = _page()
    slots = _RunSlots(max_runs)
    guarded = policy or GuardPolicy()
    guarded = dataclasses.replace(guarded, guarded_paths=guarded.guarded_paths | {"/runs"})

    async def index(request: Request) -> Response:
        return HTMLResponse(page)

    async def runs(request: Request) -> Response:
        task = request.query_params.get("task", "").strip()
        if not task:
            return refusal(BadRequest("the query parameter 'task' is required"))
        if len(task) > max_task_chars:
            return refusal(BadRequest(f"a task is at most {max_task_chars} characters"))
        try:
            slots.take()
        except ServerBusy as busy:
            return refusal(busy)
        try:
            agent = make_agent()
        except BaseException:
            slots.give_back()
            raise
        return _RunResponse(run_frames(agent, task), slots)

    return Starlette(
        routes=[Route("/", index), Route("/runs", runs)],
        middleware=[Middleware(WebGuard, policy=guarded)],
    )
