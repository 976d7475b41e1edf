"""A tool call's activity (docs/threads.md, AC rules) as each protocol's own part for
display data that is not conversation content (docs/ui-protocols.md, U rules):

- the AI SDK's UI message stream: a `data-activity` data part whose `id` is the call
  id, so each newer one replaces the last in the message's parts (the SDK reconciles
  data parts of one type and id);
- AG-UI: an `ACTIVITY_SNAPSHOT` event whose `messageId` is `activity-<call id>` and
  `activityType` is `ACTIVITY_TYPE`, each one replacing the activity message's content.

Both carry the same content: `callId`, `toolName` and the activity as the core's
`Activity.to_data()` writes it (label, rows, status, answer, operation, dropped). That
text is sanitized and bounded when the activity is built (AC2) and is display data:
a front end shows it as text, never as markup it runs.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import ActivitySnapshotEvent

from automata.core import Activity

__all__ = ["ACTIVITY_TYPE", "activity_chunk", "activity_content", "activity_event"]

ACTIVITY_TYPE = "automata.tool_activity"
"""The AG-UI `activityType` of a tool call's activity."""


def activity_content(call_id: str, name: str, activity: Activity) -> dict[str, Any]:
    """What both protocols carry for call `call_id` of tool `name`."""
    return {"callId": call_id, "toolName": name, **activity.to_data()}


def activity_chunk(call_id: str, name: str, activity: Activity) -> dict[str, Any]:
    """The UI message stream's `data-activity` part of the call."""
    return {
        "type": "data-activity",
        "id": call_id,
        "data": activity_content(call_id, name, activity),
    }


def activity_event(call_id: str, name: str, activity: Activity) -> ActivitySnapshotEvent:
    """The AG-UI `ACTIVITY_SNAPSHOT` of the call."""
    return ActivitySnapshotEvent(
        message_id=f"activity-{call_id}",
        activity_type=ACTIVITY_TYPE,
        content=activity_content(call_id, name, activity),
    )
