"""`Session`: a conversation with an agent that continues across runs.

Each run appends to the session's transcript as it goes, so the transcript holds
everything that happened even when a run fails or is cancelled, with a result for
every tool call. A session runs one task at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from automata.core._blocks import Message
from automata.core._errors import AutomataError
from automata.core._result import RunResult
from automata.core._runner import RunOptions, RunPlan, check_transcript, execute_run
from automata.core._scope import RunScope
from automata.core._surface import RunSurface

if TYPE_CHECKING:
    from automata.core._agent import Agent

__all__ = ["Session", "SessionBusyError"]


class SessionBusyError(AutomataError, RuntimeError):
    """A session was asked to run while one of its runs was still going."""


class Session(RunSurface):
    """A multi-turn conversation. `messages` is a copy of the transcript, system
    message first; persist it with `dump_messages` and resume with
    `agent.session(messages=load_messages(...))`. `run`, `run_sync` and `stream` take
    the same arguments as the agent's and continue the conversation."""

    _surface_name = "session"

    def __init__(self, agent: Agent, messages: Sequence[Message] = ()) -> None:
        self.agent = agent
        self._transcript = agent._start_transcript(check_transcript(messages))
        self._busy = False

    @property
    def messages(self) -> list[Message]:
        """A copy of the transcript; changing it does not change the session."""
        return list(self._transcript)

    def _claim(self) -> None:
        if self._busy:
            raise SessionBusyError("this session is already running a task")
        self._busy = True

    def _plan_run(self, output_type: type[Any] | None, options: RunOptions) -> RunPlan:
        return self.agent._plan(output_type=output_type, **options)

    async def _start_run(
        self, plan: RunPlan, task: Message, scope: RunScope, invocation_id: str
    ) -> RunResult[Any]:
        self._claim()
        try:
            return await execute_run(
                plan, self._transcript, task, scope=scope, invocation_id=invocation_id
            )
        finally:
            self._busy = False
