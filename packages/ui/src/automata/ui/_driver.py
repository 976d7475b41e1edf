"""An agent run driven step by step into a bounded queue: its stream events, its
committed steps, and how it ended (done, failed, or stopped for the front end)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Collection,
    Iterable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from typing import Any

from automata.core import (
    Agent,
    Approval,
    ModelStep,
    RunResult,
    Step,
    StreamEvent,
    Tool,
    ToolContext,
    ToolResult,
    ToolUseBlock,
)
from automata.ui._errors import StreamOverflowError
from automata.ui._run_plan import ClientTool, RunPlan

__all__ = ["Deferred", "Failed", "Finished", "RunItem", "drive", "written"]


@dataclass(frozen=True, slots=True)
class Deferred:
    """The run stopped after `step`, before its calls ran: `approvals` wait for the
    front end's decision, `client_calls` for the front end to run them. None of the
    step's calls ran; the front end's next request continues from them."""

    step: ModelStep
    approvals: tuple[ToolUseBlock, ...]
    client_calls: tuple[ToolUseBlock, ...]


@dataclass(frozen=True, slots=True)
class Finished:
    """The run ended with `result`."""

    result: RunResult[Any]


@dataclass(frozen=True, slots=True)
class Failed:
    """The run failed with `error` (its partial transcript was streamed already)."""

    error: BaseException


RunItem = StreamEvent | Step | Deferred | Finished | Failed


class _AnsweredClientTool:
    """A client-side tool as the batch sees it: its result is the output the front
    end sent for that call; a call it sent none for is an error result."""

    def __init__(self, spec: ClientTool, outputs: Mapping[str, ToolResult]) -> None:
        self._spec = spec
        self._outputs = outputs

    @property
    def name(self) -> str:
        return self._spec.name

    @property
    def description(self) -> str:
        return self._spec.description

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return self._spec.input_schema

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolResult:
        output = self._outputs.get(context.call.id)
        if output is None:
            return ToolResult(
                content=ToolResult.text("no output: the front end sent none").content,
                is_error=True,
            )
        return output


def _run_agent(agent: Agent[Any], plan: RunPlan, client_tools: Sequence[ClientTool]) -> Agent[Any]:
    if not client_tools:
        return agent
    own = {tool.name for tool in agent.tools}
    added: list[Tool] = [
        _AnsweredClientTool(spec, plan.client_outputs)
        for spec in client_tools
        if spec.name not in own
    ]
    return agent.replace(tools=[*agent.tools, *added])


def _decisions_first(agent: Agent[Any], decisions: Mapping[str, Approval]) -> Any:
    """The run's approver: the front end's decision for a call it decided on, the
    agent's own approver (or allow, when it has none) for every other call."""
    base = agent.approver

    async def approve(call: ToolUseBlock, context: ToolContext) -> Approval:
        decision = decisions.get(call.id)
        if decision is not None:
            return decision
        if base is None:
            return Approval.allow()
        verdict = base(call, context)
        return await verdict if inspect.isawaitable(verdict) else verdict

    return approve


async def drive(
    agent: Agent[Any],
    plan: RunPlan,
    *,
    approval_required: Collection[str],
    client_tools: Sequence[ClientTool],
    max_queued_events: int,
) -> AsyncGenerator[RunItem, None]:
    """Run `plan` on `agent` and yield its events and steps in order, then one
    `Finished`, `Failed` or `Deferred`.

    A model step whose calls include one of `approval_required` (and no decision for
    it) or a client-side tool's call (with no output for it) ends the run before any
    of that step's calls run: `Deferred`. At most `max_queued_events` events wait for
    the reader; one more stops the run with `StreamOverflowError` (as `Failed`).
    Closing the iterator cancels the run and waits for it to stop."""
    queue: asyncio.Queue[RunItem | None] = asyncio.Queue(maxsize=max_queued_events)
    client_names = {spec.name for spec in client_tools}

    def push(event: StreamEvent) -> None:
        try:
            queue.put_nowait(event)
        except asyncio.QueueFull:
            raise StreamOverflowError(
                f"more than {max_queued_events} events waited for the client"
            ) from None

    def waiting(step: ModelStep) -> Deferred | None:
        approvals = tuple(
            call
            for call in step.tool_calls
            if call.name in approval_required and call.id not in plan.decisions
        )
        client = tuple(
            call
            for call in step.tool_calls
            if call.name in client_names and call.id not in plan.client_outputs
        )
        return Deferred(step, approvals, client) if approvals or client else None

    run_agent = _run_agent(agent, plan, client_tools)
    per_run: dict[str, Any] = {}
    if plan.decisions:
        per_run["approver"] = _decisions_first(agent, plan.decisions)

    async def run() -> None:
        try:
            session = run_agent.session(list(plan.history))
            async with session.iter(plan.task, on_event=push, **per_run) as steps:
                async for step in steps:
                    await queue.put(step)
                    deferred = waiting(step) if isinstance(step, ModelStep) else None
                    if deferred is not None:
                        await queue.put(deferred)
                        return
                await queue.put(Finished(steps.result))
        except Exception as error:
            cause = error.__cause__
            await queue.put(Failed(cause if isinstance(cause, StreamOverflowError) else error))
        finally:
            await queue.put(None)

    task = asyncio.create_task(run())
    try:
        while (item := await queue.get()) is not None:
            yield item
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def written(
    items: AsyncGenerator[RunItem, None], write: Callable[[RunItem], Iterable[str]]
) -> AsyncIterator[str]:
    """The frames `write` makes of each of `items` (a `drive`), in order; `items` is
    closed (its run cancelled and waited for) however the reading ends."""
    try:
        async for item in items:
            for frame in write(item):
                yield frame
    finally:
        await items.aclose()
