"""An `Agent` whose loop is a workflow: a checkpoint after every model turn and tool batch.

`workflow_agent(agent, store)` returns a `WorkflowAgent`. Its loop is a two-node
workflow, `agent:<name>`: `model` makes one model turn, `tools` runs one tool batch, and
each activation drives the agent's step API (`agent.session(transcript).iter(...)`) for
exactly one committed step, then stops the inner run. The transcript crosses every
checkpoint as `dump_messages` JSON in the activation's output, with the run's step count
and usage totals so far:

    model(Turn) -> Calls   (the turn called tools)   -> tools(Calls) -> Turn -> model ...
    model(Turn) -> Answer  (the final answer) -> answer(Answer), the exit

A run killed mid-loop is resumed (`resume(run_id)`, or `run(task, run_id=...)`) from
its last committed step: a finished turn is never sent again and a finished batch never
runs again. A batch interrupted mid-way runs again, as a whole, with the same
idempotency key (at-least-once, W6): tools read it from `current_activation()`. The
rules are W15-W17 of docs/workflows.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic

from automata.core import (
    Agent,
    AutomataError,
    MaxStepsError,
    Message,
    ModelStep,
    RunResult,
    Step,
    StopReason,
    Task,
    ToolStep,
    Usage,
    dump_messages,
    load_messages,
)
from automata.core._deps import DepsT
from automata.threads.store import ThreadStore
from automata.workflow._compiled import CompiledWorkflow
from automata.workflow._errors import NodeFailedError
from automata.workflow._graph import Workflow
from automata.workflow._history import RunsPage
from automata.workflow._hooks import Guard, Middleware
from automata.workflow._ids import Ids
from automata.workflow._nodes import NodeContext

__all__ = ["Answer", "Calls", "Turn", "WorkflowAgent", "workflow_agent"]


@dataclass(frozen=True, slots=True)
class Turn:
    """The input of a `model` activation: the transcript so far (`dump_messages` JSON,
    empty at the start), the task (JSON of the user message, at the first turn only),
    and the run's provider calls and usage so far."""

    transcript: str
    task: str | None
    steps: int
    usage: Usage


@dataclass(frozen=True, slots=True)
class Calls:
    """A committed model turn that called tools: the transcript ends in its calls,
    which have no results yet; the `tools` activation runs them."""

    transcript: str
    steps: int
    usage: Usage


@dataclass(frozen=True, slots=True)
class Answer:
    """The run's end: its output and whole transcript, provider calls and usage."""

    output: str
    transcript: str
    steps: int
    usage: Usage
    stop_reason: StopReason
    raw_stop_reason: str


def _user_message(task: Task) -> Message:
    if isinstance(task, Message):
        return task
    if isinstance(task, str):
        return Message.user(task)
    return Message(role="user", content=tuple(task))


def _totals(error: AutomataError, steps: int, usage: Usage, run_id: str) -> None:
    """Make a failed activation's partial result (`RunError.result`, `ProviderError.result`)
    the whole run's, not the inner run's."""
    partial = getattr(error, "result", None)
    if isinstance(partial, RunResult):
        error.result = replace(  # type: ignore[attr-defined]
            partial,
            steps=steps + partial.steps,
            usage=usage + partial.usage,
            invocation_id=run_id,
        )


class WorkflowAgent(Generic[DepsT]):
    """An agent whose loop runs as a checkpointed workflow (module docstring).

    `run(task, run_id=...)` gives the same `RunResult` a direct `agent.run(task)` does
    for the same conversation (output, transcript, provider calls, usage); its
    `invocation_id` is the run id. Errors a run raises in this process are the ones the
    direct agent raises (a `RunError` carries the partial result, counted over the whole
    run); a run that failed in an earlier process raises `NodeFailedError`. `workflow`
    is the compiled workflow, for `history`, `cancel`, `retry` and `session_runs`."""

    def __init__(self, agent: Agent[DepsT], workflow: CompiledWorkflow[Turn, Answer]) -> None:
        self.agent = agent
        self.workflow = workflow

    @property
    def name(self) -> str:
        return self.agent.name

    async def run(
        self,
        task: Task,
        *,
        run_id: str | None = None,
        session_id: str | None = None,
    ) -> RunResult[str]:
        """Run `task` to an answer as run `run_id` (a new id when None). With the id of
        an existing run, resume it instead (the task must be the same, else
        `RunConflictError`); a run that already ended answers from its journal without
        calling the model. Arguments are checked before anything is journaled."""
        self.agent.iter(task)  # checks the task as `Agent.run` does; runs nothing
        start = Turn("", dump_messages([_user_message(task)]), 0, Usage())
        if run_id is None:
            run_id = self.workflow.new_id("run")
        answer = await self._unwrap(
            self.workflow.invoke(start, run_id=run_id, session_id=session_id)
        )
        return self._result(answer, run_id)

    def run_sync(
        self, task: Task, *, run_id: str | None = None, session_id: str | None = None
    ) -> RunResult[str]:
        """`run` from code that has no running event loop."""
        return asyncio.run(self.run(task, run_id=run_id, session_id=session_id))

    async def resume(self, run_id: str) -> RunResult[str]:
        """Resume run `run_id` from its last committed step (or answer from the journal
        of a run that ended). Raises `RunNotFoundError` for an unknown run."""
        return self._result(await self._unwrap(self.workflow.resume(run_id)), run_id)

    async def runs(self, session_id: str, *, limit: int = 100) -> RunsPage:
        """The runs of a session, newest first (see `CompiledWorkflow.session_runs`)."""
        return await self.workflow.session_runs(session_id, limit=limit)

    @staticmethod
    async def _unwrap(pending: Awaitable[Answer]) -> Answer:
        try:
            answer = await pending
        except NodeFailedError as error:
            cause = error.__cause__
            if isinstance(cause, Exception):
                raise cause from None
            raise
        return answer

    def _result(self, answer: Answer, run_id: str) -> RunResult[str]:
        messages = tuple(load_messages(answer.transcript))
        final = next((m for m in reversed(messages) if m.role == "assistant"), None)
        return RunResult(
            output=answer.output,
            messages=messages,
            final_message=final,
            usage=answer.usage,
            steps=answer.steps,
            stop_reason=answer.stop_reason,
            raw_stop_reason=answer.raw_stop_reason,
            agent=self.agent.name,
            invocation_id=run_id,
        )


def _agent_workflow(agent: Agent[Any], deps: Any) -> Workflow[Turn, Answer]:
    """The loop of `agent` as a workflow: `model`, `tools` and the exit `answer`."""
    wf = Workflow[Turn, Answer](f"agent:{agent.name}")

    def remaining(turn: Turn, context: NodeContext) -> int:
        """The provider calls the run has left; `MaxStepsError` (as the direct loop
        raises it, with the partial result) when none."""
        left = agent.max_steps - turn.steps
        if left >= 1:
            return left
        messages = tuple(load_messages(turn.transcript))
        final = next((m for m in reversed(messages) if m.role == "assistant"), None)
        raise MaxStepsError(
            f"run stopped after max_steps={agent.max_steps} with the model still calling tools",
            RunResult(
                output="",
                messages=messages,
                final_message=final,
                usage=turn.usage,
                steps=turn.steps,
                stop_reason=StopReason.MAX_STEPS,
                raw_stop_reason=StopReason.TOOL_USE.value,
                agent=agent.name,
                invocation_id=context.run_id,
            ),
        )

    @wf.node
    async def model(turn: Turn, context: NodeContext) -> Calls | Answer:
        transcript = load_messages(turn.transcript) if turn.transcript else []
        task = load_messages(turn.task)[0] if turn.task is not None else None
        session = agent.session(transcript)
        steps = session.iter(task, deps=deps, max_steps=remaining(turn, context))
        first: Step | None = None
        try:
            async with steps:
                async for step in steps:
                    if first is None:
                        first = step
                        if isinstance(step, ModelStep) and step.tool_calls:
                            usage = turn.usage + (step.usage or Usage())
                            messages = dump_messages(step.messages)
                            return Calls(messages, turn.steps + 1, usage)
                    # an answer's correction turns, if any, are part of this activation
        except AutomataError as error:
            _totals(error, turn.steps, turn.usage, context.run_id)
            raise
        result = steps.result
        return Answer(
            output=str(result.output),
            transcript=dump_messages(result.messages),
            steps=turn.steps + result.steps,
            usage=turn.usage + result.usage,
            stop_reason=result.stop_reason,
            raw_stop_reason=result.raw_stop_reason,
        )

    @wf.node
    async def tools(calls: Calls, context: NodeContext) -> Turn:
        session = agent.session(load_messages(calls.transcript))
        # the pending calls run first, as step 0 (L88); stopping after it calls no model
        steps = session.iter(None, deps=deps, max_steps=1)
        try:
            async with steps:
                async for step in steps:
                    if isinstance(step, ToolStep):
                        return Turn(dump_messages(step.messages), None, calls.steps, calls.usage)
        except AutomataError as error:
            _totals(error, calls.steps, calls.usage, context.run_id)
            raise
        raise RuntimeError("the tool batch committed no step")  # pragma: no cover

    @wf.node
    async def answer(done: Answer) -> Answer:
        return done  # an exit has no outgoing edges, so the answer leaves through here

    wf.entry(model)
    wf.route(model, tools)
    wf.route(model, answer)
    wf.edge(tools, model)
    wf.exit(answer)
    return wf


def workflow_agent(
    agent: Agent[DepsT],
    store: ThreadStore | None = None,
    *,
    deps: DepsT | None = None,
    middleware: Sequence[Middleware] = (),
    guards: Sequence[Guard] = (),
    ids: Ids | None = None,
    lease_ttl: float = 30.0,
) -> WorkflowAgent[DepsT]:
    """`agent`'s loop as a workflow checkpointed in `store` (an open store the caller
    owns; a private `MemoryStore` when None): see `WorkflowAgent`. `deps` are given to
    every step's tools and prompts; the other options are `Workflow.compile`'s."""
    flow = _agent_workflow(agent, deps).compile(
        store, middleware=middleware, guards=guards, ids=ids, lease_ttl=lease_ttl
    )
    return WorkflowAgent(agent, flow)
