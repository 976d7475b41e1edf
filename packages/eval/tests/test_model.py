"""Cases load from plain data with clear errors, and a report round-trips through JSON."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from automata.eval import (
    Case,
    CaseResult,
    Difficulty,
    RunReport,
    Scorecard,
    TrialResult,
)


def test_a_case_loads_from_plain_data_with_defaults() -> None:
    case = Case.model_validate(
        {"name": "weather", "task": "Weather in Paris?", "expect": {"required_tools": ["weather"]}}
    )
    assert case.difficulty is Difficulty.MEDIUM
    assert case.tier == "regression"
    assert case.expect.required_tools == ("weather",)
    assert case.expect.completes


def test_an_unknown_expectation_is_refused_by_name() -> None:
    with pytest.raises(ValidationError, match="required_tool"):
        Case.model_validate({"name": "x", "task": "t", "expect": {"required_tool": ["a"]}})


def test_a_case_passes_only_when_all_its_trials_pass() -> None:
    case = Case(name="c", task="t")
    trials = (
        TrialResult(case="c", trial=0, passed=True),
        TrialResult(case="c", trial=1, passed=False),
    )
    assert not CaseResult(case=case, trials=trials).passed
    assert CaseResult(case=case, trials=trials[:1]).passed
    assert not CaseResult(case=case, trials=()).passed


def test_a_report_round_trips_through_json() -> None:
    card = Scorecard(
        total=80.0,
        l1=1.0,
        l2=0.8,
        l3=0.6,
        compliance=1.0,
        tool_call_accuracy=0.8,
        pass_at_1=0.5,
        pass_at_1_interval=(0.2, 0.8),
    )
    report = RunReport(
        run_id="r1",
        started_at="2026-12-01T00:00:00Z",
        trials_per_case=1,
        cases=(
            CaseResult(
                case=Case(name="c", task="t"), trials=(TrialResult(case="c", trial=0, passed=True),)
            ),
        ),
        scorecard=card,
    )
    again = RunReport.model_validate_json(report.model_dump_json())
    assert again == report
    assert again.format == "automata.eval.report"
