"""One page of the HTML report per case: what the case asked and expected, then each
trial (its grades, tool calls, timing, tokens, failure, judge scores, output and
transcript summary). Everything taken from the report is escaped."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from automata.eval._html_page import badge, fmt_number, fmt_percent, page
from automata.eval._model import CaseResult, RunReport, TrialResult

__all__ = ["case_page", "pass_rate"]


def pass_rate(result: CaseResult) -> float | None:
    """The fraction of the case's trials that passed; None when it has no trials."""
    if not result.trials:
        return None
    return sum(trial.passed for trial in result.trials) / len(result.trials)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _case_facts(result: CaseResult) -> str:
    case = result.case
    rows = [
        ("Task", f"<pre>{escape(case.task)}</pre>"),
        ("Agent", f"<code>{escape(case.agent)}</code>"),
        ("Tier", escape(case.tier)),
        ("Difficulty", escape(case.difficulty.value)),
        ("Smoke", "yes" if case.smoke else "no"),
    ]
    if case.tags:
        rows.append(("Tags", ", ".join(escape(tag) for tag in case.tags)))
    # Python mode: pydantic's JSON mode would turn a lone surrogate in a key into U+FFFD.
    expected = case.expect.model_dump(mode="python", exclude_defaults=True)
    rows.append(
        (
            "Expect",
            f"<pre>{escape(json.dumps(expected, ensure_ascii=False, indent=2, default=str))}</pre>"
            if expected
            else '<span class="note">defaults (the run completes)</span>',
        )
    )
    if case.judge:
        dims = "".join(
            f"<li><b>{escape(dim.name)}</b>: {escape(dim.rubric)}"
            + (f" (gold {dim.gold})" if dim.gold is not None else "")
            + "</li>"
            for dim in case.judge
        )
        rows.append(("Judge", f"<ul>{dims}</ul>"))
    body = "".join(f"<tr><th>{label}</th><td>{cell}</td></tr>" for label, cell in rows)
    return f'<table class="facts">{body}</table>'


def _grades(trial: TrialResult) -> str:
    if not trial.grades:
        return '<p class="note">no grades</p>'
    rows = "".join(
        f"<tr><td>{escape(grade.grader)}</td><td>{escape(grade.kind)}</td>"
        f"<td>{badge('pass', 'pass') if grade.passed else badge('fail', 'fail')}</td>"
        f"<td>{escape(grade.detail)}</td></tr>"
        for grade in trial.grades
    )
    return (
        "<table><thead><tr><th>Grader</th><th>Kind</th><th>Verdict</th><th>Detail</th>"
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )


def _tool_calls(trial: TrialResult) -> str:
    if not trial.tool_calls:
        return '<p class="note">no tool calls</p>'
    items = "".join(
        f"<li><code>{escape(call.name)}</code>"
        f"({escape(_json(call.arguments))})"
        + (" " + badge("error", "fail") if call.is_error else "")
        + "</li>"
        for call in trial.tool_calls
    )
    return f'<ol class="calls">{items}</ol>'


def _judge(trial: TrialResult) -> str:
    if not trial.judge:
        return ""
    rows = "".join(
        f"<tr><td>{escape(score.dimension)}</td>"
        f'<td class="num">{score.score if score.score else "?"}</td>'
        f'<td class="num">{"—" if score.gold is None else score.gold}</td>'
        f"<td>{escape(score.rationale)}</td></tr>"
        for score in trial.judge
    )
    return (
        "<h4>Judge scores (1 to 5; never part of the total)</h4>"
        '<table><thead><tr><th>Dimension</th><th class="num">Score</th>'
        f'<th class="num">Gold</th><th>Rationale</th></tr></thead><tbody>{rows}</tbody></table>'
    )


def _trial(trial: TrialResult) -> str:
    state = "passed" if trial.passed else "failed"
    verdict = badge("passed", "pass") if trial.passed else badge("failed", "fail")
    failure = f" {badge(trial.failure, 'warn')}" if trial.failure else ""
    metrics = (
        f"steps {trial.steps} · latency {fmt_number(trial.latency_ms, 0)} ms · "
        f"tokens {trial.input_tokens:,} in / {trial.output_tokens:,} out · "
        f"retries {trial.retries}"
    )
    parts = [
        f'<details class="trial {state}" id="trial-{trial.trial}"'
        + ("" if trial.passed else " open")
        + f"><summary>Trial {trial.trial + 1} {verdict}{failure}"
        f' <span class="meta">{metrics}</span></summary>'
    ]
    if trial.error:
        parts.append(f"<h4>Error</h4><pre>{escape(trial.error)}</pre>")
    parts.append("<h4>Grades</h4>" + _grades(trial))
    parts.append("<h4>Tool calls</h4>" + _tool_calls(trial))
    parts.append(_judge(trial))
    if trial.output:
        parts.append(f"<h4>Final text</h4><pre>{escape(trial.output)}</pre>")
    if trial.transcript_summary:
        lines = "".join(f"<li>{escape(line)}</li>" for line in trial.transcript_summary)
        parts.append(f'<h4>Transcript summary</h4><ol class="transcript">{lines}</ol>')
    parts.append("</details>")
    return "".join(parts)


def case_page(report: RunReport, result: CaseResult) -> str:
    """The whole page of one case, linking back to `../index.html`."""
    rate = pass_rate(result)
    verdict = badge("passed", "pass") if result.passed else badge("failed", "fail")
    passed = sum(trial.passed for trial in result.trials)
    subtitle = (
        f'<span><a href="../index.html">← overview</a></span>'
        f"<span>run {escape(report.run_id)}</span>"
        f"<span>{verdict} {passed}/{len(result.trials)} trials ({fmt_percent(rate)})</span>"
    )
    trials = (
        "".join(_trial(trial) for trial in result.trials)
        if result.trials
        else '<p class="note">this case ran no trials</p>'
    )
    body = f"<h2>Case</h2>{_case_facts(result)}<h2>Trials</h2>{trials}"
    return page(f"Case: {result.case.name}", body, subtitle=subtitle)
