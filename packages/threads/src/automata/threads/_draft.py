"""A thread's draft: the model reply being written, kept in the host's memory only.

The runner hands each of a turn's stream events to `Draft.take` while a step is made;
the view shows the draft's blocks as live items under the key the reply will have once
committed (`ThreadFold.next_reply_key`), so a live item and the committed item that
replaces it share their id and ordinal. A draft is never journaled while it grows: it
is dropped when its step commits, and when its turn fails or its runner stops. A
cancel that reaches the host holding the draft journals what was written so far as
the turn's stopped reply (`Draft.stopped_reply`, a `stopped` record). See
docs/threads.md, T22-T24, T26.

A draft also keeps the latest activity of each of the turn's running calls (the run's
own `ActivityEvent`s), which the view shows on those calls until their results commit
it (AC7).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from automata.core import (
    Activity,
    ActivityEvent,
    Block,
    Message,
    StreamEvent,
    TextBlock,
    TextEvent,
    ThinkingBlock,
    ThinkingEvent,
    ToolCallDeltaEvent,
)

__all__ = ["STOPPED", "Draft", "DraftBlock", "LiveDrafts", "is_stopped"]

STOPPED = "automata.threads"
"""The `Message.extra` key of a reply its turn's cancel cut short: `{"stopped": true}`
under it. Providers ignore keys not their own, so the marked message is sent as any
other assistant message."""


def is_stopped(message: Message) -> bool:
    """Whether `message` is a reply a cancel cut short (`Draft.stopped_reply`)."""
    mark = (message.extra or {}).get(STOPPED)
    return isinstance(mark, dict) and mark.get("stopped") is True


@dataclass
class DraftBlock:
    """One block as written so far: `thinking` or `assistant` text, or a `tool_call`
    with the argument text written so far (`arguments`)."""

    kind: str
    text: str = ""
    call_id: str | None = None
    tool_name: str | None = None

    def fields(self) -> dict[str, Any]:
        """The view item fields this block shows as."""
        if self.kind == "tool_call":
            return {
                "kind": "tool_call",
                "tool_name": self.tool_name,
                "call_id": self.call_id,
                "status": "pending",
                "partial_input": self.text,
            }
        return {"kind": self.kind, "text": self.text}


class Draft:
    """The reply of turn `turn_id` that will be committed under `key`, as far as its
    events have come. `revision` counts the events taken (0: nothing yet);
    `published` is the revision subscribers were last woken for. `activity` holds the
    latest activity of each call that reported one while the draft was current.

    Blocks follow the order the model writes them, a new block starting whenever the
    kind changes (or, for calls, the call id), which is how providers assemble the
    reply they commit; the block index is therefore the committed block's index."""

    __slots__ = ("activity", "blocks", "key", "published", "revision", "turn_id")

    def __init__(self, turn_id: str, key: str) -> None:
        self.turn_id = turn_id
        self.key = key
        self.blocks: list[DraftBlock] = []
        self.activity: dict[str, Activity] = {}
        self.revision = 0
        self.published = 0

    def take(self, event: StreamEvent) -> bool:
        """Grow the draft with `event` (the run's own text, thinking and argument
        deltas, and its calls' activity; sub-agents' events and announcements are
        left out). True when the draft changed."""
        if event.depth != 0:
            return False
        if isinstance(event, TextEvent):
            self._grow("assistant", event.text)
        elif isinstance(event, ThinkingEvent):
            self._grow("thinking", event.text)
        elif isinstance(event, ToolCallDeltaEvent):
            last = self.blocks[-1] if self.blocks else None
            if last is None or last.kind != "tool_call" or last.call_id != event.call_id:
                last = DraftBlock("tool_call", call_id=event.call_id, tool_name=event.name)
                self.blocks.append(last)
            last.text += event.delta
        elif isinstance(event, ActivityEvent):
            self.activity[event.call_id] = event.activity
        else:
            return False
        self.revision += 1
        return True

    def stopped_reply(self) -> Message | None:
        """The reply as far as it was written, as an assistant message marked stopped
        (`is_stopped`), or None when no text or thinking was written. Tool calls
        being written are left out (their arguments are unfinished and no result
        could follow them), so the message is one every provider accepts as the
        transcript goes on; thinking is kept unsigned (a provider that needs a
        signature leaves it out of its requests)."""
        blocks: list[Block] = []
        for block in self.blocks:
            if block.kind == "assistant" and block.text:
                blocks.append(TextBlock(text=block.text))
            elif block.kind == "thinking" and block.text:
                blocks.append(ThinkingBlock(thinking=block.text))
        if not blocks:
            return None
        return Message(role="assistant", content=tuple(blocks), extra={STOPPED: {"stopped": True}})

    def _grow(self, kind: str, text: str) -> None:
        if self.blocks and self.blocks[-1].kind == kind:
            self.blocks[-1].text += text
        else:
            self.blocks.append(DraftBlock(kind, text))


class LiveDrafts:
    """The drafts of the threads this host runs, and the coalescing of the wake-ups
    they cause: `changed` wakes a thread's subscribers at once when the last such
    wake-up is `interval` seconds old, else once when it is, so a fast stream wakes
    them at most once per `interval` and the last delta is always shown. `wake` is
    the host's (it never touches the thread list's subscribers)."""

    def __init__(self, interval: float, wake: Callable[[str], None]) -> None:
        self.interval = interval
        self._wake = wake
        self._drafts: dict[str, Draft] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._last: dict[str, float] = {}

    def get(self, thread_id: str) -> Draft | None:
        return self._drafts.get(thread_id)

    def begin(self, thread_id: str, turn_id: str, key: str) -> Draft:
        """A new, empty draft for `thread_id` (replacing any other)."""
        draft = self._drafts[thread_id] = Draft(turn_id, key)
        return draft

    def drop(self, thread_id: str, draft: Draft) -> None:
        """Forget `draft` if it is still the thread's, and show its going at once."""
        if self._drafts.get(thread_id) is not draft:
            return
        del self._drafts[thread_id]
        self._last.pop(thread_id, None)
        timer = self._timers.pop(thread_id, None)
        if timer is not None:
            timer.cancel()
        if draft.revision:
            self._wake(thread_id)

    def changed(self, thread_id: str) -> None:
        """The thread's draft grew: wake its subscribers, coalesced."""
        if thread_id in self._timers:
            return  # a wake-up is due; it will show this change too
        loop = asyncio.get_running_loop()
        now = loop.time()
        due = self._last.get(thread_id, now - self.interval) + self.interval
        if now >= due:
            self._fire(thread_id)
        else:
            self._timers[thread_id] = loop.call_later(due - now, self._fire, thread_id)

    def _fire(self, thread_id: str) -> None:
        self._timers.pop(thread_id, None)
        draft = self._drafts.get(thread_id)
        if draft is not None:
            draft.published = draft.revision
        self._last[thread_id] = asyncio.get_running_loop().time()
        self._wake(thread_id)

    def close(self) -> None:
        """Cancel pending wake-ups and forget every draft."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._drafts.clear()
