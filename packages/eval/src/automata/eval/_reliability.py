"""How trials went apart from grading: failures by kind, provider retries, and their
rates with Wilson intervals, over all trials, per model and per case (docs/eval.md
E21)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import get_args

from automata.eval._model import (
    CaseResult,
    Rate,
    Reliability,
    ReliabilityGroup,
    TrialFailure,
    TrialResult,
)
from automata.eval._stats import wilson_interval

__all__ = ["UNNAMED_MODEL", "reliability", "reliability_by_case", "reliability_by_model"]

UNNAMED_MODEL = "unnamed"
"""The group of the trials whose agent named no model."""


def rate(count: int, total: int) -> Rate:
    """`count` of `total` with its share and Wilson 95% interval (None for no total)."""
    if total == 0:
        return Rate(count=count, total=0)
    return Rate(
        count=count, total=total, rate=count / total, interval=wilson_interval(count, total)
    )


def reliability(trials: Sequence[TrialResult]) -> Reliability:
    """The reliability of `trials`: failures by kind, the provider retries they made
    (`TrialResult.retries`, what the providers reported: docs/loop.md L99), and their
    rates: provider errors, timeouts and cancellations of trials, retries of provider
    attempts (model calls plus retries)."""
    kinds = [trial.failure for trial in trials]
    retries = sum(trial.retries for trial in trials)
    attempts = sum(trial.steps for trial in trials) + retries
    counts = {kind: kinds.count(kind) for kind in get_args(TrialFailure)}
    total = len(trials)
    return Reliability(
        trials=total,
        provider_errors=counts["provider_error"],
        retries=retries,
        timeouts=counts["timeout"],
        cancelled=counts["cancelled"],
        agent_errors=counts["agent_error"],
        attempts=attempts,
        provider_error_rate=rate(counts["provider_error"], total),
        retry_rate=rate(retries, attempts),
        timeout_rate=rate(counts["timeout"], total),
        cancellation_rate=rate(counts["cancelled"], total),
    )


def _grouped(
    trials: Sequence[TrialResult], key: Callable[[TrialResult], str], names: Sequence[str]
) -> tuple[ReliabilityGroup, ...]:
    return tuple(
        ReliabilityGroup(name=name, reliability=reliability([t for t in trials if key(t) == name]))
        for name in names
    )


def reliability_by_model(trials: Sequence[TrialResult]) -> tuple[ReliabilityGroup, ...]:
    """One group per model the trials named, sorted by name (`"unnamed"` for trials
    naming none)."""

    def model(trial: TrialResult) -> str:
        return trial.model or UNNAMED_MODEL

    return _grouped(trials, model, sorted({model(trial) for trial in trials}))


def reliability_by_case(cases: Sequence[CaseResult]) -> tuple[ReliabilityGroup, ...]:
    """One group per case, in case order."""
    return tuple(
        ReliabilityGroup(name=result.case.name, reliability=reliability(result.trials))
        for result in cases
    )
