"""Change counts a host keeps for its subscribers, and the wake-ups that go with them.

Each thread has its own count, and the thread list one of its own; a change wakes
only the subscribers waiting on what changed (a thread's, and the list's when the
list may have changed), so a host with many subscribed threads does work for a
change in proportion to the subscribers of that thread, not to all of them. Waits
need no timer each: the host starts poll rounds (`poll`) on one clock of its own,
which wake every waiter to look for changes made elsewhere.
"""

from __future__ import annotations

import asyncio

__all__ = ["ChangeSignals"]


class ChangeSignals:
    """Counts of changes per thread (and of the thread list, key None) and events
    that wake whoever waits for the next one."""

    def __init__(self) -> None:
        self._counts: dict[str | None, int] = {}
        self._events: dict[str | None, asyncio.Event] = {}
        self._closed = False
        self._polls = 0

    def count(self, key: str | None) -> int:
        """How often `key` (a thread id; None: the thread list) changed so far."""
        return self._counts.get(key, 0)

    def bump(self, key: str | None) -> None:
        """Count a change of `key` and wake its waiters."""
        self._counts[key] = self._counts.get(key, 0) + 1
        event = self._events.pop(key, None)
        if event is not None:
            event.set()

    def poll(self) -> None:
        """Start a poll round: wake every waiter, whatever it waits for (each then
        looks for changes other processes made)."""
        self._polls += 1
        for event in self._events.values():
            event.set()
        self._events.clear()

    def close(self) -> None:
        """Wake every waiter for good (the host shut down)."""
        self._closed = True
        for event in self._events.values():
            event.set()
        self._events.clear()

    async def wait(self, key: str | None, seen: int) -> None:
        """Wait until `key` changed since its count was `seen`, the next poll round
        starts (`poll`), or `close` is called."""
        polls = self._polls
        while not self._closed and self.count(key) == seen and self._polls == polls:
            event = self._events.get(key)
            if event is None:
                event = self._events[key] = asyncio.Event()
            await event.wait()
