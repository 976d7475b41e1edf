"""The to-do list as a thread fact: a first-party tool whose list the journal keeps.

`todo_tool()` makes a tool the model calls with its whole list each time an item is
added or changes status. When a thread service runs the call and it succeeds, the
runner commits a `todos` record holding the validated list in the same transaction
as the call's result, so the list a view shows (`ThreadView.todos`) is exactly the one
the model's transcript answers, in every process and after every restart. A fork
copies the list as it stood at the cut, and a failed or invalid call changes nothing.
Outside a thread service the tool only acknowledges the list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from automata.core import (
    FunctionTool,
    Message,
    ToolContext,
    ToolResult,
    ToolResultBlock,
    ToolUseBlock,
    tool,
)
from automata.threads._records import encode
from automata.threads.store import NewRecord

if TYPE_CHECKING:
    from automata.core import Agent

__all__ = [
    "TODO_TOOL",
    "TodoItem",
    "TodoList",
    "TodoTool",
    "carried_records",
    "todo_records",
    "todo_tool",
    "todos_from",
]

TODO_TOOL = "todo"
"""The name `todo_tool()` gives its tool unless told another."""

MAX_TODO_ITEMS = 100
"""The most items one list may hold; a longer one is an invalid call."""

MAX_TODO_TEXT = 500
"""The most characters one item's `content` may hold."""

TodoStatus = Literal["pending", "in_progress", "completed"]
TodoPriority = Literal["high", "medium", "low"]


@dataclass(frozen=True, slots=True)
class TodoItem:
    """One entry of a thread's to-do list: plain text (never markup to render), a
    status and a priority."""

    content: str
    status: TodoStatus = "pending"
    priority: TodoPriority = "medium"


@dataclass(frozen=True, slots=True)
class TodoList:
    """A thread's to-do list as the journal holds it: `items` in the model's order,
    `turn_id` and `call_id` of the call that set it (both None for a list a fork
    carried over from its source), `seq` the journal position of its record."""

    items: tuple[TodoItem, ...]
    turn_id: str | None
    call_id: str | None
    seq: int = field(default=0, compare=False)


class _Entry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    content: str = Field(min_length=1, max_length=MAX_TODO_TEXT)
    status: TodoStatus = "pending"
    priority: TodoPriority = "medium"


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="ignore")

    items: list[_Entry] = Field(max_length=MAX_TODO_ITEMS)


def _parse(arguments: Mapping[str, Any]) -> tuple[TodoItem, ...] | None:
    try:
        parsed = _Arguments.model_validate(dict(arguments))
    except ValidationError:
        return None
    return tuple(TodoItem(e.content, e.status, e.priority) for e in parsed.items)


@dataclass(frozen=True, slots=True)
class TodoTool:
    """The to-do tool (`todo_tool()`): a core `Tool` the thread runner recognises by
    type, so its successful calls are journaled as the thread's list whatever it is
    named. Idempotent: setting the same list twice is setting it once."""

    inner: FunctionTool = field(repr=False)
    idempotent: bool = True

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def description(self) -> str:
        return self.inner.description

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return self.inner.input_schema

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext[Any]) -> ToolResult:
        return await self.inner.execute(arguments, context)


def todo_tool(name: str = TODO_TOOL) -> TodoTool:
    """The to-do tool: the model sends `items` (each `content`, `status`
    pending|in_progress|completed, `priority` high|medium|low), the whole list every
    time. In a thread service each successful call becomes the thread's list
    (`ThreadView.todos`); the model sees an acknowledgement."""

    async def todo(items: list[_Entry]) -> str:
        done = sum(item.status == "completed" for item in items)
        return f"plan recorded: {len(items)} items, {done} completed"

    description = (
        "Record your plan as a to-do list. Send the complete list every time an item "
        "is added or changes status (pending, in_progress, completed)."
    )
    inner = tool(todo, name=name, description=description, idempotent=True)
    return TodoTool(inner)


def _todo_names(agent: Agent[Any]) -> frozenset[str]:
    return frozenset(t.name for t in agent.tools if isinstance(t, TodoTool))


def todo_records(
    agent: Agent[Any], turn_id: str, calls: Sequence[ToolUseBlock], results: Message
) -> list[NewRecord]:
    """The `todos` record a batch's results set, to commit right after its `results`
    record: the list of the last successful call of one of `agent`'s todo tools among
    `calls` (none when no such call succeeded)."""
    names = _todo_names(agent)
    if not names:
        return []
    answered = {
        block.tool_use_id: block
        for block in results.content
        if isinstance(block, ToolResultBlock) and not block.is_error
    }
    records: list[NewRecord] = []
    for call in calls:
        if call.name in names and call.id in answered:
            items = _parse(call.input)
            if items is not None:
                records = [_record(items, turn_id, call.id)]
    return records


def _record(items: Sequence[TodoItem], turn_id: str | None, call_id: str | None) -> NewRecord:
    return encode(
        "todos",
        turn=turn_id,
        call=call_id,
        items=[
            {"content": item.content, "status": item.status, "priority": item.priority}
            for item in items
        ],
    )


def carried_records(
    marks: Sequence[tuple[int, TodoList]], length: int
) -> list[tuple[int, NewRecord]]:
    """The `todos` records a fork of the first `length` transcript messages writes,
    each with the number of copied messages it follows, so the fork's lists take
    effect where the source's did (no turn, no call: the fork ran neither)."""
    last: dict[int, TodoList] = {}
    for position, todos in marks:
        if position <= length:
            last[position] = todos
    return [(position, _record(todos.items, None, None)) for position, todos in last.items()]


def todos_from(seq: int, data: Mapping[str, Any]) -> TodoList:
    """The list a `todos` record at `seq` holds."""
    items = tuple(
        TodoItem(
            str(entry["content"]), entry.get("status", "pending"), entry.get("priority", "medium")
        )
        for entry in data.get("items") or ()
    )
    turn = data.get("turn")
    call = data.get("call")
    return TodoList(
        items, None if turn is None else str(turn), None if call is None else str(call), seq
    )
