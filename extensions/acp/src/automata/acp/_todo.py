"""The to-do tool convention: a tool named `todo` whose calls become ACP plans."""

from __future__ import annotations

from typing import Any, Literal

from acp.schema import PlanEntry
from pydantic import BaseModel, ConfigDict, ValidationError

from automata.core import FunctionTool, tool

__all__ = ["TODO_TOOL", "TodoItem", "plan_entries", "todo_tool"]

TODO_TOOL = "todo"
"""The name the server recognises: a successful call of a tool with this name is shown
to the client as the session's plan (the call's `items`), not as a tool call."""


class TodoItem(BaseModel):
    """One entry of the agent's to-do list."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: str
    status: Literal["pending", "in_progress", "completed"] = "pending"
    priority: Literal["high", "medium", "low"] = "medium"


class _TodoArguments(BaseModel):
    model_config = ConfigDict(extra="ignore")

    items: list[TodoItem]


def plan_entries(arguments: dict[str, Any]) -> list[PlanEntry] | None:
    """The plan a `todo` call's arguments describe, or None when they do not validate."""
    try:
        parsed = _TodoArguments.model_validate(arguments)
    except ValidationError:
        return None
    return [
        PlanEntry(content=item.content, status=item.status, priority=item.priority)
        for item in parsed.items
    ]


def todo_tool() -> FunctionTool:
    """A `todo` tool for an agent served over ACP: the model sends its whole to-do list
    (every item with its status) each time it changes, and the client shows it as the
    plan. The tool itself only acknowledges the list."""

    @tool(
        name=TODO_TOOL,
        description=(
            "Record your plan as a to-do list. Send the complete list every time an item "
            "is added or changes status (pending, in_progress, completed)."
        ),
    )
    def todo(items: list[TodoItem]) -> str:
        done = sum(item.status == "completed" for item in items)
        return f"plan recorded: {len(items)} items, {done} completed"

    return todo
