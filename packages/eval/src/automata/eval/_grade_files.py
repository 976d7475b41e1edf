"""The code grader over the files a trial left in its workspace."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from automata.eval._model import FileExpectation, Grade

__all__ = ["files"]


def _check(workspace: Path, name: str, expected: FileExpectation) -> str | None:
    root = workspace.resolve()
    path = (root / name).resolve()
    if not path.is_relative_to(root):
        return f"{name}: outside the workspace"
    if not path.is_file():
        return f"{name}: no such file"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return f"{name}: unreadable ({error})"
    missing = [piece for piece in expected.contains if piece not in text]
    if missing:
        return f"{name}: missing {missing}"
    if expected.matches is not None:
        try:
            if re.search(expected.matches, text) is None:
                return f"{name}: {expected.matches!r} not found"
        except re.error as error:
            return f"{name}: invalid regex {expected.matches!r}: {error}"
    return None


def files(workspace: Path | None, expected: Mapping[str, FileExpectation]) -> Grade:
    """Passes when each expected file exists in the workspace (a path relative to it;
    one leading outside it fails), holds each `contains` string and matches `matches`."""
    if workspace is None:
        return Grade(grader="files", passed=False, detail="the trial had no workspace")
    problems = [p for name, e in expected.items() if (p := _check(workspace, name, e))]
    return Grade(grader="files", passed=not problems, detail="; ".join(problems))
