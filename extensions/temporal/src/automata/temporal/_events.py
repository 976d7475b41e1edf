"""A run's events, recorded in the workflow and read back as the core's stream events.

The workflow's loop reports its stream events as it goes (the core's `on_event`); each
is kept as a `RecordedEvent` (TP7). The `events` query returns them so far;
`query_events` turns them back into the core's events for a `StreamAccumulator`, and
`follow_events` polls the query and yields each new event once, until the run ends.
A Temporal workflow cannot push to a caller, and the provider calls are activities whose
token deltas are not recorded: the events carry whole replies.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

from temporalio.client import WorkflowExecutionStatus, WorkflowHandle

from automata.core import (
    HandoffEvent,
    StreamEvent,
    TextBlock,
    TextEvent,
    ThinkingEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUseBlock,
    Usage,
    UsageEvent,
)
from automata.temporal._types import RecordedEvent

__all__ = ["follow_events", "query_events", "record_event", "stream_events"]


def record_event(event: StreamEvent) -> RecordedEvent | None:
    """`event` as the workflow keeps it; None for the kinds it does not keep (deltas,
    partial output and compaction, which a non-streaming provider never causes)."""
    base: dict[str, Any] = {"agent": event.agent}
    if isinstance(event, TextEvent):
        return RecordedEvent("text", json.dumps({**base, "text": event.text}))
    if isinstance(event, ThinkingEvent):
        return RecordedEvent("thinking", json.dumps({**base, "text": event.text}))
    if isinstance(event, ToolCallEvent):
        call = event.call
        data = {**base, "id": call.id, "name": call.name, "input": call.input}
        return RecordedEvent("tool_call", json.dumps(data))
    if isinstance(event, ToolResultEvent):
        data = {
            **base,
            "id": event.call.id,
            "name": event.call.name,
            "result": event.result,
            "is_error": event.is_error,
        }
        return RecordedEvent("tool_result", json.dumps(data))
    if isinstance(event, UsageEvent):
        return RecordedEvent("usage", json.dumps({**base, "usage": event.usage.model_dump()}))
    if isinstance(event, HandoffEvent):
        data = {**base, "from_agent": event.from_agent, "to_agent": event.to_agent}
        return RecordedEvent("handoff", json.dumps(data))
    return None


def stream_events(records: Sequence[RecordedEvent], *, invocation_id: str) -> list[StreamEvent]:
    """`records` as the core's stream events, in order, each naming its agent and
    `invocation_id` (the workflow id); approvals, which have no stream event, are left
    out."""
    events: list[StreamEvent] = []
    calls: dict[str, ToolUseBlock] = {}
    for record in records:
        data: dict[str, Any] = json.loads(record.data)
        base: dict[str, Any] = {"agent": data["agent"], "invocation_id": invocation_id}
        if record.kind == "text":
            events.append(TextEvent(text=data["text"], **base))
        elif record.kind == "thinking":
            events.append(ThinkingEvent(text=data["text"], **base))
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
        elif record.kind == "usage":
            events.append(UsageEvent(usage=Usage.model_validate(data["usage"]), **base))
        elif record.kind == "handoff":
            events.append(
                HandoffEvent(from_agent=data["from_agent"], to_agent=data["to_agent"], **base)
            )
    return events


async def query_events(handle: WorkflowHandle[Any, Any]) -> list[StreamEvent]:
    """The run's events so far, through the `events` query (also after the run ended,
    while a worker serves the task queue)."""
    records = await handle.query("events", result_type=list[RecordedEvent])
    return stream_events(records, invocation_id=handle.id)


async def follow_events(
    handle: WorkflowHandle[Any, Any], *, interval: float = 0.2
) -> AsyncIterator[StreamEvent]:
    """Each of the run's events once, in order, as they are recorded: the `events` query
    polled every `interval` seconds until the run is closed (its last events included).
    The handle should name the workflow by id only (`client.get_workflow_handle(id)`)
    to follow a run that continues as new (TP13)."""
    seen = 0
    while True:
        closed = (await handle.describe()).status not in (None, WorkflowExecutionStatus.RUNNING)
        events = await query_events(handle)
        for event in events[seen:]:
            yield event
        seen = max(seen, len(events))
        if closed:
            return
        await asyncio.sleep(interval)
