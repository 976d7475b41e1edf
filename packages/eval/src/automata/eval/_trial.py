"""One trial: build the agent in a fresh workspace, run the case's task, grade it.

Whatever goes wrong inside a trial (the factory, the provider, the agent, a timeout, a
cancellation from within) ends up in `TrialResult.failure` and `error`; only a
cancellation of the evaluation itself propagates.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from automata.core import (
    Agent,
    IncompleteResponseError,
    ProviderError,
    ProviderTimeoutError,
    RunResult,
)
from automata.eval._graders import grade
from automata.eval._judge import Judge
from automata.eval._model import Case, JudgeScore, TrialFailure, TrialResult
from automata.eval._observation import Observation
from automata.eval._sandbox import Sandbox, TrialContext
from automata.eval._transcript import summarize, tool_call_records

__all__ = ["AgentFactory", "TrialSettings", "run_trial"]

AgentFactory = Callable[[TrialContext], "Agent[Any] | Awaitable[Agent[Any]]"]
"""Builds the agent under test for one trial (sync or async)."""


@dataclass(frozen=True, slots=True)
class TrialSettings:
    """What every trial of a run shares."""

    sandbox: Sandbox
    timeout: float | None = None
    model: str | None = None
    judge: Judge | None = None


def _classify(error: BaseException, timed_out: bool) -> TrialFailure:
    if timed_out or isinstance(error, ProviderTimeoutError):
        return "timeout"
    if isinstance(error, asyncio.CancelledError):
        return "cancelled"
    if isinstance(error, ProviderError | IncompleteResponseError):
        return "provider_error"
    return "agent_error"


def _text(output: object) -> str:
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    if isinstance(output, BaseModel):
        return output.model_dump_json()
    return str(output)


def _passed(case: Case, failure: TrialFailure | None) -> bool:
    """A trial that did not run to its end fails, except an agent error in a case that
    expects no completion (`completes: false`, e.g. a tripped guardrail)."""
    return failure is None or (failure == "agent_error" and not case.expect.completes)


async def _build(factory: AgentFactory, context: TrialContext) -> Agent[Any]:
    built = factory(context)
    if inspect.isawaitable(built):
        built = await built
    return built


class _TrialTimeout(Exception):
    """The trial's own time limit ran out (not some TimeoutError from within)."""


async def _run(agent: Agent[Any], task: str, seconds: float | None) -> RunResult[Any]:
    limit = asyncio.timeout(seconds)
    try:
        async with limit:
            return await agent.run(task)
    except TimeoutError as error:
        if limit.expired():
            raise _TrialTimeout from error
        raise


async def run_trial(
    case: Case, trial: int, factory: AgentFactory, settings: TrialSettings
) -> TrialResult:
    """Run trial number `trial` of `case` and grade it (never raises, except when the
    evaluation itself is cancelled)."""
    async with settings.sandbox.workspace(case, trial) as workspace:
        context = TrialContext(
            case=case,
            trial=trial,
            workspace=workspace,
            model=settings.model,
            backend=settings.sandbox.backend,
        )
        result: RunResult[Any] | None = None
        model = settings.model
        failure: TrialFailure | None = None
        error_text: str | None = None
        started = time.perf_counter()
        try:
            agent = await _build(factory, context)
            model = agent.provider.model or settings.model
            started = time.perf_counter()
            result = await _run(agent, case.task, settings.timeout)
        except asyncio.CancelledError as error:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            failure, error_text = _classify(error, False), "cancelled"
        except _TrialTimeout as error:
            failure = _classify(error, True)
            error_text = f"no answer within {settings.timeout} s"
        except Exception as error:
            failure = _classify(error, False)
            error_text = f"{type(error).__name__}: {error}"
            partial = getattr(error, "result", None)
            result = partial if isinstance(partial, RunResult) else None
        latency_ms = (time.perf_counter() - started) * 1000
        messages = result.messages if result is not None else ()
        calls = tool_call_records(messages)
        if failure is None and result is not None:
            output = _text(result.output)
        elif result is not None and result.final_message is not None:
            output = result.final_message.text
        else:
            output = ""
        seen = Observation(
            tool_calls=calls,
            steps=result.steps if result is not None else 0,
            output=output,
            completed=failure is None,
            error=error_text,
            workspace=workspace,
        )
        grades = grade(case.expect, seen)
    judged: tuple[JudgeScore, ...] = ()
    if settings.judge is not None and case.judge:
        judged = await settings.judge.score(case, output if failure is None else "")
    usage = result.usage if result is not None else None
    return TrialResult(
        case=case.name,
        trial=trial,
        passed=_passed(case, failure) and all(g.passed for g in grades),
        grades=grades,
        tool_calls=calls,
        steps=seen.steps,
        latency_ms=latency_ms,
        input_tokens=(
            usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens if usage else 0
        ),
        output_tokens=usage.output_tokens if usage else 0,
        retries=result.retries if result is not None else 0,
        model=model,
        failure=failure,
        error=error_text,
        output=output,
        transcript_summary=summarize(case.task, calls, output, error_text),
        judge=judged,
        cost=result.cost if result is not None else None,
    )
