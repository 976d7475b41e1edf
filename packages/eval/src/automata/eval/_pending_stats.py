"""Stand-ins for the statistics and the scorecard (`_stats.py`, `_scorecard.py`), which
land from a parallel branch with these very names and signatures. Only the engine
imports them, and only from here; this module goes away when the real ones land."""

from __future__ import annotations

import math
from collections.abc import Sequence

from automata.eval._model import Budgets, CaseResult, Scorecard

__all__ = ["mean_interval", "pass_at_k", "pass_hat_k", "score_run", "wilson_interval"]

_TOOL_GRADERS = frozenset({"required_tools", "required_args", "tool_order"})


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def pass_at_k(n: int, c: int, k: int) -> float:
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    return math.comb(c, k) / math.comb(n, k) if n >= k else 0.0


def mean_interval(values: Sequence[float]) -> tuple[float, float] | None:
    if len(values) < 2:
        return None
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    half = 1.96 * sd / math.sqrt(len(values))
    return (mean - half, mean + half)


def score_run(
    cases: Sequence[CaseResult], budgets: Budgets, repeat_totals: Sequence[float] = ()
) -> Scorecard:
    trials = [trial for case in cases for trial in case.trials]
    n = len(trials)
    passed = sum(trial.passed for trial in trials)
    compliant = sum(
        all(g.passed for g in trial.grades if g.kind == "compliance") for trial in trials
    )
    tool_grades = [g for t in trials for g in t.grades if g.grader in _TOOL_GRADERS]
    accuracy = sum(g.passed for g in tool_grades) / len(tool_grades) if tool_grades else 1.0
    repair = [t for c in cases if c.case.tier == "repair" for t in c.trials]
    repair_rate = sum(t.passed for t in repair) / len(repair) if repair else None
    pass_at_1 = passed / n if n else 0.0
    compliance = compliant / n if n else 0.0
    l2 = (accuracy + repair_rate) / 2 if repair_rate is not None else accuracy
    l3 = pass_at_1
    total = 100 * (0.2 * compliance + 0.5 * l2 + 0.3 * l3)
    return Scorecard(
        total=total,
        l1=compliance,
        l2=l2,
        l3=l3,
        compliance=compliance,
        tool_call_accuracy=accuracy,
        repair_rate=repair_rate,
        pass_at_1=pass_at_1,
        pass_at_1_interval=wilson_interval(passed, n) if n else None,
        repair_rate_interval=(
            wilson_interval(sum(t.passed for t in repair), len(repair)) if repair else None
        ),
        total_interval=mean_interval(repeat_totals),
    )
