"""The pytest plugin: YAML case files collected as tests, once a project opts in.

Opt in with the ini option `automata_eval_agents = module:attr` (the agent factories,
as for `automata-eval run --agents`). Without it the plugin only declares its ini
options: it collects nothing and imports nothing beyond pytest and the standard
library, so it costs every other pytest run nothing. Opted in, every file matching
`automata_eval_files` (default `eval_*.yaml eval_*.yml`) is collected; each case is
one test item that runs `automata_eval_trials` trials (default 1) and fails with the
failed grades' details.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from automata.eval._model import Case, CaseResult

__all__ = ["EvalCaseFailed", "EvalFile", "EvalItem"]

_AGENTS = "automata_eval_agents"
_FILES = "automata_eval_files"
_TRIALS = "automata_eval_trials"
_FACTORIES = pytest.StashKey[Mapping[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(_AGENTS, "module:attr of the agent factories; enables eval case files")
    parser.addini(
        _FILES, "globs of eval case files", type="args", default=["eval_*.yaml", "eval_*.yml"]
    )
    parser.addini(_TRIALS, "trials per eval case", default="1")


def pytest_configure(config: pytest.Config) -> None:
    if config.getini(_AGENTS):
        config.addinivalue_line("markers", "automata_eval: a case from an eval case file")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> EvalFile | None:
    config = parent.config
    if not config.getini(_AGENTS):
        return None
    if not any(fnmatch.fnmatch(file_path.name, glob) for glob in config.getini(_FILES)):
        return None
    made: EvalFile = EvalFile.from_parent(parent, path=file_path)
    return made


class EvalCaseFailed(Exception):
    """An eval case failed: the message lists each failed trial's failed grades (each
    lone surrogate in them shown as its escape, `\\ud800`, so pytest can print it)."""


def _factories(config: pytest.Config) -> Mapping[str, Any]:
    if _FACTORIES not in config.stash:
        from automata.eval._factories import load_factories

        config.stash[_FACTORIES] = load_factories(str(config.getini(_AGENTS)))
    return config.stash[_FACTORIES]


def _explain(result: CaseResult) -> str:
    lines = [f"eval case {result.case.name!r} failed:"]
    for trial in result.trials:
        if trial.passed:
            continue
        lines.append(f"  trial {trial.trial}:")
        if trial.failure is not None:
            lines.append(f"    {trial.failure}: {trial.error}")
        lines.extend(f"    {g.grader}: {g.detail}" for g in trial.grades if not g.passed)
        lines.extend(f"    | {line}" for line in trial.transcript_summary)
    from automata.eval._text import visible

    return visible("\n".join(lines))


class EvalFile(pytest.File):
    """A YAML case file; each of its cases is an `EvalItem`."""

    def collect(self) -> Iterator[EvalItem]:
        from automata.eval._cases import load_cases

        for case in load_cases(self.path):
            item: EvalItem = EvalItem.from_parent(self, name=case.name, case=case)
            item.add_marker("automata_eval")
            yield item


class EvalItem(pytest.Item):
    """One case run as a test: passes when all its trials pass."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        import asyncio

        from automata.eval._runner import evaluate

        trials = int(str(self.config.getini(_TRIALS)))
        report = asyncio.run(
            evaluate([self.case], _factories(self.config), trials=trials, concurrency=trials)
        )
        result = report.cases[0]
        if not result.passed:
            raise EvalCaseFailed(_explain(result))

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> Any:
        if isinstance(excinfo.value, EvalCaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"eval case {self.case.name}"
