"""Code graders over how a trial ended and its final text."""

from __future__ import annotations

import re

from automata.eval._model import Grade

__all__ = ["completes", "contains", "contains_any", "guardrails", "matches", "max_steps"]


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def completes(completed: bool, error: str | None) -> Grade:
    """Passes when the run ended with an answer (not an error or a step limit)."""
    detail = "" if completed else f"the run did not complete: {error or 'no answer'}"
    return Grade(grader="completes", passed=completed, detail=detail)


def max_steps(steps: int, limit: int) -> Grade:
    """Passes when the run made at most `limit` model calls."""
    passed = steps <= limit
    return Grade(
        grader="max_steps", passed=passed, detail="" if passed else f"{steps} steps > {limit}"
    )


def contains(text: str, wanted: tuple[str, ...]) -> Grade:
    """Passes when the final text holds every string (case-sensitive)."""
    missing = [w for w in wanted if w not in text]
    detail = f"missing {missing} in {_short(text)!r}" if missing else ""
    return Grade(grader="contains", passed=not missing, detail=detail)


def contains_any(text: str, options: tuple[str, ...]) -> Grade:
    """Passes when the final text holds at least one of the strings."""
    passed = any(option in text for option in options)
    detail = "" if passed else f"none of {list(options)} in {_short(text)!r}"
    return Grade(grader="contains_any", passed=passed, detail=detail)


def _search(pattern: str, text: str) -> bool | str:
    """Whether `pattern` is found in `text`, or why the pattern is unusable."""
    try:
        return re.search(pattern, text) is not None
    except re.error as error:
        return f"invalid regex {pattern!r}: {error}"


def matches(text: str, pattern: str) -> Grade:
    """Passes when the regex is found in the final text (`re.search`)."""
    found = _search(pattern, text)
    if isinstance(found, str):
        return Grade(grader="matches", passed=False, detail=found)
    detail = "" if found else f"{pattern!r} not found in {_short(text)!r}"
    return Grade(grader="matches", passed=found, detail=detail)


def guardrails(text: str, patterns: tuple[str, ...]) -> Grade:
    """Passes when no guardrail regex is found in the final text (compliance: L1).
    An invalid regex fails the grade, naming it."""
    problems = []
    for pattern in patterns:
        found = _search(pattern, text)
        if isinstance(found, str):
            problems.append(found)
        elif found:
            problems.append(f"guardrail {pattern!r} matched")
    return Grade(
        grader="guardrails", passed=not problems, detail="; ".join(problems), kind="compliance"
    )
