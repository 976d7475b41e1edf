"""`Session`: a conversation with an agent that continues across runs.

Each run appends to the session's transcript as it goes, so the transcript holds
everything that happened even when a run fails or is cancelled, with a result for
every tool call. A session runs one task at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar, Unpack, overload

from automata.core._blocks import Message
from automata.core._errors import AutomataError
from automata.core._loop import EventSink, RunScope
from automata.core._result import RunResult
from automata.core._runner import (
    RunOptions,
    Task,
    check_transcript,
    execute_run,
    new_invocation_id,
    task_message,
)
from automata.core._stream import RunStream

if TYPE_CHECKING:
    from automata.core._agent import Agent

__all__ = ["Session", "SessionBusyError"]

T = TypeVar("T")


class SessionBusyError(AutomataError, RuntimeError):
    """A session was asked to run while one of its runs was still going."""


class Session:
    """A multi-turn conversation. `messages` is a copy of the transcript, system
    message first; persist it with `dump_messages` and resume with
    `agent.session(messages=load_messages(...))`."""

    def __init__(self, agent: Agent, messages: Sequence[Message] = ()) -> None:
        self.agent = agent
        self._transcript = agent.start_transcript(check_transcript(messages))
        self._busy = False

    @property
    def messages(self) -> list[Message]:
        """A copy of the transcript; changing it does not change the session."""
        return list(self._transcript)

    def _claim(self) -> None:
        if self._busy:
            raise SessionBusyError("this session is already running a task")
        self._busy = True

    @overload
    async def run(
        self, task: Task, *, output_type: None = None, **per_run: Unpack[RunOptions]
    ) -> RunResult[str]: ...

    @overload
    async def run(
        self, task: Task, *, output_type: type[T], **per_run: Unpack[RunOptions]
    ) -> RunResult[T]: ...

    async def run(
        self, task: Task, *, output_type: type[Any] | None = None, **per_run: Unpack[RunOptions]
    ) -> RunResult[Any]:
        """Continue the conversation with `task` (same keywords as `Agent.run`)."""
        message = task_message(task)
        plan = self.agent.plan(output_type=output_type, **per_run)
        self._claim()
        try:
            return await execute_run(
                plan,
                self._transcript,
                message,
                scope=RunScope(),
                invocation_id=new_invocation_id(),
            )
        finally:
            self._busy = False

    @overload
    def run_sync(
        self, task: Task, *, output_type: None = None, **per_run: Unpack[RunOptions]
    ) -> RunResult[str]: ...

    @overload
    def run_sync(
        self, task: Task, *, output_type: type[T], **per_run: Unpack[RunOptions]
    ) -> RunResult[T]: ...

    def run_sync(
        self, task: Task, *, output_type: type[Any] | None = None, **per_run: Unpack[RunOptions]
    ) -> RunResult[Any]:
        """`run` for code without an event loop (it starts one)."""
        return asyncio.run(self.run(task, output_type=output_type, **per_run))

    @overload
    def stream(
        self, task: Task, *, output_type: None = None, **per_run: Unpack[RunOptions]
    ) -> RunStream[str]: ...

    @overload
    def stream(
        self, task: Task, *, output_type: type[T], **per_run: Unpack[RunOptions]
    ) -> RunStream[T]: ...

    def stream(
        self, task: Task, *, output_type: type[Any] | None = None, **per_run: Unpack[RunOptions]
    ) -> RunStream[Any]:
        """Continue the conversation with `task`, streaming its events."""
        message = task_message(task)
        plan = self.agent.plan(output_type=output_type, **per_run)
        invocation_id = new_invocation_id()

        async def start(emit: EventSink) -> RunResult[Any]:
            self._claim()
            try:
                return await execute_run(
                    plan,
                    self._transcript,
                    message,
                    scope=RunScope(emit=emit),
                    invocation_id=invocation_id,
                )
            finally:
                self._busy = False

        return RunStream(start)
