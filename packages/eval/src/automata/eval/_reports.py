"""Reports are files: the JSON report of a run, and failed cases exported as drafts."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]
from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from automata.eval._model import REPORT_FORMAT, REPORT_VERSION, RunReport
from automata.eval._text import write_visible

__all__ = ["ReportFormatError", "export_failed", "load_report", "write_report"]


class ReportFormatError(ValueError):
    """A file is not a report this version reads: not JSON, another format, another
    version, or fields that do not validate. `path` names the file."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


def _finite(value: Any) -> Any:
    """`value` with every NaN or infinite float written as `None`, as pydantic's JSON
    writes them (the file stays strict JSON)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def write_report(report: RunReport, directory: str | Path) -> Path:
    """Write `report` to `<directory>/<run_id>.json` (the directory is created) and
    return the path. Every trial keeps its transcript summary, so each failed case's
    summary is in the file. The file is valid UTF-8 whatever text the run produced:
    a lone surrogate is written as its JSON escape (`\\ud800`), which `load_report`
    reads back as the same text."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{report.run_id}.json"
    # pydantic's own JSON writer refuses lone surrogates; the standard library's keeps
    # them, and writing them visibly turns each into its JSON escape.
    data = _finite(report.model_dump(mode="python"))
    text = json.dumps(
        data, indent=2, ensure_ascii=False, allow_nan=False, default=to_jsonable_python
    )
    write_visible(path, text + "\n")
    return path


def load_report(path: str | Path) -> RunReport:
    """Read a report written by `write_report`. Raises `ReportFormatError` for a file
    that is not JSON, whose `format` is not `automata.eval.report`, whose `version` is
    not the one this library writes, or whose fields do not validate."""
    file = Path(path)
    try:
        data: Any = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReportFormatError(f"cannot read a JSON report: {error}", path=file) from error
    if not isinstance(data, dict) or data.get("format") != REPORT_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ReportFormatError(
            f"not an evaluation report (format {found!r}, expected {REPORT_FORMAT!r})", path=file
        )
    if data.get("version") != REPORT_VERSION:
        raise ReportFormatError(
            f"report version {data.get('version')!r}; this library reads version {REPORT_VERSION}",
            path=file,
        )
    try:
        return RunReport.model_validate(data)
    except ValidationError as error:
        raise ReportFormatError(f"invalid report: {error}", path=file) from error


def _draft(report: RunReport) -> list[dict[str, Any]]:
    drafts = []
    for result in report.cases:
        if result.passed:
            continue
        case = result.case.model_dump(mode="json", exclude_defaults=True)
        case["name"] = result.case.name
        case["task"] = result.case.task
        case["tags"] = sorted({*result.case.tags, "draft"})
        drafts.append(case)
    return drafts


def _why(report: RunReport) -> list[str]:
    lines = []
    for result in report.cases:
        if result.passed:
            continue
        reasons = sorted(
            {
                f"{g.grader}: {g.detail}" if g.detail else g.grader
                for trial in result.trials
                for g in trial.grades
                if not g.passed
            }
            | {f"{t.failure}: {t.error}" for t in result.trials if t.failure is not None}
        )
        lines.append(f"# {result.case.name}: " + (" | ".join(reasons) or "failed"))
    return lines


def export_failed(report: RunReport, path: str | Path) -> Path:
    """Write the cases that failed in `report` to the YAML file `path` as draft cases
    (`cases:`, each tagged `draft`, with why it failed as comments at the top), ready
    for `load_cases` once reviewed; return the path. With no failed case, the file
    holds an empty list. A lone surrogate is written as its escape: `\\ud800` in the
    comments, a YAML `"\\uD800"` escape in a case (which `load_cases` refuses, naming
    the field, until it is fixed)."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    header = [f"# Draft cases from the failed cases of run {report.run_id}.", *_why(report)]
    body = yaml.safe_dump({"cases": _draft(report)}, sort_keys=False, allow_unicode=True)
    write_visible(file, "\n".join(header) + "\n" + body)
    return file
