"""The HTML report: a static, self-contained site written from a `RunReport`.

`write_html(report, out_dir)` writes `index.html` (the scorecard, the reliability
section with its tables per model and per case, plots of the score distribution and
of per-case pass rates, a table of cases) and `cases/<slug>.html` (one page per
case, with its trials). Pages carry their style inline and their plots as inline
SVG; they hold no script and load nothing over the network, so the folder can be
opened from disk, served, or kept as a CI artifact. The pages are rendered from
Jinja templates that escape every value by default (see `_html_page`), and each lone
surrogate in the report (text UTF-8 cannot encode) is shown as its escape,
`\\ud800`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment
from markupsafe import Markup

from automata.core import Cost
from automata.eval._html_case import case_page, pass_rate
from automata.eval._html_page import fmt_interval, fmt_percent, report_environment, safe_slug
from automata.eval._html_plots import Bar, bar_plot, histogram
from automata.eval._model import CaseResult, Rate, Reliability, RunReport, TrialResult
from automata.eval._scorecard import total_cost
from automata.eval._text import write_visible

__all__ = ["case_slugs", "write_html"]


def case_slugs(names: Sequence[str]) -> list[str]:
    """One slug per name, in order: safe as a file name (see `safe_slug`), and unique
    across the list even when names differ only in characters a slug drops (or repeat).
    A name keeps its plain slug when it is the first to claim it; a later one gets a
    short hash of the name appended (and a counter if even that is taken)."""
    taken: set[str] = set()
    slugs: list[str] = []
    for name in names:
        slug = safe_slug(name)
        if slug in taken:
            digest = hashlib.sha256(name.encode()).hexdigest()[:8]
            slug = f"{slug}-{digest}"
            base, counter = slug, 2
            while slug in taken:
                slug, counter = f"{base}-{counter}", counter + 1
        taken.add(slug)
        slugs.append(slug)
    return slugs


def _plots(report: RunReport, slugs: list[str]) -> tuple[list[tuple[str, Markup]], Markup]:
    """The overview's histograms (with their captions) and its bar plot."""
    rates = [rate for rate in (pass_rate(result) for result in report.cases) if rate is not None]
    figures = [
        (
            f"Distribution of per-case pass rates ({len(rates)} cases)",
            histogram(
                rates,
                title="Per-case pass rates",
                x_label="pass rate (share of a case's trials that passed)",
                fixed_range=(0.0, 1.0),
                bins=10,
                percent=True,
                css_class="histogram pass-rates",
            ),
        )
    ]
    if report.repeat_totals:
        figures.append(
            (
                f"Total over {len(report.repeat_totals)} repeats (shaded: 95% interval)",
                histogram(
                    report.repeat_totals,
                    title="Total per repeat",
                    x_label="total (0 to 100)",
                    bins=8,
                    interval=report.scorecard.total_interval,
                    marker=(f"total {report.scorecard.total:.1f}", report.scorecard.total),
                    css_class="histogram repeat-totals",
                ),
            )
        )
    bars = [
        Bar(
            label=result.case.name,
            value=pass_rate(result) or 0.0,
            passed=result.passed,
            href=f"cases/{slug}.html",
        )
        for result, slug in zip(report.cases, slugs, strict=True)
    ]
    return figures, bar_plot(bars, title="Pass rate per case", css_class="bars case-pass-rates")


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass(frozen=True)
class _Row:
    """One row of the overview's table of cases."""

    result: CaseResult
    slug: str
    passed: int
    rate: float | None
    latency: float | None
    tokens: float | None
    cost: Cost | None
    failures: list[str]


def _row(result: CaseResult, slug: str) -> _Row:
    trials = result.trials
    return _Row(
        result=result,
        slug=slug,
        passed=sum(trial.passed for trial in trials),
        rate=pass_rate(result),
        latency=_mean([trial.latency_ms for trial in trials]),
        tokens=_mean([float(trial.input_tokens + trial.output_tokens) for trial in trials]),
        cost=total_cost(trials),
        failures=_failures(trials),
    )


def _failures(trials: Sequence[TrialResult]) -> list[str]:
    """Why the case's trials failed, sorted: each failed trial's failure
    (`agent_error`, `timeout`, ...) or, when it ran to its end, its failed graders."""
    reasons: set[str] = set()
    for trial in trials:
        if trial.passed:
            continue
        if trial.failure is not None:
            reasons.add(trial.failure)
        else:
            reasons.update(grade.grader for grade in trial.grades if not grade.passed)
    return sorted(reasons)


def rate_text(rate: Rate) -> str:
    """A rate as `25.0% [4.6%, 69.9%]` (its Wilson interval); an em dash for none."""
    if rate.rate is None:
        return "—"
    return f"{fmt_percent(rate.rate)} {fmt_interval(rate.interval)}"


def _tiles(
    reliability: Reliability, judge_agreement: float | None
) -> list[tuple[str, str, bool, str]]:
    """The overview's reliability tiles: label, value, whether it is a problem, and the
    rate with its interval (empty for a tile without one)."""
    r = reliability
    tiles = [
        ("Trials", f"{r.trials:,}", False, ""),
        (
            "Provider errors",
            f"{r.provider_errors:,}",
            r.provider_errors > 0,
            rate_text(r.provider_error_rate),
        ),
        ("Retries", f"{r.retries:,}", r.retries > 0, f"of {r.attempts:,} attempts"),
        ("Timeouts", f"{r.timeouts:,}", r.timeouts > 0, rate_text(r.timeout_rate)),
        ("Cancelled trials", f"{r.cancelled:,}", r.cancelled > 0, rate_text(r.cancellation_rate)),
        ("Agent errors", f"{r.agent_errors:,}", r.agent_errors > 0, ""),
    ]
    if r.attempts:
        tiles[2] = (*tiles[2][:3], f"{rate_text(r.retry_rate)} of {r.attempts:,} attempts")
    if judge_agreement is not None:
        tiles.append(("Judge agreement", fmt_percent(judge_agreement), False, ""))
    return tiles


def _index(environment: Environment, report: RunReport, slugs: list[str]) -> str:
    figures, bars = _plots(report, slugs)
    return environment.get_template("index.html").render(
        title="Evaluation report",
        report=report,
        passed=sum(result.passed for result in report.cases),
        tiles=_tiles(report.reliability, report.judge_agreement),
        rate_text=rate_text,
        figures=figures,
        bars=bars,
        rows=[_row(result, slug) for result, slug in zip(report.cases, slugs, strict=True)],
    )


def write_html(report: RunReport, out_dir: Path) -> Path:
    """Write the report's site into `out_dir` (created if missing; files of an earlier
    site there are overwritten, others left alone) and return the path of its
    `index.html`. Case pages are `cases/<slug>.html`, one per case in report order,
    with unique file-name-safe slugs (see `case_slugs`). Pages are valid UTF-8, each
    lone surrogate shown as `\\ud800`."""
    environment = report_environment()
    slugs = case_slugs([result.case.name for result in report.cases])
    cases_dir = out_dir / "cases"
    cases_dir.mkdir(parents=True, exist_ok=True)
    for result, slug in zip(report.cases, slugs, strict=True):
        write_visible(cases_dir / f"{slug}.html", case_page(environment, report, result))
    index = out_dir / "index.html"
    write_visible(index, _index(environment, report, slugs))
    return index
