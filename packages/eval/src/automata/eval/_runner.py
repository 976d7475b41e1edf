"""`evaluate`: every case's trials, run concurrently under a bound, into a `RunReport`."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from automata.core import Agent, EventLoopRunningError, Provider
from automata.eval._judge import Judge, as_judge, judge_agreement
from automata.eval._model import Budgets, Case, CaseResult, RunReport, TrialResult
from automata.eval._reliability import reliability, reliability_by_case, reliability_by_model
from automata.eval._sandbox import Sandbox, WorkspaceSandbox
from automata.eval._scorecard import score_run
from automata.eval._trial import AgentFactory, TrialSettings, run_trial

__all__ = ["UnknownAgentError", "evaluate", "evaluate_sync"]


class UnknownAgentError(KeyError):
    """Cases name agents that no factory was given for; nothing ran."""

    def __str__(self) -> str:
        return str(self.args[0])


def _check(cases: Sequence[Case], factories: Mapping[str, AgentFactory], **counts: int) -> None:
    for name, value in counts.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    names = [case.name for case in cases]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        raise ValueError(f"case names must be unique; used twice: {', '.join(doubled)}")
    missing = sorted({case.agent for case in cases} - set(factories))
    if missing:
        raise UnknownAgentError(
            f"cases name agents without a factory: {', '.join(missing)} "
            f"(factories given: {', '.join(sorted(factories)) or 'none'})"
        )


def _run_id(started: datetime) -> str:
    return f"{started.strftime('%Y%m%dT%H%M%SZ')}-{uuid.uuid4().hex[:6]}"


async def evaluate(
    cases: Sequence[Case],
    factories: Mapping[str, AgentFactory],
    *,
    trials: int = 3,
    concurrency: int = 8,
    budgets: Budgets | None = None,
    judge: Judge | Agent[Any] | Provider | None = None,
    timeout: float | None = 120.0,  # noqa: ASYNC109 (a per-trial limit, not the call's)
    model: str | None = None,
    sandbox: Sandbox | None = None,
    repeats: int = 1,
    on_trial: Callable[[TrialResult], None] | None = None,
    run_id: str | None = None,
) -> RunReport:
    """Run `trials` trials of each case and score them.

    Each case's agent is built per trial by `factories[case.agent]` from a
    `TrialContext` (its own workspace from `sandbox`, default `WorkspaceSandbox()`, and
    `model`, the model string to use). At most `concurrency` trials run at once; each
    gets `timeout` seconds (None: no limit). A trial's failure (provider error,
    timeout, cancellation from within, agent error) is recorded in it and counted in
    `reliability`; it never stops the run. A case passes only if all its trials pass.

    `judge` (a `Judge`, or an agent or a provider to wrap in one) scores cases that list judge
    dimensions; its scores never fail a trial and never enter the total.
    `repeats` > 1 runs the whole set that many times: the report holds all trials of
    every round (`trials_per_case = trials * repeats`), `repeat_totals` each round's
    total, and the scorecard's `total_interval` comes from them. `on_trial` is called
    with each trial's result as it finishes (for progress display).

    Raises before running anything: `ValueError` for counts below 1 or a case name
    used twice, `UnknownAgentError` for a case whose agent has no factory.
    """
    cases = tuple(cases)
    _check(cases, factories, trials=trials, concurrency=concurrency, repeats=repeats)
    budgets = budgets if budgets is not None else Budgets()
    the_judge = as_judge(judge)
    settings = TrialSettings(
        sandbox=sandbox if sandbox is not None else WorkspaceSandbox(),
        timeout=timeout,
        model=model,
        judge=the_judge,
    )
    started = datetime.now(UTC)
    bound = asyncio.Semaphore(concurrency)

    async def one(case: Case, trial: int) -> TrialResult:
        async with bound:
            result = await run_trial(case, trial, factories[case.agent], settings)
        if on_trial is not None:
            on_trial(result)
        return result

    rounds: list[list[CaseResult]] = []
    for round_index in range(repeats):
        async with asyncio.TaskGroup() as group:
            tasks = [
                [group.create_task(one(case, round_index * trials + t)) for t in range(trials)]
                for case in cases
            ]
        rounds.append(
            [
                CaseResult(case=case, trials=tuple(task.result() for task in case_tasks))
                for case, case_tasks in zip(cases, tasks, strict=True)
            ]
        )
    merged = tuple(
        CaseResult(case=case, trials=tuple(t for r in rounds for t in r[index].trials))
        for index, case in enumerate(cases)
    )
    totals = tuple(score_run(r, budgets).total for r in rounds) if repeats > 1 else ()
    all_trials = [trial for case in merged for trial in case.trials]
    return RunReport(
        run_id=run_id if run_id is not None else _run_id(started),
        started_at=started.isoformat(),
        model=model,
        judge_model=the_judge.model if the_judge is not None else None,
        trials_per_case=trials * repeats,
        budgets=budgets,
        cases=merged,
        scorecard=score_run(merged, budgets, totals),
        reliability=reliability(all_trials),
        reliability_by_model=reliability_by_model(all_trials),
        reliability_by_case=reliability_by_case(merged),
        repeat_totals=totals,
        judge_agreement=judge_agreement(s for trial in all_trials for s in trial.judge),
    )


def evaluate_sync(
    cases: Sequence[Case], factories: Mapping[str, AgentFactory], **options: Any
) -> RunReport:
    """`evaluate` for code without an event loop (it starts one); the same keywords.
    Raises `EventLoopRunningError` where a loop is running: `await evaluate(...)`."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(evaluate(cases, factories, **options))
    raise EventLoopRunningError(
        "evaluate_sync() cannot be called while an event loop is running; "
        "use `await evaluate(...)` instead"
    )
