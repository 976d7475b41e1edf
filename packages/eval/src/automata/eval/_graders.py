"""All code graders of a case applied to one trial, in a fixed order."""

from __future__ import annotations

from automata.eval import _grade_files, _grade_text, _grade_tools
from automata.eval._model import Expect, Grade
from automata.eval._observation import Observation

__all__ = ["grade"]


def grade(expect: Expect, seen: Observation) -> tuple[Grade, ...]:
    """One `Grade` per expectation the case sets, in the order the fields of `Expect`
    are declared; an expectation left at its default adds no grade (`completes`, True
    by default, always adds one unless set to False)."""
    calls = seen.tool_calls
    grades: list[Grade] = []
    if expect.required_tools:
        grades.append(_grade_tools.required_tools(calls, expect.required_tools))
    if expect.forbidden_tools:
        grades.append(_grade_tools.forbidden_tools(calls, expect.forbidden_tools))
    if expect.tool_order:
        grades.append(_grade_tools.tool_order(calls, expect.tool_order, strict=expect.strict_order))
    if expect.required_args:
        grades.append(_grade_tools.required_args(calls, expect.required_args))
    if expect.completes:
        grades.append(_grade_text.completes(seen.completed, seen.error))
    if expect.max_steps is not None:
        grades.append(_grade_text.max_steps(seen.steps, expect.max_steps))
    if expect.contains:
        grades.append(_grade_text.contains(seen.output, expect.contains))
    if expect.contains_any:
        grades.append(_grade_text.contains_any(seen.output, expect.contains_any))
    if expect.matches is not None:
        grades.append(_grade_text.matches(seen.output, expect.matches))
    if expect.guardrails:
        grades.append(_grade_text.guardrails(seen.output, expect.guardrails))
    if expect.files:
        grades.append(_grade_files.files(seen.workspace, expect.files))
    return tuple(grades)
