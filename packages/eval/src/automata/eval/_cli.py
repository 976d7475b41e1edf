"""The `automata-eval` command: `run`, `compare`, `report` and `export`.

Exit codes: 0 success (for `run`: every selected case passed), 1 a case failed (for
`compare --fail-on-regression`: a metric fell beyond the confidence intervals), 2 bad
usage or input (the message says what and where).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from automata.core import AutomataError
from automata.eval._cases import CaseFileError, SelectionError, load_cases, select
from automata.eval._compare import compare
from automata.eval._factories import UsageError, load_factories
from automata.eval._model import Budgets, RunReport, TrialResult
from automata.eval._reports import ReportFormatError, export_failed, load_report, write_report
from automata.eval._runner import UnknownAgentError, evaluate

__all__ = ["console", "main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="automata-eval", description="Evaluate agents.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run cases and write a JSON report")
    run.add_argument("--cases", action="append", required=True, help="case file or directory")
    run.add_argument("--agents", required=True, help="module:attr, the agent factories")
    run.add_argument("--out", default="eval-reports", help="report directory")
    run.add_argument("--trials", type=int, default=3)
    run.add_argument("--smoke", action="store_true", help="smoke cases only")
    run.add_argument("--model", help="model string handed to factories (provider:model)")
    run.add_argument("--judge-model", help="model string of the judge (opt-in)")
    run.add_argument("--run", dest="pattern", help="case name glob; a|b for either")
    run.add_argument("--difficulty", help="easy, medium, hard; + for that and above")
    run.add_argument("--tier", help="tier(s), comma-separated")
    run.add_argument(
        "--latency-budget",
        "--latency-budget-ms",
        dest="latency_budget",
        type=float,
        default=8000.0,
        help="ms per trial",
    )
    run.add_argument("--token-budget", type=int, default=6000, help="tokens per trial")
    run.add_argument("--repeats", type=int, default=1, help="rounds, for a total interval")
    run.add_argument("--concurrency", type=int, default=8)
    run.add_argument("--timeout", type=float, default=120.0, help="seconds per trial")
    run.add_argument("--quiet", action="store_true", help="no progress on stderr")
    comparing = commands.add_parser("compare", help="A/B deltas between two reports")
    comparing.add_argument("--baseline", required=True)
    comparing.add_argument("--candidate", required=True)
    comparing.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when a metric went down beyond the confidence intervals",
    )
    report = commands.add_parser("report", help="render a report as HTML")
    report.add_argument("--report", required=True, help="a JSON report")
    report.add_argument("--out", default="eval-reports/html", help="HTML directory")
    export = commands.add_parser("export", help="write failed cases as draft cases")
    export.add_argument("--report", required=True, help="a JSON report")
    export.add_argument("--out", required=True, help="the YAML file to write")
    return parser


class _Progress:
    """A progress line on stderr: trials done of all, how many failed, the time elapsed
    and an estimate of the time left (from the mean so far), and the last trial's
    outcome; a failed trial shows why (its failure and the first line of its error,
    or the graders that failed). `clock` gives seconds (monotonic)."""

    def __init__(
        self, total: int, stream: TextIO, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.total, self.done, self.failed, self.stream = total, 0, 0, stream
        self.live = stream.isatty()
        self.clock = clock
        self.started = clock()

    def __call__(self, trial: TrialResult) -> None:
        self.done += 1
        self.failed += not trial.passed
        elapsed = self.clock() - self.started
        timing = f"{_duration(elapsed)} elapsed"
        if self.done < self.total:
            left = elapsed / self.done * (self.total - self.done)
            timing += f", ~{_duration(left)} left"
        line = (
            f"[{self.done}/{self.total}] {self.failed} failed · {timing} · "
            f"{trial.case} #{trial.trial}: {_verdict(trial)}"
        )
        if self.live:
            self.stream.write("\r\x1b[2K" + line + ("\n" if self.done == self.total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    """`m:ss` (`h:mm:ss` from an hour on)."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _verdict(trial: TrialResult) -> str:
    """`pass`, or `FAIL (why)`: the failure with the first line of the trial's error,
    else the graders that failed."""
    if trial.passed:
        return "pass"
    if trial.failure is not None:
        first = (trial.error or "").strip().splitlines()
        return f"FAIL ({trial.failure}: {first[0]})" if first else f"FAIL ({trial.failure})"
    failed = [grade.grader for grade in trial.grades if not grade.passed]
    return f"FAIL ({', '.join(failed)})" if failed else "FAIL"


def _summary(report: RunReport, path: Path) -> str:
    card = report.scorecard
    passed = sum(result.passed for result in report.cases)
    interval = (
        f" [{card.total_interval[0]:.1f}, {card.total_interval[1]:.1f}]"
        if card.total_interval
        else ""
    )
    return (
        f"Total {card.total:.1f}{interval} (L1 {card.l1:.2f}, L2 {card.l2:.2f}, "
        f"L3 {card.l3:.2f}) · Pass@1 {card.pass_at_1:.2f} · "
        f"{passed}/{len(report.cases)} cases passed\nreport: {path}"
    )


def _judge(model: str | None) -> Any:
    if model is None:
        return None
    from automata.core import Agent
    from automata.eval._judge import Judge

    return Judge(Agent(model, name="judge"), model=model)


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    factories = load_factories(args.agents)
    cases = select(
        load_cases(*args.cases),
        pattern=args.pattern,
        difficulty=args.difficulty,
        tier=args.tier,
        smoke=args.smoke,
    )
    if not cases:
        raise UsageError("no case matches the selection")
    progress: Callable[[TrialResult], None] | None = None
    if not args.quiet:
        progress = _Progress(len(cases) * args.trials * args.repeats, err)
    report = asyncio.run(
        evaluate(
            cases,
            factories,
            trials=args.trials,
            concurrency=args.concurrency,
            budgets=Budgets(latency_ms=args.latency_budget, tokens=args.token_budget),
            judge=_judge(args.judge_model),
            timeout=args.timeout,
            model=args.model,
            repeats=args.repeats,
            on_trial=progress,
        )
    )
    path = write_report(report, args.out)
    out.write(_summary(report, path) + "\n")
    return 0 if all(result.passed for result in report.cases) else 1


_METRIC_LABELS = {"total": "Total", "l1": "L1", "l2": "L2", "l3": "L3", "pass@1": "Pass@1"}
_VERDICTS = {
    True: "outside the confidence intervals",
    False: "within the confidence intervals",
    None: "no confidence interval",
}


def _compare(args: argparse.Namespace, out: TextIO) -> int:
    result = compare(load_report(args.baseline), load_report(args.candidate))
    out.write(f"{result.baseline} -> {result.candidate}\n")
    for delta in result.deltas:
        out.write(
            f"{_METRIC_LABELS[delta.metric]:<7}{delta.baseline:>9.3f} -> "
            f"{delta.candidate:>9.3f}{delta.delta:>+10.3f}  {_VERDICTS[delta.outside]}\n"
        )
    regressed = [_METRIC_LABELS[delta.metric] for delta in result.regressions]
    if regressed:
        out.write(f"regressed beyond the confidence intervals: {', '.join(regressed)}\n")
    return 1 if regressed and args.fail_on_regression else 0


def _html(args: argparse.Namespace, out: TextIO) -> int:
    try:
        html: Any = importlib.import_module("automata.eval._html")
    except ModuleNotFoundError as error:
        if error.name != "automata.eval._html":
            raise
        raise UsageError("this installation has no HTML report renderer") from error
    written = html.write_html(load_report(args.report), Path(args.out))
    out.write(f"HTML report: {written}\n")
    return 0


def _export(args: argparse.Namespace, out: TextIO) -> int:
    report = load_report(args.report)
    path = export_failed(report, args.out)
    failed = sum(not result.passed for result in report.cases)
    out.write(f"{failed} failed case(s) written as drafts to {path}\n")
    return 0


def main(
    argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run the command line `argv` (default: `sys.argv[1:]`); return the exit code."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args, out, err)
        if args.command == "compare":
            return _compare(args, out)
        if args.command == "report":
            return _html(args, out)
        return _export(args, out)
    except (
        UsageError,
        CaseFileError,
        SelectionError,
        ReportFormatError,
        UnknownAgentError,
        ValueError,
        AutomataError,
    ) as error:
        err.write(f"automata-eval: error: {error}\n")
        return 2


def console() -> None:
    """The `automata-eval` console script."""
    sys.exit(main())
