"""One run from start to finish: the task, the loop (or the typed sequence of loops),
and the post-run hooks. Agent, Session, streams and sub-agent tools all run here."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from contextlib import AbstractContextManager, aclosing, nullcontext
from dataclasses import dataclass, replace
from typing import Any

from automata.core._batch import error_text
from automata.core._blocks import (
    Message,
)
from automata.core._deps import RunContext
from automata.core._errors import (
    HookError,
    InvalidStructuredOutputError,
    ModelRetry,
    OutputRetriesExceededError,
    RunError,
)
from automata.core._guardrails import InputGuard, InputGuardrail, OutputGuardrail, check_output
from automata.core._hooks import Hook, WithDeps
from automata.core._limits import UsageMeter
from automata.core._loop import LoopOutcome, RunLoop, RunSettings
from automata.core._model_retry import ToolRetries
from automata.core._options import CallOptions
from automata.core._output_validators import OutputValidator, validate_output
from automata.core._prompts import render_prompt
from automata.core._result import RunResult
from automata.core._run_arguments import (
    RunOptions,
    Task,
    check_max_steps,
    check_run_keywords,
    check_transcript,
    new_invocation_id,
    task_message,
)
from automata.core._scope import RunScope
from automata.core._steps import Step
from automata.core._stop import StopReason
from automata.core._structured import StructuredAttempt, StructuredOutput
from automata.core._usage import Usage

__all__ = [
    "RunOptions",
    "RunPlan",
    "Task",
    "check_max_steps",
    "check_run_keywords",
    "check_transcript",
    "drive",
    "execute_run",
    "new_invocation_id",
    "run_steps",
    "task_message",
]


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run's settings plus what only typed runs and hooks need."""

    settings: RunSettings
    post_run: tuple[Hook, ...] = ()
    structured: StructuredOutput[Any] | None = None
    max_correction_turns: int = 1
    native_structured_output: bool = False
    output_validators: tuple[OutputValidator[Any, Any], ...] = ()
    input_guardrails: tuple[InputGuardrail[Any], ...] = ()
    output_guardrails: tuple[OutputGuardrail[Any], ...] = ()


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
    return await drive(
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


async def drive(steps: AsyncGenerator[Step | RunResult[Any], None]) -> RunResult[Any]:
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
    if task is not None:
        transcript.append(task)
    limits = plan.settings.usage_limits
    if limits is not None or scope.usage is not None:
        scope = replace(scope, usage=UsageMeter(limits, scope.usage))
    if plan.input_guardrails:
        context = RunContext(deps, plan.settings.agent, invocation_id)
        scope = replace(scope, input_guard=InputGuard(plan.input_guardrails, context))
    if plan.post_run:
        plan = replace(plan, post_run=tuple(WithDeps(hook, deps) for hook in plan.post_run))
    if plan.structured is None and not plan.output_validators and not plan.output_guardrails:
        # traced: the loop ends with the RunResult, never a LoopOutcome
        return _loop_steps(  # type: ignore[return-value]
            plan, plan.settings, transcript, scope, invocation_id, depth, deps, traced=True
        )
    sequence = _typed_steps if plan.structured is not None else _validated_text_steps
    return _run_of_loops(sequence, plan, transcript, scope, invocation_id, depth, deps)


_LoopSequence = Callable[
    [RunPlan, list[Message], RunScope, str, int, Any],
    AsyncGenerator[Step | RunResult[Any], None],
]


async def _run_of_loops(
    sequence: _LoopSequence,
    plan: RunPlan,
    transcript: list[Message],
    scope: RunScope,
    invocation_id: str,
    depth: int,
    deps: Any,
) -> AsyncGenerator[Step | RunResult[Any], None]:
    """A sequence of loops (typed output, or text with validators) under one run span."""
    tracing = plan.settings.tracing
    with tracing.run(plan.settings.agent, invocation_id, depth) as span:
        inner = sequence(plan, transcript, scope, invocation_id, depth, deps)
        try:
            async for item in inner:
                if isinstance(item, RunResult):
                    result: RunResult[Any] = item
                else:
                    yield item
        except RunError as error:
            if error.result is not None:
                partial = error.result
                tracing.finish_run(span, partial.usage, partial.steps, partial.stop_reason.value)
            raise
        except GeneratorExit:
            await inner.aclose()
            raise
        tracing.finish_run(span, result.usage, result.steps, result.stop_reason.value)
    yield result


async def _add_system_prompt(
    settings: RunSettings, transcript: list[Message], invocation_id: str, deps: Any
) -> None:
    """Lead a transcript that has no system message with the dynamic prompt (L65)."""
    prompt = settings.system_prompt
    if prompt is not None and not (transcript and transcript[0].role == "system"):
        text = await render_prompt(prompt, RunContext(deps, settings.agent, invocation_id))
        if text:
            transcript.insert(0, Message.system(text))


_UNTRACED = nullcontext(None)


async def _loop_steps(
    plan: RunPlan,
    settings: RunSettings,
    transcript: list[Message],
    scope: RunScope,
    invocation_id: str,
    depth: int,
    deps: Any,
    *,
    finish: bool = True,
    traced: bool = False,
    retries: ToolRetries | None = None,
) -> AsyncGenerator[Step | LoopOutcome | RunResult[Any], None]:
    """One loop's steps, then its outcome; its post-run hooks run after it (when
    `finish`, or when it fails or is closed early). `traced`: the loop is the whole
    run, under its own run span, and ends with the `RunResult` instead."""
    if settings.system_prompt is not None:
        await _add_system_prompt(settings, transcript, invocation_id, deps)
    tracing = settings.tracing
    span_scope: AbstractContextManager[Any] = (
        tracing.run(settings.agent, invocation_id, depth) if traced else _UNTRACED
    )
    with span_scope as span:
        loop = RunLoop(settings, transcript, invocation_id, depth, scope, deps, retries)
        outcome: LoopOutcome | None = None
        steps = loop.steps()
        try:
            async for item in steps:
                if isinstance(item, LoopOutcome):
                    outcome = item
                else:
                    yield item
        except asyncio.CancelledError as cancel:
            await _after_run(plan.post_run, loop.result(StopReason.CANCELLED), cancel)
            raise
        except RunError as error:
            result = error.result if error.result is not None else loop.result(StopReason.ERROR)
            await _after_run(plan.post_run, result, error)
            if traced:
                tracing.finish_run(span, result.usage, result.steps, result.stop_reason.value)
            raise
        except GeneratorExit:  # the caller stopped the run at a step (L52)
            await steps.aclose()
            await _after_run(plan.post_run, loop.result(StopReason.CANCELLED), None)
            raise
        except Exception as error:
            result = loop.result(StopReason.ERROR)
            if hasattr(error, "result"):
                result = getattr(error, "result", None) or result
            await _after_run(plan.post_run, result, error)
            raise
        except BaseException as stop:  # KeyboardInterrupt or SystemExit from a tool (L44)
            await _after_run(plan.post_run, loop.result(StopReason.ERROR), stop)
            raise
        assert outcome is not None
        result = outcome.result
        if finish:
            try:
                await _after_run(plan.post_run, result, None)
            except RunError:  # HookError: the run is still recorded as it went
                if traced:
                    tracing.finish_run(span, result.usage, result.steps, result.stop_reason.value)
                raise
        if traced:
            tracing.finish_run(span, result.usage, result.steps, result.stop_reason.value)
    yield result if traced else outcome


async def _after_run(
    hooks: tuple[Hook, ...], result: RunResult[Any], error: BaseException | None
) -> None:
    """Run post-run hooks in order, shielded from the run's cancellation, and raise
    their errors together with the run's without losing the result."""
    if not hooks:
        return
    task = asyncio.ensure_future(_call_hooks(hooks, result, error))
    cancelled = False
    while True:
        try:
            failures = await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            if task.done():
                failures = task.result()
                break
            cancelled = True
    if cancelled and error is None:
        raise asyncio.CancelledError
    if not failures:
        return
    if error is None:
        raise HookError(
            f"{len(failures)} post-run hook(s) failed: "
            + "; ".join(f"{type(f).__name__}: {f}" for f in failures),
            result,
            failures,
        ) from failures[0]
    if isinstance(error, Exception):
        raise ExceptionGroup("run failed and post-run hooks failed", [error, *failures])
    for failure in failures:
        error.add_note(f"post-run hook failed: {type(failure).__name__}: {failure}")


async def _call_hooks(
    hooks: tuple[Hook, ...], result: RunResult[Any], error: BaseException | None
) -> list[Exception]:
    failures: list[Exception] = []
    for hook in hooks:
        try:
            await hook.after_run(result, error)
        except Exception as exc:
            failures.append(exc)
    return failures


_CORRECTION = (
    "Your structured output did not match the schema: {violations}. "
    "Call the automata_structured_output tool again with corrected arguments."
)
_FORCE = "Give your final answer now by calling the automata_structured_output tool."


class _Passes:
    """The loop passes of one run that may take several (typed corrections, validator
    retries): their usage and steps summed, and the outcome of the latest pass."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.steps = 0
        self._outcome: LoopOutcome | None = None

    @property
    def outcome(self) -> LoopOutcome:
        assert self._outcome is not None, "no pass has finished"
        return self._outcome

    async def relay(
        self, loop_steps: AsyncGenerator[Step | LoopOutcome | RunResult[Any], None]
    ) -> AsyncGenerator[Step, None]:
        """One pass's steps, passed on; its outcome is kept and its totals added. A
        pass that fails carries the totals of the passes before it in its result."""
        self._outcome = None
        try:
            async for item in loop_steps:
                if isinstance(item, LoopOutcome):
                    self._outcome = item
                elif not isinstance(item, RunResult):  # finish=False: never a RunResult
                    yield item
        except GeneratorExit:
            await loop_steps.aclose()
            raise
        except RunError as error:
            if error.result is not None:
                error.result = replace(
                    error.result,
                    usage=self.usage + error.result.usage,
                    steps=self.steps + error.result.steps,
                )
            raise
        self.usage = self.usage + self.outcome.result.usage
        self.steps += self.outcome.result.steps

    def partial(self) -> RunResult[Any]:
        """The latest pass's result with the run's totals so far."""
        return replace(self.outcome.result, usage=self.usage, steps=self.steps)


async def _typed_steps(
    plan: RunPlan,
    transcript: list[Message],
    scope: RunScope,
    invocation_id: str,
    depth: int,
    deps: Any,
) -> AsyncGenerator[Step | RunResult[Any], None]:
    """The typed sequence: the first attempt, up to `max_correction_turns` corrections,
    then one turn forced to call the hidden tool. Every underlying run is one loop with
    its own post-run hooks; usage and steps are summed over all of them."""
    structured = plan.structured
    assert structured is not None
    base = plan.settings
    native = plan.native_structured_output and base.provider.supports_native_output
    corrections_left = plan.max_correction_turns
    forced = False
    violations: list[str] = []
    passes = _Passes()
    retries = ToolRetries()
    while True:
        settings = _typed_settings(base, structured, native=native, forced=forced)
        loop_steps = _loop_steps(
            plan,
            settings,
            transcript,
            scope,
            invocation_id,
            depth,
            deps,
            finish=False,
            retries=retries,
        )
        async with aclosing(passes.relay(loop_steps)) as relayed:
            async for item in relayed:
                yield item
        if passes.outcome.handoff_base is not None:  # later passes go on with the new agent
            base = passes.outcome.handoff_base
            native = native and base.provider.supports_native_output
        attempt = passes.outcome.attempt or StructuredAttempt(found=False)
        partial = passes.partial()
        if attempt.ok:
            # The answer came (often through the hidden tool): the run ended its turn.
            partial = replace(partial, stop_reason=StopReason.END_TURN)
            context = RunContext(deps, base.agent, invocation_id)
            try:
                value = await _validated(plan, context, attempt.value, partial, corrections_left)
            except ModelRetry as retry:
                corrections_left -= 1
                transcript.append(Message.user(error_text(retry)))
                continue
            result: RunResult[Any] = replace(partial, output=value)
            await _after_run(plan.post_run, result, None)
            yield result
            return
        violations.extend(v for v in attempt.violations if v not in violations)
        if forced:
            invalid = InvalidStructuredOutputError(
                "structured output never validated: " + "; ".join(violations),
                partial,
                violations=violations,
            )
            await _after_run(plan.post_run, partial, invalid)
            raise invalid
        await _after_run(plan.post_run, partial, None)
        if native:
            native = False  # an unusable native payload falls back to the tool once
            follow_up = _FORCE
        elif attempt.found and corrections_left > 0:
            corrections_left -= 1
            follow_up = _CORRECTION.format(violations="; ".join(attempt.violations))
        else:
            forced = True
            follow_up = _FORCE
        transcript.append(Message.user(follow_up))


async def _validated(
    plan: RunPlan,
    context: RunContext[Any],
    value: Any,
    partial: RunResult[Any],
    corrections_left: int,
) -> Any:
    """`value` through the plan's output validators (L69), then its output guardrails
    (L76). A `ModelRetry` with a
    correction turn left is re-raised for the caller to ask again, after the loop's
    post-run hooks; without one the run fails with `OutputRetriesExceededError` (L70).
    Any other error a validator raises fails the run as itself (L72)."""
    if not plan.output_validators and not plan.output_guardrails:
        return value
    try:
        value = await validate_output(plan.output_validators, context, value)
        if plan.output_guardrails:
            try:
                await check_output(plan.output_guardrails, context, value)
            except RunError as stopped:
                stopped.result = replace(partial, output=value, stop_reason=StopReason.ERROR)
                raise
        return value
    except ModelRetry as retry:
        if corrections_left > 0:
            await _after_run(plan.post_run, partial, None)
            raise
        failed = replace(partial, stop_reason=StopReason.ERROR)
        error = OutputRetriesExceededError(
            "output validator asked the model to try again with no correction turn left "
            f"(max_correction_turns={plan.max_correction_turns}): {error_text(retry)}",
            failed,
            retry_message=error_text(retry),
        )
        await _after_run(plan.post_run, failed, error)
        raise error from retry
    except RunError as error:
        await _after_run(plan.post_run, error.result or partial, error)
        raise
    except Exception as error:
        await _after_run(plan.post_run, partial, error)
        raise


async def _validated_text_steps(
    plan: RunPlan,
    transcript: list[Message],
    scope: RunScope,
    invocation_id: str,
    depth: int,
    deps: Any,
) -> AsyncGenerator[Step | RunResult[Any], None]:
    """An untyped run with output validators: a loop, its text through the validators,
    and on `ModelRetry` a correction turn (the validator's message as a user message)
    while `max_correction_turns` lasts. Usage and steps are summed over the loops."""
    corrections_left = plan.max_correction_turns
    retries = ToolRetries()
    passes = _Passes()
    settings = plan.settings
    while True:
        loop_steps = _loop_steps(
            plan,
            settings,
            transcript,
            scope,
            invocation_id,
            depth,
            deps,
            finish=False,
            retries=retries,
        )
        async with aclosing(passes.relay(loop_steps)) as relayed:
            async for item in relayed:
                yield item
        if passes.outcome.handoff_base is not None:  # later passes go on with the new agent
            settings = passes.outcome.handoff_base
        partial = passes.partial()
        context = RunContext(deps, settings.agent, invocation_id)
        try:
            value = await _validated(plan, context, partial.output, partial, corrections_left)
        except ModelRetry as retry:
            corrections_left -= 1
            transcript.append(Message.user(error_text(retry)))
            continue
        result = replace(partial, output=value)
        await _after_run(plan.post_run, result, None)
        yield result
        return


def _typed_settings(
    base: RunSettings, structured: StructuredOutput[Any], *, native: bool, forced: bool
) -> RunSettings:
    if native:
        return replace(base, structured=structured, output_schema=structured.output_schema)
    options = base.options
    if forced:
        options = options.merged(CallOptions(tool_choice=structured.tool_name))
    return replace(
        base,
        structured=structured,
        tool_specs=(*base.tool_specs, structured.spec),
        options=options,
    )
