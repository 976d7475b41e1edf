"""Reports are files: JSON reports round-trip and refuse other formats, runs compare
A/B against their intervals, failed cases export as drafts, stable cases graduate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from automata.core import Agent
from automata.core.testing import Reply, ScriptedProvider, tool_call, tool_calls
from automata.eval import (
    Case,
    CaseResult,
    Expect,
    ReportFormatError,
    RunReport,
    Scorecard,
    TrialContext,
    TrialResult,
    compare,
    evaluate,
    export_failed,
    graduates,
    load_cases,
    load_report,
    write_report,
)


def build(ctx: TrialContext) -> Agent[None]:
    long_answer = "It is sunny in Paris today. " * 40
    replies: list[Reply] = [tool_calls(tool_call("1", "weather", city="Paris" * 30)), long_answer]
    return Agent(ScriptedProvider(replies))


CASES = [
    Case(name="good", task="Weather in Paris?", expect=Expect(contains=("sunny",))),
    Case(
        name="bad",
        task="Weather in Rome?",
        tier="capability",
        expect=Expect(contains=("Rome",), forbidden_tools=("weather",)),
    ),
]


async def test_a_report_round_trips_through_its_json_file(tmp_path: Path) -> None:
    """E14: `<run_id>.json` in the directory, read back equal."""
    report = await evaluate(CASES, {"default": build}, trials=2, run_id="run-1")
    path = write_report(report, tmp_path / "reports")
    assert path == tmp_path / "reports" / "run-1.json"
    assert load_report(path) == report


async def test_a_failed_case_carries_a_short_transcript_summary(tmp_path: Path) -> None:
    """E14: the task, tool calls with short arguments, the final text truncated."""
    report = await evaluate(CASES, {"default": build}, trials=1, run_id="r")
    data = json.loads(write_report(report, tmp_path).read_text(encoding="utf-8"))
    [bad] = [c for c in data["cases"] if c["case"]["name"] == "bad"]
    user, call, final = bad["trials"][0]["transcript_summary"]
    assert user == "user: Weather in Rome?"
    assert call.startswith("call: weather(city=")
    assert len(call) < 100
    assert final.startswith("final: It is sunny")
    assert len(final) < 320


def test_other_formats_and_versions_are_refused_by_name(tmp_path: Path) -> None:
    """E14: ReportFormatError naming the file and what is wrong."""
    cases = {
        "other.json": ({"format": "something.else", "version": 1}, "not an evaluation report"),
        "newer.json": ({"format": "automata.eval.report", "version": 99}, "version 99"),
        "broken.json": ({"format": "automata.eval.report", "version": 1}, "invalid report"),
        "list.json": ([1, 2], "not an evaluation report"),
    }
    for name, (content, message) in cases.items():
        path = tmp_path / name
        path.write_text(json.dumps(content), encoding="utf-8")
        with pytest.raises(ReportFormatError, match=message) as caught:
            load_report(path)
        assert caught.value.path == path
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{nope", encoding="utf-8")
    with pytest.raises(ReportFormatError, match="cannot read"):
        load_report(garbage)


def card(total: float, **values: object) -> Scorecard:
    fields: dict[str, object] = {
        "total": total,
        "l1": 1.0,
        "l2": 0.5,
        "l3": 0.5,
        "compliance": 1.0,
        "tool_call_accuracy": 0.5,
        "pass_at_1": 0.5,
    }
    return Scorecard.model_validate({**fields, **values})


def report_of(run_id: str, scorecard: Scorecard, *cases: CaseResult) -> RunReport:
    return RunReport(
        run_id=run_id,
        started_at="2026-01-01T00:00:00+00:00",
        trials_per_case=3,
        cases=cases,
        scorecard=scorecard,
    )


def test_compare_gives_deltas_and_whether_intervals_overlap() -> None:
    """E15: non-overlapping intervals put a delta outside them; no interval, no verdict."""
    before = report_of(
        "a",
        card(60.0, l3=0.4, total_interval=(55.0, 65.0), pass_at_1_interval=(0.3, 0.5)),
    )
    after = report_of(
        "b",
        card(75.0, l1=0.9, l3=0.6, total_interval=(70.0, 80.0), pass_at_1_interval=(0.45, 0.7)),
    )
    result = compare(before, after)
    assert [d.metric for d in result.deltas] == ["total", "l1", "l2", "l3", "pass@1"]
    assert (result.baseline, result.candidate) == ("a", "b")
    total = result["total"]
    assert (total.baseline, total.candidate, total.delta, total.outside) == (60, 75, 15, True)
    assert result["l1"].delta == pytest.approx(-0.1)
    assert result["l1"].outside is None
    assert result["l2"].outside is None
    assert result["l3"].outside is False
    assert compare(before, report_of("c", card(61.0)))["total"].outside is None
    assert result["pass@1"].outside is False
    assert result.regressions == ()


def test_regressions_are_the_drops_beyond_the_confidence_intervals() -> None:
    """E15: down and outside the intervals is a regression; up, or within, is not."""
    before = report_of(
        "a",
        card(
            75.0, l3=0.7, pass_at_1=0.8, total_interval=(70.0, 80.0), pass_at_1_interval=(0.7, 0.9)
        ),
    )
    after = report_of(
        "b",
        card(
            60.0, pass_at_1=0.4, l1=0.5, total_interval=(55.0, 65.0), pass_at_1_interval=(0.3, 0.5)
        ),
    )
    assert [d.metric for d in compare(before, after).regressions] == ["total", "l3", "pass@1"]
    assert compare(after, before).regressions == ()


async def test_failed_cases_export_as_draft_cases_that_load_back(tmp_path: Path) -> None:
    """E16: a YAML case file of the failed cases, tagged draft, with why as comments."""
    report = await evaluate(CASES, {"default": build}, trials=1, run_id="r")
    path = export_failed(report, tmp_path / "drafts" / "eval_failed.yaml")
    text = path.read_text(encoding="utf-8")
    assert "# bad: " in text
    assert "forbidden_tools: called forbidden: weather" in text
    [draft] = load_cases(path)
    original = CASES[1]
    assert draft.name == "bad"
    assert draft.tags == ("draft",)
    assert draft.model_copy(update={"tags": ()}) == original


def passing(name: str, trials: int, *, passed: bool = True, tier: str = "capability") -> CaseResult:
    return CaseResult(
        case=Case(name=name, task="t", tier=tier),
        trials=tuple(TrialResult(case=name, trial=i, passed=passed) for i in range(trials)),
    )


def test_graduates_are_capability_cases_at_pass_hat_k_one_in_every_report() -> None:
    """E17: all trials passed, at least k of them, in every report; sorted by name."""
    first = report_of(
        "1",
        card(0),
        passing("zeta", 3),
        passing("alpha", 3),
        passing("flaky", 3),
        passing("short", 2),
        passing("regress", 3, tier="regression"),
    )
    second = report_of(
        "2", card(0), passing("alpha", 3), passing("zeta", 5), passing("flaky", 3, passed=False)
    )
    assert graduates(first, k=3) == ("alpha", "flaky", "zeta")
    assert graduates([first, second], k=3) == ("alpha", "zeta")
    assert graduates([first, second], k=4) == ()
    assert graduates([]) == ()
    with pytest.raises(ValueError, match="k must be"):
        graduates(first, k=0)


async def test_a_non_finite_figure_is_written_as_null_and_the_file_stays_strict_json(
    tmp_path: Path,
) -> None:
    """E14: the file is strict JSON (no `NaN`), as pydantic writes a non-finite float."""
    report = await evaluate(CASES, {"default": build}, trials=1, run_id="nan")
    report = report.model_copy(
        update={"judge_agreement": float("nan"), "repeat_totals": (1.0, float("inf"))}
    )
    text = write_report(report, tmp_path).read_text(encoding="utf-8")

    def refuse(constant: str) -> None:
        raise ValueError(f"not strict JSON: {constant}")

    data = json.loads(text, parse_constant=refuse)
    assert data["judge_agreement"] is None
    assert data["repeat_totals"] == [1.0, None]
