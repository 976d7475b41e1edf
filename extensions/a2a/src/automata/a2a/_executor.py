"""`AgentTaskExecutor`: an automata agent behind the SDK's `AgentExecutor`, each A2A
context a conversation (a `Session`) and each task one run of it."""

from __future__ import annotations

import asyncio
import inspect
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part

from automata.a2a._task_events import (
    AnswerArtifact,
    approval_question,
    input_message,
    open_task,
    output_text,
    read_approval,
)
from automata.core import (
    Agent,
    Approval,
    Approver,
    InvalidArgumentError,
    Session,
    StreamEvent,
    TextEvent,
    ToolContext,
    ToolUseBlock,
)

__all__ = ["DEFAULT_MAX_CONTEXTS", "AgentFactory", "AgentTarget", "AgentTaskExecutor"]

DEFAULT_MAX_CONTEXTS = 256
"""How many conversations an `AgentTaskExecutor` keeps by default."""

AgentFactory: TypeAlias = Callable[[], "Agent[Any] | Awaitable[Agent[Any]]"]
"""Makes the agent of one new A2A context (sync or async, no arguments)."""

AgentTarget: TypeAlias = "Agent[Any] | AgentFactory"


@dataclass(frozen=True, slots=True)
class _Text:
    text: str


@dataclass(frozen=True, slots=True)
class _Ask:
    call: ToolUseBlock


@dataclass(frozen=True, slots=True)
class _Finished:
    text: str


@dataclass(frozen=True, slots=True)
class _Failed:
    reason: str


_Signal: TypeAlias = "_Text | _Ask | _Finished | _Failed"


@dataclass(slots=True)
class _LiveRun:
    """One task's run, alive across the requests of its task (it outlives an
    `execute` that returns on input-required)."""

    session: Session[Any]
    signals: asyncio.Queue[_Signal] = field(default_factory=asyncio.Queue)
    answer: AnswerArtifact = field(default_factory=AnswerArtifact)
    pending: asyncio.Future[str] | None = None
    task: asyncio.Task[None] | None = None

    def on_event(self, event: StreamEvent) -> None:
        if isinstance(event, TextEvent) and event.depth == 0:
            self.signals.put_nowait(_Text(event.text))


class _AskingApprover:
    """Passes each call to the agent's own approver first; a call `rule` selects then
    waits for the task's next message (approved by a yes, see `read_approval`)."""

    def __init__(
        self, run: _LiveRun, rule: Callable[[ToolUseBlock], bool], inner: Approver | None
    ) -> None:
        self._run = run
        self._rule = rule
        self._inner = inner

    async def __call__(self, call: ToolUseBlock, context: ToolContext) -> Approval:
        if self._inner is not None:
            decision = self._inner(call, context)
            approval = await decision if inspect.isawaitable(decision) else decision
            if not approval.allowed:
                return approval
        if not self._rule(call):
            return Approval.allow()
        while self._run.pending is not None:  # one question at a time, in call order
            await asyncio.wait([self._run.pending])
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._run.pending = answer
        self._run.signals.put_nowait(_Ask(call))
        approved, reason = read_approval(await answer)
        return Approval.allow() if approved else Approval.deny(reason)


def _rule(ask: bool | Collection[str]) -> Callable[[ToolUseBlock], bool]:
    if isinstance(ask, bool):
        return lambda _call: ask
    names = frozenset(ask)
    return lambda call: call.name in names


class AgentTaskExecutor(AgentExecutor):
    """Serves `target` over A2A: an agent (each context a conversation of its own) or
    a factory called once per new context.

    A task is one run: it is `submitted`, then `working` while the answer streams as
    the `answer` artifact (`AnswerArtifact`), and ends `completed` (the artifact holds
    the run's output), `failed` (the status message says why) or `canceled`. A call
    of a tool `ask_approval` selects (`True`: every call; a collection: those tools'
    calls) puts the task in `input-required`, its status message the question (see
    `approval_question`, metadata under `"automata"`); the next message on the task
    is the answer, and the run goes on from the call. `tasks/cancel` cancels the run.
    A message that starts a task in a context whose conversation is running another
    task fails. At most `max_contexts` conversations are kept (the least recently used
    idle one is dropped first). Runs live in this process: a restart forgets them
    (serve a thread service, `ThreadTaskExecutor`, for tasks that outlive it)."""

    def __init__(
        self,
        target: AgentTarget,
        *,
        ask_approval: bool | Collection[str] = (),
        max_contexts: int = DEFAULT_MAX_CONTEXTS,
    ) -> None:
        if max_contexts < 1:
            raise InvalidArgumentError(f"max_contexts must be at least 1, got {max_contexts}")
        self._target = target
        self._rule = _rule(ask_approval)
        self._max_contexts = max_contexts
        self._sessions: OrderedDict[str, Session[Any]] = OrderedDict()
        self._busy: set[str] = set()
        self._runs: dict[str, _LiveRun] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        run = self._runs.get(task_id)
        if run is not None and run.pending is not None:
            pending, run.pending = run.pending, None
            pending.set_result(context.get_user_input())
            await updater.start_work()
        elif run is not None:
            await updater.failed(_says(updater, "this task is running already"))
            return
        else:
            if context.current_task is None:
                await open_task(context, event_queue)
            started = await self._start(context, updater)
            if started is None:
                return
            run = started
        await self._follow(task_id, context_id, run, updater)

    async def _start(self, context: RequestContext, updater: TaskUpdater) -> _LiveRun | None:
        context_id = context.context_id or ""
        if context.current_task is not None:
            await updater.failed(
                _says(updater, "this server no longer holds the run this task waited in")
            )
            return None
        if context_id in self._busy:
            await updater.failed(_says(updater, "this context is answering another task"))
            return None
        agent = await self._agent()
        session = self._session(context_id, agent)
        if session is None:
            await updater.failed(_says(updater, "every conversation of this server is busy"))
            return None
        await updater.start_work()
        run = _LiveRun(session=session)
        approver = _AskingApprover(run, self._rule, agent.approver)
        self._busy.add(context_id)
        self._runs[context.task_id or ""] = run
        run.task = asyncio.get_running_loop().create_task(
            self._drive(run, approver, context.get_user_input(), context_id)
        )
        return run

    async def _agent(self) -> Agent[Any]:
        if isinstance(self._target, Agent):
            return self._target
        made = self._target()
        agent = await made if inspect.isawaitable(made) else made
        if not isinstance(agent, Agent):
            raise TypeError(f"the agent factory returned {type(agent).__name__}, not an Agent")
        return agent

    def _session(self, context_id: str, agent: Agent[Any]) -> Session[Any] | None:
        known = self._sessions.get(context_id)
        if known is not None:
            self._sessions.move_to_end(context_id)
            return known
        if len(self._sessions) >= self._max_contexts:
            idle = next((key for key in self._sessions if key not in self._busy), None)
            if idle is None:
                return None
            del self._sessions[idle]
        self._sessions[context_id] = session = agent.session()
        return session

    async def _drive(
        self, run: _LiveRun, approver: _AskingApprover, text: str, context_id: str
    ) -> None:
        try:
            async with run.session.iter(text, on_event=run.on_event, approver=approver) as steps:
                async for _ in steps:
                    pass
            run.signals.put_nowait(_Finished(output_text(steps.result.output)))
        except Exception as exc:
            run.signals.put_nowait(_Failed(f"{type(exc).__name__}: {exc}"))
        finally:
            self._busy.discard(context_id)

    async def _follow(
        self, task_id: str, context_id: str, run: _LiveRun, updater: TaskUpdater
    ) -> None:
        while True:
            signal = await run.signals.get()
            if isinstance(signal, _Text):
                await run.answer.delta(updater, signal.text)
            elif isinstance(signal, _Ask):
                call = signal.call
                details = {"kind": "approval", "tool": call.name, "input": dict(call.input)}
                details["call_id"] = call.id
                question = approval_question(call.name, call.input)
                await updater.requires_input(input_message(updater, question, details))
                return
            elif isinstance(signal, _Finished):
                self._runs.pop(task_id, None)
                await run.answer.final(updater, signal.text)
                await updater.complete()
                return
            else:
                self._runs.pop(task_id, None)
                await updater.failed(_says(updater, signal.reason))
                return

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id = context.task_id or ""
        run = self._runs.pop(task_id, None)
        if run is not None and run.task is not None:
            run.task.cancel()
            await asyncio.wait([run.task])
        await TaskUpdater(event_queue, task_id, context.context_id or "").cancel()


def _says(updater: TaskUpdater, text: str) -> Message:
    return updater.new_agent_message([Part(text=text)])
