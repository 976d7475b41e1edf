"""The HTML report: a static, self-contained site written from a `RunReport`.

`write_html(report, out_dir)` writes `index.html` (the scorecard, the reliability
section, plots of the score distribution and of per-case pass rates, a table of
cases) and `cases/<slug>.html` (one page per case, with its trials). Pages carry
their style inline and their plots as inline SVG; they hold no script and load
nothing over the network, so the folder can be opened from disk, served, or kept as a
CI artifact. Every string taken from the report is escaped, and each lone surrogate
in it (text UTF-8 cannot encode) is shown as its escape, `\\ud800`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from html import escape
from pathlib import Path

from automata.eval._html_case import case_page, pass_rate
from automata.eval._html_page import (
    badge,
    fmt_interval,
    fmt_number,
    fmt_percent,
    page,
    safe_slug,
)
from automata.eval._html_plots import Bar, bar_plot, histogram
from automata.eval._model import CaseResult, Reliability, RunReport, Scorecard
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


def _card(label: str, value: str, note: str, parts: list[tuple[str, str]]) -> str:
    rows = "".join(f"<dt>{escape(name)}</dt><dd>{escape(shown)}</dd>" for name, shown in parts)
    return (
        f'<div class="card"><div class="label">{escape(label)}</div>'
        f'<div class="value">{escape(value)}</div>'
        f'<div class="formula">{escape(note)}</div><dl>{rows}</dl></div>'
    )


def _total_interval(card: Scorecard) -> str:
    if card.total_interval is None:
        return "no interval (run with --repeats for one)"
    return f"95% CI {fmt_interval(card.total_interval, percent=False)}"


def _scorecard(card: Scorecard, report: RunReport) -> str:
    budgets = report.budgets
    repeats = len(report.repeat_totals)
    total = (
        '<div class="card total"><div class="label">Total</div>'
        f'<div class="value">{fmt_number(card.total)}</div>'
        f'<div class="interval">{escape(_total_interval(card))}'
        + (f" over {repeats} repeats" if repeats else "")
        + '</div><div class="formula">100 × (0.2 L1 + 0.5 L2 + 0.3 L3)</div></div>'
    )
    l1 = _card(
        "L1 compliance",
        fmt_percent(card.l1),
        "forbidden tools and text guardrails",
        [("compliance", fmt_percent(card.compliance))],
    )
    l2 = _card(
        "L2 tool use",
        fmt_percent(card.l2),
        "(tool-call accuracy + repair rate) / 2",
        [
            ("tool-call accuracy", fmt_percent(card.tool_call_accuracy)),
            ("repair rate", fmt_percent(card.repair_rate)),
            ("repair rate CI", fmt_interval(card.repair_rate_interval)),
        ],
    )
    l3 = _card(
        "L3 outcome",
        fmt_percent(card.l3),
        "mean of pass@1 and the budget scores",
        [
            ("pass@1", fmt_percent(card.pass_at_1)),
            ("pass@1 CI", fmt_interval(card.pass_at_1_interval)),
            (f"latency ≤ {budgets.latency_ms:,.0f} ms", fmt_percent(card.latency_score)),
            (f"tokens ≤ {budgets.tokens:,}", fmt_percent(card.token_score)),
        ],
    )
    cards = total + l1 + l2 + l3
    return f'<section id="scorecard"><h2>Scorecard</h2><div class="cards">{cards}</div></section>'


def _reliability(reliability: Reliability, judge_agreement: float | None) -> str:
    tiles = [
        ("Trials", f"{reliability.trials:,}", False),
        ("Provider errors", f"{reliability.provider_errors:,}", reliability.provider_errors > 0),
        ("Retries", f"{reliability.retries:,}", reliability.retries > 0),
        ("Timeouts", f"{reliability.timeouts:,}", reliability.timeouts > 0),
        ("Cancelled trials", f"{reliability.cancelled:,}", reliability.cancelled > 0),
        ("Agent errors", f"{reliability.agent_errors:,}", reliability.agent_errors > 0),
    ]
    if judge_agreement is not None:
        tiles.append(("Judge agreement", fmt_percent(judge_agreement), False))
    cells = "".join(
        f'<div class="stat{" nonzero" if flagged else ""}"><div class="label">{label}</div>'
        f'<div class="value">{value}</div></div>'
        for label, value, flagged in tiles
    )
    return (
        f'<section id="reliability"><h2>Reliability</h2><div class="stats">{cells}</div></section>'
    )


def _plots(report: RunReport, slugs: list[str]) -> str:
    rates = [rate for rate in (pass_rate(result) for result in report.cases) if rate is not None]
    figures = [
        "<figure><figcaption>Distribution of per-case pass rates "
        f"({len(rates)} cases)</figcaption>"
        + histogram(
            rates,
            title="Per-case pass rates",
            x_label="pass rate (share of a case's trials that passed)",
            fixed_range=(0.0, 1.0),
            bins=10,
            percent=True,
            css_class="histogram pass-rates",
        )
        + "</figure>"
    ]
    if report.repeat_totals:
        figures.append(
            "<figure><figcaption>Total over "
            f"{len(report.repeat_totals)} repeats (shaded: 95% interval)</figcaption>"
            + histogram(
                report.repeat_totals,
                title="Total per repeat",
                x_label="total (0 to 100)",
                bins=8,
                interval=report.scorecard.total_interval,
                marker=(f"total {report.scorecard.total:.1f}", report.scorecard.total),
                css_class="histogram repeat-totals",
            )
            + "</figure>"
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
    bar_figure = (
        "<figure><figcaption>Pass rate per case (green: every trial passed)</figcaption>"
        + bar_plot(bars, title="Pass rate per case", css_class="bars case-pass-rates")
        + "</figure>"
    )
    return (
        '<section id="plots"><h2>Score distribution</h2>'
        f'<div class="grid2">{"".join(figures)}</div>'
        f"<h2>Per-case pass rates</h2>{bar_figure}</section>"
    )


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _cases_table(cases: Sequence[CaseResult], slugs: list[str]) -> str:
    if not cases:
        return '<section id="cases"><h2>Cases</h2><p class="note">no cases ran</p></section>'
    rows = []
    for result, slug in zip(cases, slugs, strict=True):
        trials = result.trials
        passed = sum(trial.passed for trial in trials)
        failures = sorted({trial.failure for trial in trials if trial.failure})
        latency = _mean([trial.latency_ms for trial in trials])
        tokens = _mean([float(trial.input_tokens + trial.output_tokens) for trial in trials])
        verdict = badge("pass", "pass") if result.passed else badge("fail", "fail")
        rows.append(
            f'<tr class="{"passed" if result.passed else "failed"}">'
            f'<td><a class="case-link" href="cases/{slug}.html">{escape(result.case.name)}</a></td>'
            f"<td>{verdict}</td><td>{escape(result.case.tier)}</td>"
            f"<td>{escape(result.case.difficulty.value)}</td>"
            f"<td>{'yes' if result.case.smoke else ''}</td>"
            f'<td class="num">{passed}/{len(trials)}</td>'
            f'<td class="num">{fmt_percent(pass_rate(result))}</td>'
            f'<td class="num">{fmt_number(latency, 0)}</td>'
            f'<td class="num">{fmt_number(tokens, 0)}</td>'
            f"<td>{', '.join(escape(failure) for failure in failures)}</td></tr>"
        )
    head = (
        "<tr><th>Case</th><th>Result</th><th>Tier</th><th>Difficulty</th><th>Smoke</th>"
        '<th class="num">Trials passed</th><th class="num">Pass rate</th>'
        '<th class="num">Mean latency (ms)</th><th class="num">Mean tokens</th>'
        "<th>Failures</th></tr>"
    )
    return (
        '<section id="cases"><h2>Cases</h2>'
        f'<table class="cases"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'
        "</section>"
    )


def _index(report: RunReport, slugs: list[str]) -> str:
    passed = sum(result.passed for result in report.cases)
    facts = [
        f"run {escape(report.run_id)}",
        f"started {escape(report.started_at)}",
        f"model {escape(report.model or 'scripted')}",
    ]
    if report.judge_model:
        facts.append(f"judge {escape(report.judge_model)}")
    facts += [
        f"{report.trials_per_case} trials per case",
        f"{passed}/{len(report.cases)} cases passed",
    ]
    subtitle = "".join(f"<span>{fact}</span>" for fact in facts)
    body = (
        _scorecard(report.scorecard, report)
        + _reliability(report.reliability, report.judge_agreement)
        + _plots(report, slugs)
        + _cases_table(report.cases, slugs)
    )
    return page("Evaluation report", body, subtitle=subtitle)


def write_html(report: RunReport, out_dir: Path) -> Path:
    """Write the report's site into `out_dir` (created if missing; files of an earlier
    site there are overwritten, others left alone) and return the path of its
    `index.html`. Case pages are `cases/<slug>.html`, one per case in report order,
    with unique file-name-safe slugs (see `case_slugs`). Pages are valid UTF-8, each
    lone surrogate shown as `\\ud800`."""
    slugs = case_slugs([result.case.name for result in report.cases])
    cases_dir = out_dir / "cases"
    cases_dir.mkdir(parents=True, exist_ok=True)
    for result, slug in zip(report.cases, slugs, strict=True):
        write_visible(cases_dir / f"{slug}.html", case_page(report, result))
    index = out_dir / "index.html"
    write_visible(index, _index(report, slugs))
    return index
