"""The run surface: `iter`, `run`, `run_sync` and `stream`, written once.

`Agent` and `Session` inherit them; each says only how a run is planned (from which
agent) and where its transcript comes from (a fresh one, or the conversation's). Every
form is the same steps (`iter`): `run` drives them to the end, `stream` drives them in
a task of its own and delivers their events.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Callable
from typing import Any, ClassVar, Generic, TypeVar, Unpack, overload

from automata.core._blocks import Message
from automata.core._deps import DepsT
from automata.core._errors import ArgumentTypeError, EventLoopRunningError
from automata.core._events import StreamEvent
from automata.core._iter import EventListener, RunSteps
from automata.core._result import RunResult
from automata.core._runner import (
    PerRun,
    RunOptions,
    RunPlan,
    Task,
    check_run_keywords,
    final_result,
    new_invocation_id,
    task_message,
)
from automata.core._scope import EventSink, RunScope
from automata.core._steps import Step
from automata.core._stream import RunStream

__all__ = ["RunSurface"]

T = TypeVar("T")


class RunSurface(ABC, Generic[DepsT]):
    """`iter`, `run`, `run_sync` and `stream` over two steps a subclass supplies:
    `_plan_run` (per-run keywords over its agent's settings) and `_steps` (the run
    itself, on the transcript it owns, step by step). Arguments are checked before
    anything runs, and errors name the public method (`Agent.run`, `Session.stream`,
    ...)."""

    __slots__ = ()

    _surface_name: ClassVar[str]
    """How users name an instance in code: `agent`, `session`."""

    @abstractmethod
    def _plan_run(self, options: PerRun) -> RunPlan:
        """Resolve a run's options into a plan."""

    @abstractmethod
    def _steps(
        self,
        plan: RunPlan,
        task: Message | None,
        scope: RunScope,
        invocation_id: str,
        deps: Any,
    ) -> AsyncGenerator[Step | RunResult[Any], None]:
        """Run `task` under `plan` on this surface's transcript: each committed step,
        then the result."""

    async def _start_run(
        self,
        plan: RunPlan,
        task: Message | None,
        scope: RunScope,
        invocation_id: str,
        deps: Any,
    ) -> RunResult[Any]:
        return await final_result(self._steps(plan, task, scope, invocation_id, deps))

    def _task_message(self, task: object, method: str) -> Message | None:
        """The message `task` becomes (None: continue without one, sessions only)."""
        return task_message(task, method)

    def _prepare(
        self, method: str, task: Task | None, output_type: type[Any] | None, per_run: RunOptions
    ) -> tuple[RunPlan, Message | None]:
        name = f"{type(self).__name__}.{method}"
        check_run_keywords(name, per_run)
        message = self._task_message(task, name)
        return self._plan_run(PerRun.of(output_type, per_run)), message

    @overload
    async def run(
        self,
        task: Task | None,
        *,
        output_type: None = None,
        deps: DepsT = ...,
        **per_run: Unpack[RunOptions],
    ) -> RunResult[str]: ...

    @overload
    async def run(
        self,
        task: Task | None,
        *,
        output_type: type[T],
        deps: DepsT = ...,
        **per_run: Unpack[RunOptions],
    ) -> RunResult[T]: ...

    async def run(
        self,
        task: Task | None,
        *,
        output_type: type[Any] | None = None,
        deps: Any = None,
        **per_run: Unpack[RunOptions],
    ) -> RunResult[Any]:
        """Run `task` to an answer: an agent on a fresh transcript, a session as the next
        turn of its conversation.

        `task` is a string, a list of blocks or a user `Message`; on a session, None
        continues an interrupted run without adding a message (L53). Per-run keywords
        (`RunOptions`, docs/loop.md L4) apply to this run only.
        `deps` is handed to the run's tools and dynamic prompts (L62).

        `output_type` asks for typed output, returned as `result.output`. Accepted: a
        pydantic model, a dataclass or a TypedDict (the model fills its fields), or any
        other type pydantic can validate and describe in JSON (`int`, `list[str]`, a
        `Literal`, an `Enum`, ...), which the model gives wrapped as `{"result": ...}`.
        Any other type raises `ArgumentTypeError` here, before the run starts.

        Raises `RunError` subclasses (with the partial result as `.result`) or
        `ProviderError`; bad arguments raise `ArgumentTypeError` or
        `InvalidArgumentError` before anything runs.
        """
        plan, message = self._prepare("run", task, output_type, per_run)
        return await self._start_run(plan, message, RunScope(), new_invocation_id(), deps)

    @overload
    def run_sync(
        self,
        task: Task | None,
        *,
        output_type: None = None,
        deps: DepsT = ...,
        **per_run: Unpack[RunOptions],
    ) -> RunResult[str]: ...

    @overload
    def run_sync(
        self,
        task: Task | None,
        *,
        output_type: type[T],
        deps: DepsT = ...,
        **per_run: Unpack[RunOptions],
    ) -> RunResult[T]: ...

    def run_sync(
        self,
        task: Task | None,
        *,
        output_type: type[Any] | None = None,
        deps: Any = None,
        **per_run: Unpack[RunOptions],
    ) -> RunResult[Any]:
        """`run` for code without an event loop (it starts one). Where a loop is already
        running (a notebook, an async web handler) it raises `EventLoopRunningError`
        saying to `await` `run` instead."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            kind = type(self).__name__
            raise EventLoopRunningError(
                f"{kind}.run_sync() cannot be called while an event loop is running "
                f"(as in a notebook or an async web handler); "
                f"use `await {self._surface_name}.run(...)` instead"
            )
        plan, message = self._prepare("run_sync", task, output_type, per_run)
        return asyncio.run(self._start_run(plan, message, RunScope(), new_invocation_id(), deps))

    @overload
    def stream(
        self,
        task: Task | None,
        *,
        output_type: None = None,
        deps: DepsT = ...,
        **per_run: Unpack[RunOptions],
    ) -> RunStream[str]: ...

    @overload
    def stream(
        self,
        task: Task | None,
        *,
        output_type: type[T],
        deps: DepsT = ...,
        **per_run: Unpack[RunOptions],
    ) -> RunStream[T]: ...

    def stream(
        self,
        task: Task | None,
        *,
        output_type: type[Any] | None = None,
        deps: Any = None,
        **per_run: Unpack[RunOptions],
    ) -> RunStream[Any]:
        """Run `task` and stream its events (see `RunStream` and docs/streaming.md).
        Takes the same arguments as `run`, checked here before anything runs; the run
        starts when the stream is first iterated."""
        plan, message = self._prepare("stream", task, output_type, per_run)
        invocation_id = new_invocation_id()

        async def start(emit: EventSink) -> RunResult[Any]:
            return await self._start_run(plan, message, RunScope(emit=emit), invocation_id, deps)

        return RunStream(start)

    @overload
    def iter(
        self,
        task: Task | None,
        *,
        output_type: None = None,
        deps: DepsT = ...,
        invocation_id: str | None = None,
        on_event: Callable[[StreamEvent], None] | None = None,
        **per_run: Unpack[RunOptions],
    ) -> RunSteps[str]: ...

    @overload
    def iter(
        self,
        task: Task | None,
        *,
        output_type: type[T],
        deps: DepsT = ...,
        invocation_id: str | None = None,
        on_event: Callable[[StreamEvent], None] | None = None,
        **per_run: Unpack[RunOptions],
    ) -> RunSteps[T]: ...

    def iter(
        self,
        task: Task | None,
        *,
        output_type: type[Any] | None = None,
        deps: Any = None,
        invocation_id: str | None = None,
        on_event: Callable[[StreamEvent], None] | None = None,
        **per_run: Unpack[RunOptions],
    ) -> RunSteps[Any]:
        """Run `task` one committed step at a time: an async iterator (and async context
        manager) of `ModelStep`s and `ToolStep`s, each with the transcript so far as
        `.messages`; `.result` holds the `RunResult` after the last step (see
        `RunSteps` and docs/loop.md). Takes the same arguments as `run`, checked here
        before anything runs; the run starts when the first step is asked for.
        `invocation_id` names the run (`step.run.invocation_id`, `ToolContext`,
        spans) instead of a fresh id, so a durable runtime that resumes a run keeps
        its name; it must be a non-empty string.

        `on_event`, a plain function, is called with each of the run's stream events
        (those `stream` yields, sub-agents' included) as it happens, while the run
        makes its way to the next step; the provider is then called in streaming
        mode. If it raises, the run stops at the next step boundary with
        `EventCallbackError` (docs/loop.md, L89).

            async with agent.iter("Plan the trip") as steps:
                async for step in steps:
                    save(dump_messages(step.messages))
            print(steps.result.output)
        """
        plan, message = self._prepare("iter", task, output_type, per_run)
        if invocation_id is None:
            invocation_id = new_invocation_id()
        elif not isinstance(invocation_id, str) or not invocation_id:
            raise ArgumentTypeError(
                f"{type(self).__name__}.iter() needs invocation_id to be a non-empty "
                f"string, got {invocation_id!r}"
            )
        if on_event is not None and not callable(on_event):
            raise ArgumentTypeError(
                f"{type(self).__name__}.iter() needs on_event to be a function taking a "
                f"stream event, got {on_event!r}"
            )
        run_id = invocation_id
        listener = None if on_event is None else EventListener(on_event)
        scope = RunScope(emit=listener)
        return RunSteps(lambda: self._steps(plan, message, scope, run_id, deps), listener)
