"""Code graders over the tool calls of a trial: coverage, compliance, arguments, order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from automata.eval._model import Grade, ToolCallRecord

__all__ = ["forbidden_tools", "required_args", "required_tools", "tool_order"]


def _names(calls: tuple[ToolCallRecord, ...]) -> list[str]:
    return [call.name for call in calls]


def required_tools(calls: tuple[ToolCallRecord, ...], required: tuple[str, ...]) -> Grade:
    """Passes when each required tool was called at least once (coverage)."""
    called = set(_names(calls))
    missing = [name for name in required if name not in called]
    detail = f"never called: {', '.join(missing)}" if missing else ""
    return Grade(grader="required_tools", passed=not missing, detail=detail)


def forbidden_tools(calls: tuple[ToolCallRecord, ...], forbidden: tuple[str, ...]) -> Grade:
    """Passes when no forbidden tool was called (compliance: counted in L1)."""
    called = set(_names(calls))
    hit = [name for name in forbidden if name in called]
    detail = f"called forbidden: {', '.join(hit)}" if hit else ""
    return Grade(grader="forbidden_tools", passed=not hit, detail=detail, kind="compliance")


def _has_arguments(call: ToolCallRecord, wanted: Mapping[str, Any]) -> bool:
    return all(key in call.arguments and call.arguments[key] == v for key, v in wanted.items())


def required_args(
    calls: tuple[ToolCallRecord, ...], required: Mapping[str, Mapping[str, Any]]
) -> Grade:
    """Passes when, for each tool, some call of it was given all the listed arguments
    with equal values (other arguments may be present)."""
    problems = []
    for tool, wanted in required.items():
        made = [call for call in calls if call.name == tool]
        if not made:
            problems.append(f"{tool}: never called")
        elif not any(_has_arguments(call, wanted) for call in made):
            seen = "; ".join(repr(call.arguments) for call in made[:3])
            problems.append(f"{tool}: no call with {dict(wanted)!r} (calls: {seen})")
    return Grade(grader="required_args", passed=not problems, detail="; ".join(problems))


def tool_order(
    calls: tuple[ToolCallRecord, ...], order: tuple[str, ...], *, strict: bool = False
) -> Grade:
    """Soft (default): the tools' first calls come in this order, other calls may come
    between and repeats after a first call are ignored. Strict: the names of all calls
    are exactly this sequence."""
    names = _names(calls)
    if strict:
        passed = names == list(order)
        detail = "" if passed else f"expected exactly {list(order)}, got {names}"
        return Grade(grader="tool_order", passed=passed, detail=detail)
    first_calls = list(dict.fromkeys(names))
    remaining = iter(first_calls)
    passed = all(any(name == seen for seen in remaining) for name in order)
    detail = "" if passed else f"expected first calls in order {list(order)}, got {first_calls}"
    return Grade(grader="tool_order", passed=passed, detail=detail)
