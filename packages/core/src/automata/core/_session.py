"""`Session`: a conversation with an agent that continues across runs.

Each run appends to the session's transcript as it goes, so the transcript holds
everything that happened even when a run fails or is cancelled, with a result for
every tool call. A session runs one task at a time.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from automata.core._blocks import Message
from automata.core._deps import DepsT
from automata.core._errors import AutomataError, InvalidArgumentError
from automata.core._handoffs import SystemSwap
from automata.core._result import RunResult
from automata.core._run_arguments import pending_calls
from automata.core._runner import (
    PerRun,
    RunPlan,
    check_transcript,
    run_steps,
    task_message,
)
from automata.core._scope import RunScope
from automata.core._steps import Step
from automata.core._surface import RunSurface

if TYPE_CHECKING:
    from automata.core._agent import Agent

__all__ = ["Session", "SessionBusyError"]


class SessionBusyError(AutomataError, RuntimeError):
    """A session was asked to run while one of its runs was still going."""


class Session(RunSurface[DepsT]):
    """A multi-turn conversation. `messages` is a copy of the transcript, system
    message first; persist it with `dump_messages` and resume with
    `agent.session(messages=load_messages(...))`. `iter`, `run`, `run_sync` and
    `stream` take the same arguments as the agent's and continue the conversation.

    `agent` is the agent the conversation is with: the one it was started from, until a
    run hands it to another (L82); later runs are that agent's, sent with its system
    prompt in place of the transcript's (which stays the first agent's)."""

    _surface_name = "session"

    def __init__(self, agent: Agent[DepsT], messages: Sequence[Message] = ()) -> None:
        self.agent = agent
        self._transcript = agent._start_transcript(check_transcript(messages))
        self._busy = False
        self._handed_off = False

    @property
    def messages(self) -> list[Message]:
        """A copy of the transcript; changing it does not change the session."""
        return list(self._transcript)

    def _check_idle(self) -> None:
        if self._busy:
            raise SessionBusyError("this session is already running a task")

    def _claim(self) -> None:
        self._check_idle()
        self._busy = True

    def _task_message(self, task: object, method: str) -> Message | None:
        self._check_idle()  # a running task's transcript is not the one to judge
        pending = pending_calls(self._transcript)
        if task is not None:
            if pending:
                raise InvalidArgumentError(
                    f"{method}() got a task, but the conversation ends with "
                    f"{len(pending)} tool call(s) that have no results; continue it first "
                    f"with {method}(None), which runs them (L88)"
                )
            return task_message(task, method)
        last = self._transcript[-1] if self._transcript else None
        if pending:
            return None
        if last is None or last.role not in ("user", "tool"):
            found = "is empty" if last is None else "ends with an answer"
            raise InvalidArgumentError(
                f"{method}() got no task, and the conversation {found}: there is no "
                "interrupted run to continue; pass a task"
            )
        return None

    def _plan_run(self, options: PerRun) -> RunPlan:
        plan = self.agent._plan(options)
        if not self._handed_off:
            return plan
        swap = SystemSwap(self.agent.system_prompt)
        return replace(plan, settings=replace(plan.settings, system_prompt=None, system_swap=swap))

    def _follow(self, target: Any) -> None:
        """A run handed the conversation to `target`: later runs are its."""
        self.agent = target
        self._handed_off = True

    async def _steps(
        self,
        plan: RunPlan,
        task: Message | None,
        scope: RunScope,
        invocation_id: str,
        deps: Any,
    ) -> AsyncGenerator[Step | RunResult[Any], None]:
        self._claim()
        try:
            steps = run_steps(
                plan,
                self._transcript,
                task,
                scope=replace(scope, on_handoff=self._follow),
                invocation_id=invocation_id,
                deps=deps,
            )
            try:
                async for item in steps:
                    yield item
            except GeneratorExit:
                await steps.aclose()
                raise
        finally:
            self._busy = False
