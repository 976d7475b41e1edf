"""The `automata-eval` command: run, compare and export, with exit codes 0/1/2."""

from __future__ import annotations

import io
import json
import textwrap
import uuid
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from automata.eval import Grade, RunReport, Scorecard, TrialResult, load_cases, load_report
from automata.eval._cli import _Progress, main

AGENTS = textwrap.dedent(
    """
    from automata.core import Agent
    from automata.core.testing import ScriptedProvider

    def weather(ctx):
        return Agent(ScriptedProvider([f"sunny (model={ctx.model})"]))

    FACTORIES = {"default": weather}
    """
)

CASES = textwrap.dedent(
    """
    cases:
      - {name: paris, task: "Weather in Paris?", smoke: true, expect: {contains: [sunny]}}
      - name: rome
        task: Weather in Rome?
        difficulty: hard
        tier: capability
        expect: {contains: [rain]}
    """
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A project directory with cases and a factories module; returns `module:attr`."""
    module = f"eval_agents_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(AGENTS, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{module}:FACTORIES"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def reports(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.json"))


def test_run_writes_a_report_and_exits_0_when_every_case_passes(project: str) -> None:
    """E18: success, the scorecard on stdout, one progress line per trial on stderr."""
    code, out, err = run(
        "run", "--cases", "cases.yaml", "--agents", project, "--smoke", "--trials", "2",
        "--out", "out", "--model", "openai:gpt-test", "--latency-budget", "5000",
        "--token-budget", "900",
    )  # fmt: skip
    assert code == 0, err
    [path] = reports(Path("out"))
    report = load_report(path)
    assert [c.case.name for c in report.cases] == ["paris"]
    assert report.model == "openai:gpt-test"
    assert report.cases[0].trials[0].output == "sunny (model=openai:gpt-test)"
    assert (report.budgets.latency_ms, report.budgets.tokens) == (5000, 900)
    assert "Total" in out
    assert str(path) in out
    assert err.count("\n") == 2
    assert "[2/2]" in err


def test_run_exits_1_when_a_case_fails_and_selects_by_flags(project: str) -> None:
    """E18: a failed case is exit code 1; --run/--difficulty/--tier select."""
    code, _, _ = run(
        "run", "--cases", ".", "--agents", project, "--run", "r*", "--difficulty", "medium+",
        "--tier", "capability", "--trials", "1", "--repeats", "2", "--quiet", "--out", "out",
    )  # fmt: skip
    assert code == 1
    [path] = reports(Path("out"))
    report = load_report(path)
    assert [c.case.name for c in report.cases] == ["rome"]
    assert len(report.repeat_totals) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--cases", "missing.yaml"], "no such file"),
        (["--cases", "cases.yaml", "--run", "nothing*"], "no case matches"),
        (["--cases", "cases.yaml", "--difficulty", "extreme"], "unknown difficulty"),
        (["--cases", "cases.yaml", "--judge-model", "nosuch:judge"], "nosuch"),
    ],
)
def test_bad_input_exits_2_with_the_reason(project: str, argv: list[str], message: str) -> None:
    """E18: unreadable cases, empty selections and unknown models are usage errors."""
    code, _, err = run("run", "--agents", project, "--quiet", *argv)
    assert code == 2
    assert message in err


def test_bad_agents_specs_exit_2(project: str) -> None:
    """E18: --agents must name an importable mapping or factory."""
    module = project.split(":")[0]
    for spec, message in [
        ("nocolon", "module:attribute"),
        ("no_such_module_here:X", "cannot import"),
        (f"{module}:MISSING", "no attribute"),
        (f"{module}:AGENTS_NONE", "no attribute"),
    ]:
        code, _, err = run("run", "--cases", "cases.yaml", "--agents", spec)
        assert (code, message in err) == (2, True), err
    Path("other_agents.py").write_text("NAME = 'x'\n", encoding="utf-8")
    code, _, err = run("run", "--cases", "cases.yaml", "--agents", "other_agents:NAME")
    assert code == 2
    assert "neither a mapping" in err


def test_compare_prints_the_deltas(project: str) -> None:
    """E15: compare between two report files."""
    run("run", "--cases", "cases.yaml", "--agents", project, "--quiet", "--out", "a")
    run("run", "--cases", "cases.yaml", "--agents", project, "--smoke", "--quiet", "--out", "b")
    [before], [after] = reports(Path("a")), reports(Path("b"))
    code, out, _ = run("compare", "--baseline", str(before), "--candidate", str(after))
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["Total", "L1", "L2", "L3", "Pass@1"]
    assert lines[1].endswith("  no confidence interval")


def write_report_file(path: Path, run_id: str, **card: object) -> str:
    """A report file whose scorecard holds `card` (over neutral defaults)."""
    scorecard = Scorecard.model_validate(
        {"total": 50.0, "l1": 1.0, "l2": 0.5, "l3": 0.5, "compliance": 1.0}
        | {"tool_call_accuracy": 0.5, "pass_at_1": 0.5}
        | card
    )
    report = RunReport(
        run_id=run_id,
        started_at="2026-01-01T00:00:00+00:00",
        trials_per_case=3,
        cases=(),
        scorecard=scorecard,
    )
    path.write_text(report.model_dump_json(), encoding="utf-8")
    return str(path)


@pytest.fixture
def regressed(tmp_path: Path) -> tuple[str, str]:
    """A baseline and a candidate whose total and Pass@1 fell beyond the intervals."""
    before = write_report_file(
        tmp_path / "before.json",
        "before",
        total=75.0,
        pass_at_1=0.8,
        total_interval=(70.0, 80.0),
        pass_at_1_interval=(0.7, 0.9),
    )
    after = write_report_file(
        tmp_path / "after.json",
        "after",
        total=60.0,
        pass_at_1=0.4,
        total_interval=(55.0, 65.0),
        pass_at_1_interval=(0.3, 0.5),
    )
    return before, after


def test_compare_words_each_verdict_in_full_and_names_the_regressions(
    regressed: tuple[str, str],
) -> None:
    """E15: "confidence interval" in full, a Pass@1 row, and the metrics that fell."""
    code, out, _ = run("compare", "--baseline", regressed[0], "--candidate", regressed[1])
    assert code == 0
    assert out.splitlines() == [
        "before -> after",
        "Total     75.000 ->    60.000   -15.000  outside the confidence intervals",
        "L1         1.000 ->     1.000    +0.000  no confidence interval",
        "L2         0.500 ->     0.500    +0.000  no confidence interval",
        "L3         0.500 ->     0.500    +0.000  outside the confidence intervals",
        "Pass@1     0.800 ->     0.400    -0.400  outside the confidence intervals",
        "regressed beyond the confidence intervals: Total, Pass@1",
    ]


def test_compare_fails_on_a_regression_when_asked(regressed: tuple[str, str]) -> None:
    """E18: `--fail-on-regression` exits 1 on a drop beyond the intervals, 0 on a rise."""
    before, after = regressed
    assert (
        run("compare", "--baseline", before, "--candidate", after, "--fail-on-regression")[0] == 1
    )
    assert (
        run("compare", "--baseline", after, "--candidate", before, "--fail-on-regression")[0] == 0
    )


def test_export_writes_the_failed_cases_as_drafts(project: str) -> None:
    """E16: export from a report file to a case file."""
    run("run", "--cases", "cases.yaml", "--agents", project, "--quiet", "--out", "out")
    [path] = reports(Path("out"))
    code, out, _ = run("export", "--report", str(path), "--out", "drafts/eval_failed.yaml")
    assert code == 0
    assert "1 failed case" in out
    assert [c.name for c in load_cases("drafts/eval_failed.yaml")] == ["rome"]


def test_a_foreign_report_exits_2(project: str) -> None:
    """E18: reports of another format are refused."""
    Path("x.json").write_text(json.dumps({"format": "other"}), encoding="utf-8")
    code, _, err = run("export", "--report", "x.json", "--out", "d.yaml")
    assert code == 2
    assert "not an evaluation report" in err


def test_the_command_is_installed_as_a_console_script() -> None:
    """E18: `automata-eval` is the package's console script."""
    [script] = entry_points(group="console_scripts", name="automata-eval")
    assert script.value == "automata.eval._cli:console"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_progress_redraws_one_line(project: str) -> None:
    """E18: one line redrawn per trial, ended once all trials are done."""
    err = Terminal()
    argv = ["run", "--cases", "cases.yaml", "--agents", project, "--trials", "3", "--out", "o"]
    assert main(argv, out=io.StringIO(), err=err) == 1
    text = err.getvalue()
    assert text.count("\r\x1b[2K") == 6
    assert text.count("\n") == 1
    assert "[6/6] 3 failed" in text


class Clock:
    """Seconds that advance only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_shows_elapsed_time_an_estimate_and_why_a_trial_failed() -> None:
    """E18: the time so far and left, and the first line of a failed trial's error
    (or the graders that failed), not `agent_error` alone."""
    stream, clock = io.StringIO(), Clock()
    progress = _Progress(4, stream, clock=clock)
    clock.now += 5
    progress(TrialResult(case="paris", trial=1, passed=True))
    clock.now += 10
    progress(
        TrialResult(
            case="rome",
            trial=1,
            passed=False,
            failure="agent_error",
            error="RuntimeError: the weather API is down\nTraceback (most recent call last):",
        )
    )
    clock.now += 45
    failed = Grade(grader="contains", passed=False, detail="missing 'rain'")
    progress(TrialResult(case="rome", trial=2, passed=False, grades=(failed,)))
    clock.now += 3600
    progress(TrialResult(case="rome", trial=3, passed=False, failure="timeout"))
    assert stream.getvalue().splitlines() == [
        "[1/4] 0 failed · 0:05 elapsed, ~0:15 left · paris #1: pass",
        "[2/4] 1 failed · 0:15 elapsed, ~0:15 left · rome #1: "
        "FAIL (agent_error: RuntimeError: the weather API is down)",
        "[3/4] 2 failed · 1:00 elapsed, ~0:20 left · rome #2: FAIL (contains)",
        "[4/4] 3 failed · 1:01:00 elapsed · rome #3: FAIL (timeout)",
    ]
