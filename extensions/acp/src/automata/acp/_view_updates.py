"""Durable thread views -> ACP `session/update` payloads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import PlanEntry, ToolCallStatus

from automata.acp._todo import TODO_TOOL
from automata.acp._updates import Update

if TYPE_CHECKING:
    from automata.threads import ThreadView, TodoList, ViewItem

__all__ = ["ViewDiffer"]

_STATUS: dict[str, ToolCallStatus] = {
    "pending": "pending",
    "running": "in_progress",
    "done": "completed",
    "error": "failed",
}


@dataclass(slots=True)
class _Seen:
    status: ToolCallStatus | None = None


class ViewDiffer:
    """Turns successive views of one thread into the updates that bring a client from
    the last view to the next: text and thinking as the chunks it has not seen yet,
    a tool call once its input is complete (`pending`, `in_progress`, then `completed`
    or `failed` with its result), and the thread's to-do list (`ThreadView.todos`, the
    journaled fact) as the plan each time it changes, right after the call that set
    it (first, for a list a fork carried over); calls of a tool named `todo` are not
    shown as tool calls. User messages are sent as `user_message_chunk`s only when
    `users` is True (a replayed history); interactions are not updates (the server
    asks for permission instead)."""

    __slots__ = ("_seen", "_texts", "_todos", "_users")

    def __init__(self, *, users: bool) -> None:
        self._users = users
        self._seen: dict[str, _Seen] = {}
        self._texts: dict[tuple[str, str], int] = {}
        """Text shown so far per message and kind: a live reply's draft joins text
        blocks its committed message keeps apart, so text is followed per message
        (what its items of one kind hold together), not per item."""
        self._todos: TodoList | None = None

    def prime(self, view: ThreadView) -> None:
        """Mark everything in `view` as already shown."""
        self._todos = view.todos
        for _, key, written in _texts_of(view):
            self._texts[key] = len(written)
        for item in view.items:
            seen = self._seen.setdefault(item.id, _Seen())
            if item.kind == "tool_call" and item.status is not None:
                seen.status = _STATUS.get(item.status)

    def updates(self, view: ThreadView) -> list[Update]:
        updates: list[Update] = []
        todos = view.todos
        plan = todos is not None and todos != self._todos
        self._todos = todos
        if plan and todos is not None and todos.call_id is None:
            updates.append(_plan(todos))
            plan = False
        texts = {id(item): (key, written) for item, key, written in _texts_of(view)}
        for item in view.items:
            seen = self._seen.setdefault(item.id, _Seen())
            if item.kind in ("user", "assistant", "thinking"):
                key, written = texts[id(item)]
                shown = self._texts.get(key, 0)
                fresh = written[shown:]
                self._texts[key] = max(shown, len(written))
                if not fresh:
                    continue
                if item.kind == "assistant":
                    updates.append(update_agent_message_text(fresh))
                elif item.kind == "thinking":
                    updates.append(update_agent_thought_text(fresh))
                elif self._users:
                    updates.append(update_user_message_text(fresh))
            elif item.kind == "tool_call" and item.tool_input is not None and not item.live:
                updates.extend(self._tool_call(item, seen))
            if plan and todos is not None and item.call_id == todos.call_id and not item.live:
                updates.append(_plan(todos))
                plan = False
        if plan and todos is not None:
            updates.append(_plan(todos))
        return updates

    def _tool_call(self, item: ViewItem, seen: _Seen) -> list[Update]:
        call_id = item.call_id or item.id
        name = item.tool_name or ""
        arguments = dict(item.tool_input or {})
        status = _STATUS.get(item.status or "pending", "pending")
        result = item.result
        if status == seen.status:
            return []
        first = seen.status is None
        seen.status = status
        if name == TODO_TOOL:
            return []  # its list comes from the journal (`ThreadView.todos`)
        updates: list[Update] = []
        if first:
            updates.append(
                start_tool_call(call_id, name, kind="other", status="pending", raw_input=arguments)
            )
            if status == "pending":
                return updates
        if status in ("completed", "failed"):
            text = result or ""
            updates.append(
                update_tool_call(
                    call_id,
                    status=status,
                    content=[tool_content(text_block(text))],
                    raw_output=text,
                )
            )
        else:
            updates.append(update_tool_call(call_id, status=status))
        return updates


def _texts_of(view: ThreadView) -> list[tuple[ViewItem, tuple[str, str], str]]:
    """Each text item of `view` with its message and kind, and the text of that kind
    the message holds up to and with it."""
    texts: list[tuple[ViewItem, tuple[str, str], str]] = []
    written: dict[tuple[str, str], str] = {}
    for item in view.items:
        if item.kind in ("user", "assistant", "thinking"):
            key = (item.id.rpartition(".")[0], item.kind)
            written[key] = written.get(key, "") + item.text
            texts.append((item, key, written[key]))
    return texts


def _plan(todos: TodoList) -> Update:
    return update_plan(
        [
            PlanEntry(content=item.content, status=item.status, priority=item.priority)
            for item in todos.items
        ]
    )
