"""A run's recorded events as the core's stream events, for a `StreamAccumulator`.

The workflow records each reply's text, each tool call and each result as it commits
them; the `events` query returns them so far (TP7). A Temporal workflow cannot push to a
caller, so a caller polls the query and folds the events it has not seen yet.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from temporalio.client import WorkflowHandle

from automata.core import (
    StreamEvent,
    TextBlock,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUseBlock,
)
from automata.temporal._types import RecordedEvent

__all__ = ["query_events", "stream_events"]


def stream_events(records: Sequence[RecordedEvent], *, invocation_id: str) -> list[StreamEvent]:
    """`records` as `TextEvent`, `ToolCallEvent` and `ToolResultEvent`, in order, each
    naming the agent and `invocation_id` (the workflow id)."""
    events: list[StreamEvent] = []
    calls: dict[str, ToolUseBlock] = {}
    for record in records:
        data: dict[str, Any] = json.loads(record.data)
        base: dict[str, Any] = {"agent": data["agent"], "invocation_id": invocation_id}
        if record.kind == "text":
            events.append(TextEvent(text=data["text"], **base))
        elif record.kind == "tool_call":
            call = ToolUseBlock(id=data["id"], name=data["name"], input=data["input"])
            calls[call.id] = call
            events.append(ToolCallEvent(call=call, **base))
        elif record.kind == "tool_result":
            events.append(
                ToolResultEvent(
                    call=calls.get(data["id"]) or ToolUseBlock(id=data["id"], name="", input={}),
                    result=data["result"],
                    blocks=(TextBlock(text=data["result"]),),
                    is_error=data["is_error"],
                    **base,
                )
            )
    return events


async def query_events(handle: WorkflowHandle[Any, Any]) -> list[StreamEvent]:
    """The run's events so far, through the `events` query (also after the run ended,
    while a worker serves the task queue)."""
    records = await handle.query("events", result_type=list[RecordedEvent])
    return stream_events(records, invocation_id=handle.id)
