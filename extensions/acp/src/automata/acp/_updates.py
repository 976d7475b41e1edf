"""Stream events -> ACP `session/update` payloads."""

from __future__ import annotations

from typing import Any, TypeAlias

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
    UserMessageChunk,
)

from automata.acp._todo import TODO_TOOL, plan_entries
from automata.core import (
    StreamEvent,
    TextEvent,
    ThinkingEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUseBlock,
)

__all__ = ["Update", "UpdateMapper", "tool_kind", "tool_title"]

Update: TypeAlias = (
    AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | UserMessageChunk
)


def tool_title(call: ToolUseBlock) -> str:
    """The title a client shows for a call: the tool's name."""
    return call.name


def tool_kind(call: ToolUseBlock) -> ToolKind:
    """The ACP kind of a call: `think` for the to-do tool, `other` for every other tool
    (automata tools do not say what they touch)."""
    return "think" if call.name == TODO_TOOL else "other"


class UpdateMapper:
    """Maps one prompt's stream events onto updates, remembering which tool calls were
    announced and have not finished, so a cancelled prompt can close them (`failed`).

    Only the served agent's own events (depth 0) are mapped; a sub-agent's work shows as
    the call of the tool that started it."""

    __slots__ = ("_open",)

    def __init__(self) -> None:
        self._open: dict[str, ToolUseBlock] = {}

    def updates(self, event: StreamEvent) -> list[Update]:
        """The updates `event` gives (none for usage, deltas and other events)."""
        if event.depth != 0:
            return []
        if isinstance(event, TextEvent):
            return [update_agent_message_text(event.text)] if event.text else []
        if isinstance(event, ThinkingEvent):
            return [update_agent_thought_text(event.text)] if event.text else []
        if isinstance(event, ToolCallEvent):
            return self._started(event.call)
        if isinstance(event, ToolResultEvent):
            return self._finished(event)
        return []

    def started(self, call_id: str) -> list[Update]:
        """The `in_progress` update for a call that was cleared to run."""
        if call_id not in self._open:
            return []
        return [update_tool_call(call_id, status="in_progress")]

    def unfinished(self) -> list[Update]:
        """`failed` updates for every announced call without a result, and forgets them."""
        updates: list[Update] = [
            update_tool_call(call_id, status="failed", raw_output="cancelled")
            for call_id in self._open
        ]
        self._open.clear()
        return updates

    def _started(self, call: ToolUseBlock) -> list[Update]:
        if call.name == TODO_TOOL:
            return []
        self._open[call.id] = call
        return [
            start_tool_call(
                call.id,
                tool_title(call),
                kind=tool_kind(call),
                status="pending",
                raw_input=dict(call.input),
            )
        ]

    def _finished(self, event: ToolResultEvent) -> list[Update]:
        call = event.call
        if call.name == TODO_TOOL:
            entries = None if event.is_error else plan_entries(dict(call.input))
            return [update_plan(entries)] if entries is not None else []
        if self._open.pop(call.id, None) is None:
            return []
        output: Any = event.result
        return [
            update_tool_call(
                call.id,
                status="failed" if event.is_error else "completed",
                content=[tool_content(text_block(event.result))],
                raw_output=output,
            )
        ]
