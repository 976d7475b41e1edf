"""The scorecard of a run: Total = 100 x (0.2 L1 + 0.5 L2 + 0.3 L3), from the trials'
grades, pass/fail, latency and tokens, with confidence intervals.

A pure function of the case results, the budgets and the totals of repeated runs; the
rules are docs/eval-scorecard.md SC1-SC9, each pinned by a test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from automata.core import Cost, CostTally
from automata.eval._model import Budgets, CaseResult, Grade, Scorecard, TrialResult
from automata.eval._stats import mean_interval, wilson_interval

__all__ = ["REPAIR_TIER", "TOOL_GRADERS", "is_tool_grade", "score_run"]

TOOL_GRADERS: frozenset[str] = frozenset({"required_tools", "required_args", "tool_order"})
"""The graders whose grades measure tool-call accuracy (L2): the gates on which tools
were called, with which arguments, in which order. Forbidden tools are compliance (L1)."""

REPAIR_TIER = "repair"
"""The tier whose trials alone make the repair rate (L2)."""


def is_tool_grade(grade: Grade) -> bool:
    """Whether `grade` counts towards tool-call accuracy: a `gate` whose grader name,
    or the part of it before the first `:` (as in `required_tools:search`), is one of
    TOOL_GRADERS (SC4)."""
    return grade.kind == "gate" and grade.grader.partition(":")[0] in TOOL_GRADERS


def score_run(
    cases: Sequence[CaseResult],
    budgets: Budgets,
    repeat_totals: Sequence[float] = (),
) -> Scorecard:
    """Score a run from its case results.

    Guaranteed: every level and rate is in [0, 1] and the total in [0, 100]; the same
    inputs give the same scorecard; a run with no trials scores 0 everywhere (SC9).
    Raises ValueError when a budget is not positive."""
    if not budgets.latency_ms > 0 or not budgets.tokens > 0:
        raise ValueError(
            f"budgets must be positive (latency_ms={budgets.latency_ms}, tokens={budgets.tokens})"
        )
    total_interval = mean_interval(repeat_totals)
    trials = [trial for result in cases for trial in result.trials]
    if not trials:
        return Scorecard(
            total=0.0,
            l1=0.0,
            l2=0.0,
            l3=0.0,
            compliance=0.0,
            tool_call_accuracy=0.0,
            pass_at_1=0.0,
            total_interval=total_interval,
        )

    compliance = _share_all_passed(trials, lambda grade: grade.kind == "compliance")
    tool_call_accuracy = _share_all_passed(trials, is_tool_grade)

    repair_trials = [
        trial for result in cases if result.case.tier == REPAIR_TIER for trial in result.trials
    ]
    repair_passed = sum(trial.passed for trial in repair_trials)
    repair_rate = repair_passed / len(repair_trials) if repair_trials else None
    l2 = tool_call_accuracy if repair_rate is None else (tool_call_accuracy + repair_rate) / 2

    passed = sum(trial.passed for trial in trials)
    pass_at_1 = passed / len(trials)
    latency_score = _budget_score([trial.latency_ms for trial in trials], budgets.latency_ms)
    token_score = _budget_score(
        [float(trial.input_tokens + trial.output_tokens) for trial in trials], budgets.tokens
    )
    l3_parts = [pass_at_1] + [s for s in (latency_score, token_score) if s is not None]
    l3 = sum(l3_parts) / len(l3_parts)

    l1 = compliance
    return Scorecard(
        total=100.0 * (0.2 * l1 + 0.5 * l2 + 0.3 * l3),
        l1=l1,
        l2=l2,
        l3=l3,
        compliance=compliance,
        tool_call_accuracy=tool_call_accuracy,
        repair_rate=repair_rate,
        pass_at_1=pass_at_1,
        latency_score=latency_score,
        token_score=token_score,
        pass_at_1_interval=wilson_interval(passed, len(trials)),
        repair_rate_interval=(
            wilson_interval(repair_passed, len(repair_trials)) if repair_trials else None
        ),
        total_interval=total_interval,
        cost=total_cost(trials),
    )


def total_cost(trials: Sequence[TrialResult]) -> Cost | None:
    """What the trials cost together (SC14): None for no trials, or when one has no cost."""
    if not trials:
        return None
    tally = CostTally()
    for trial in trials:
        tally.add(trial.cost)
    return tally.cost


def _share_all_passed(trials: Sequence[TrialResult], counts: Callable[[Grade], bool]) -> float:
    """The share of the trials holding at least one counted grade whose counted grades
    all passed; 1.0 when no trial holds one (nothing to break was broken)."""
    verdicts = [
        all(grade.passed for grade in counted)
        for trial in trials
        if (counted := [grade for grade in trial.grades if counts(grade)])
    ]
    return sum(verdicts) / len(verdicts) if verdicts else 1.0


def _budget_score(actuals: Sequence[float], budget: float) -> float | None:
    """min(1, budget / mean) over the trials that measured something (a positive
    actual); None when none did (SC6)."""
    measured = [actual for actual in actuals if actual > 0]
    if not measured:
        return None
    mean = sum(measured) / len(measured)
    return min(1.0, budget / mean)
