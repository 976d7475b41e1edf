"""One page of the HTML report per case (`templates/case.html`): what the case asked
and expected, then each trial (its grades, tool calls, timing, tokens, failure, judge
scores, output and transcript summary). The template escapes everything it shows."""

from __future__ import annotations

import json

from jinja2 import Environment

from automata.eval._model import CaseResult, RunReport

__all__ = ["case_page", "pass_rate"]


def pass_rate(result: CaseResult) -> float | None:
    """The fraction of the case's trials that passed; None when it has no trials."""
    if not result.trials:
        return None
    return sum(trial.passed for trial in result.trials) / len(result.trials)


def case_page(environment: Environment, report: RunReport, result: CaseResult) -> str:
    """The whole page of one case, linking back to `../index.html`."""
    # Python mode: pydantic's JSON mode would turn a lone surrogate in a key into U+FFFD.
    expected = result.case.expect.model_dump(mode="python", exclude_defaults=True)
    return environment.get_template("case.html").render(
        title=f"Case: {result.case.name}",
        report=report,
        result=result,
        rate=pass_rate(result),
        passed=sum(trial.passed for trial in result.trials),
        expected=json.dumps(expected, ensure_ascii=False, indent=2, default=str)
        if expected
        else "",
    )
