"""One run from start to finish: the task, the loop (with its output stage) and the
post-run hooks. Agent, Session, streams and sub-agent tools all run here."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from automata.core._blocks import Message
from automata.core._cost import check_max_cost_priced
from automata.core._deps import RunContext
from automata.core._errors import RunError
from automata.core._events import StreamEvent
from automata.core._guardrails import InputGuard, InputGuardrail
from automata.core._hooks import Hook, WithDeps
from automata.core._labels import NO_LABELS, RunLabels
from automata.core._limits import UsageMeter
from automata.core._loop import RunLoop, RunSettings
from automata.core._output_stage import OutputPlan, OutputStage
from automata.core._post_run import after_run
from automata.core._prompts import render_prompt
from automata.core._result import RunResult
from automata.core._run_arguments import (
    PerRun,
    RunOptions,
    Task,
    check_max_steps,
    check_run_keywords,
    check_transcript,
    new_invocation_id,
    task_message,
)
from automata.core._scope import EventSink, RunScope
from automata.core._steps import Step
from automata.core._stop import StopReason

__all__ = [
    "PerRun",
    "RunOptions",
    "RunPlan",
    "Task",
    "check_max_steps",
    "check_run_keywords",
    "check_transcript",
    "execute_run",
    "final_result",
    "new_invocation_id",
    "run_steps",
    "task_message",
]


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run's settings plus what only its start and end need: post-run hooks, input
    guardrails, and how its final answer is checked (None: the text as it is)."""

    settings: RunSettings
    post_run: tuple[Hook, ...] = ()
    output: OutputPlan | None = None
    input_guardrails: tuple[InputGuardrail[Any], ...] = ()
    labels: RunLabels = NO_LABELS
    """The agent's labels plus the run's (see `_labels`)."""
    host: Mapping[str, Any] | None = None
    """The run's host map (None: the parent run's, or none)."""


async def execute_run(
    plan: RunPlan,
    transcript: list[Message],
    task: Message,
    *,
    scope: RunScope,
    invocation_id: str,
    depth: int = 0,
    deps: Any = None,
) -> RunResult[Any]:
    """Append `task` to `transcript` and run it to the end: `run_steps` driven through."""
    return await final_result(
        run_steps(
            plan,
            transcript,
            task,
            scope=scope,
            invocation_id=invocation_id,
            depth=depth,
            deps=deps,
        )
    )


def labelled(emit: EventSink | None, labels: RunLabels) -> EventSink | None:
    """`emit` with `labels` set on each event that has none yet (a sub-agent's
    events come labelled with its own, which include its parent's); `emit` itself
    for a run without labels, so an unlabelled run pays nothing."""
    if emit is None or not labels:
        return emit
    sink = emit

    def tagged(event: StreamEvent) -> None:
        sink(replace(event, labels=labels) if not event.labels else event)

    return tagged


async def final_result(steps: AsyncGenerator[Step | RunResult[Any], None]) -> RunResult[Any]:
    """Run steps to the end and return the result they end with (L50)."""
    last: Step | RunResult[Any] | None = None
    async for last in steps:  # noqa: B007 (the last item is the result)
        pass
    assert isinstance(last, RunResult)
    return last


def run_steps(
    plan: RunPlan,
    transcript: list[Message],
    task: Message | None,
    *,
    scope: RunScope,
    invocation_id: str,
    depth: int = 0,
    deps: Any = None,
) -> AsyncGenerator[Step | RunResult[Any], None]:
    """Append `task` to `transcript` (None: continue the transcript as it is) and run
    it, yielding each committed step and, last, the `RunResult`; post-run hooks follow
    every run (also one closed at a step). The task is appended now: call this when the
    run starts."""
    limits = plan.settings.usage_limits
    if limits is not None:
        check_max_cost_priced(limits.max_cost, plan.settings.prices)
    if task is not None:
        transcript.append(task)
    if plan.labels or plan.host is not None:
        labels = scope.labels.merged(plan.labels)
        scope = replace(
            scope,
            labels=labels,
            host=scope.host if plan.host is None else plan.host,
            emit=labelled(scope.emit, labels),
        )
    if limits is not None or scope.usage is not None:
        scope = replace(scope, usage=UsageMeter(limits, scope.usage))
    if plan.input_guardrails:
        context = RunContext(deps, plan.settings.agent, invocation_id)
        scope = replace(scope, input_guard=InputGuard(plan.input_guardrails, context))
    if plan.post_run:
        plan = replace(plan, post_run=tuple(WithDeps(hook, deps) for hook in plan.post_run))
    return _loop_steps(plan, transcript, scope, invocation_id, depth, deps)


async def _add_system_prompt(
    settings: RunSettings, transcript: list[Message], invocation_id: str, deps: Any
) -> None:
    """Lead a transcript that has no system message with the dynamic prompt (L65)."""
    prompt = settings.system_prompt
    if prompt is not None and not (transcript and transcript[0].role == "system"):
        text = await render_prompt(prompt, RunContext(deps, settings.agent, invocation_id))
        if text:
            transcript.insert(0, Message.system(text))


async def _loop_steps(
    plan: RunPlan,
    transcript: list[Message],
    scope: RunScope,
    invocation_id: str,
    depth: int,
    deps: Any,
) -> AsyncGenerator[Step | RunResult[Any], None]:
    """The run's steps under its span, then its result; its post-run hooks run after
    it, whether it ended, failed or was closed early."""
    settings = plan.settings
    if settings.system_prompt is not None:
        await _add_system_prompt(settings, transcript, invocation_id, deps)
    post_run = plan.post_run
    stage = None if plan.output is None else OutputStage(plan.output, post_run, deps)
    tracing = settings.tracing
    with tracing.run(settings.agent, invocation_id, depth, scope.labels) as span:
        loop = RunLoop(settings, transcript, invocation_id, depth, scope, deps, stage)
        result: RunResult[Any] | None = None
        steps = loop.steps()
        try:
            async for item in steps:
                if isinstance(item, RunResult):
                    result = item
                else:
                    yield item
        except asyncio.CancelledError as cancel:
            await after_run(post_run, loop.result(StopReason.CANCELLED), cancel)
            raise
        except RunError as error:
            if not hasattr(error, "result"):  # every run error leaves with one (L9)
                error.result = loop.result(StopReason.ERROR)
            partial = error.result
            if stage is None or error is not stage.failed_checkpoint:
                await after_run(post_run, partial, error)
            tracing.finish_run(span, partial.usage, partial.steps, partial.stop_reason.value)
            raise
        except GeneratorExit:  # the caller stopped the run at a step (L52)
            await steps.aclose()
            await after_run(post_run, loop.result(StopReason.CANCELLED), None)
            raise
        except Exception as error:
            failed = loop.result(StopReason.ERROR)
            if hasattr(error, "result"):
                failed = getattr(error, "result", None) or failed
            await after_run(post_run, failed, error)
            raise
        except BaseException as stop:  # KeyboardInterrupt or SystemExit from a tool (L44)
            await after_run(post_run, loop.result(StopReason.ERROR), stop)
            raise
        assert result is not None
        try:
            await after_run(post_run, result, None)
        except RunError:  # HookError: the run is still recorded as it went
            tracing.finish_run(span, result.usage, result.steps, result.stop_reason.value)
            raise
        tracing.finish_run(span, result.usage, result.steps, result.stop_reason.value)
    yield result
