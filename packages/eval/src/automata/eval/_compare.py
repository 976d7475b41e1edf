"""A/B comparison of two runs, and the cases ready to graduate into regression."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from automata.eval._model import RunReport

__all__ = ["Comparison", "Delta", "compare", "graduates"]


@dataclass(frozen=True, slots=True)
class Delta:
    """One metric of a comparison: the baseline's and candidate's values and their
    difference (`candidate - baseline`). `outside` is True when the two runs'
    confidence intervals for the metric do not overlap, False when they overlap, and
    None when a run lacks the interval (nothing can be said)."""

    metric: str
    baseline: float
    candidate: float
    delta: float
    outside: bool | None


@dataclass(frozen=True, slots=True)
class Comparison:
    """Deltas on total, L1, L2, L3 and Pass@1 (in that order, metrics `total`, `l1`,
    `l2`, `l3`, `pass@1`) from `baseline` to `candidate`."""

    baseline: str
    candidate: str
    deltas: tuple[Delta, ...]

    @property
    def regressions(self) -> tuple[Delta, ...]:
        """The deltas that went down beyond the confidence intervals (`outside` True
        and `delta` below 0); every metric is better higher."""
        return tuple(d for d in self.deltas if d.outside is True and d.delta < 0)

    def __getitem__(self, metric: str) -> Delta:
        for delta in self.deltas:
            if delta.metric == metric:
                return delta
        raise KeyError(metric)


Interval = tuple[float, float] | None


def _apart(a: Interval, b: Interval) -> bool | None:
    if a is None or b is None:
        return None
    return a[1] < b[0] or b[1] < a[0]


def compare(baseline: RunReport, candidate: RunReport) -> Comparison:
    """Deltas from `baseline` to `candidate` on the scorecard's total, L1, L2, L3 and
    Pass@1.

    Whether a delta is outside the confidence intervals: the total by `total_interval`
    (from repeats), L3 and Pass@1 by `pass_at_1_interval`, L2 by
    `repair_rate_interval`; the
    intervals of the two runs must not overlap. L1 has no interval (`outside` None),
    nor does a metric when either run lacks its interval."""
    a, b = baseline.scorecard, candidate.scorecard
    rows = (
        ("total", a.total, b.total, _apart(a.total_interval, b.total_interval)),
        ("l1", a.l1, b.l1, None),
        ("l2", a.l2, b.l2, _apart(a.repair_rate_interval, b.repair_rate_interval)),
        ("l3", a.l3, b.l3, _apart(a.pass_at_1_interval, b.pass_at_1_interval)),
        ("pass@1", a.pass_at_1, b.pass_at_1, _apart(a.pass_at_1_interval, b.pass_at_1_interval)),
    )
    return Comparison(
        baseline=baseline.run_id,
        candidate=candidate.run_id,
        deltas=tuple(Delta(m, x, y, y - x, outside) for m, x, y, outside in rows),
    )


def graduates(
    reports: RunReport | Iterable[RunReport], k: int = 3, *, tier: str = "capability"
) -> tuple[str, ...]:
    """The names of `tier` cases (capability by default) stably at pass^k = 1: in every
    report given, the case ran at least `k` trials and all of them passed. A case
    missing from any report does not qualify. Sorted by name."""
    given = [reports] if isinstance(reports, RunReport) else list(reports)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not given:
        return ()
    qualified: set[str] | None = None
    for report in given:
        stable = {
            result.case.name
            for result in report.cases
            if result.case.tier == tier and len(result.trials) >= k and result.passed
        }
        qualified = stable if qualified is None else qualified & stable
    return tuple(sorted(qualified or ()))
