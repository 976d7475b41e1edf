"""The limits of one provider call attempt: an overall deadline and a wait limit for
each read, kept for all attempts on one event loop by one shared timer (see
`automata.core.providers`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from heapq import heapify, heappop, heappush
from typing import Final, TypeVar

__all__ = ["TAIL_GRACE", "Deadlines", "Watch"]

TAIL_GRACE: Final = 5.0
"""Seconds the rest of a body gets once its end marker was seen (a usage chunk, the
closing bytes); a server that stalls there no longer holds the reply."""

T = TypeVar("T")


_COMPACT_AT: Final = 64
"""Dropped entries a `Deadlines` keeps before it may rebuild its heap without them."""


class _Entry:
    """One armed due time of one watch; `watch` is None once it was dropped."""

    __slots__ = ("due", "watch")

    def __init__(self, due: float, watch: Watch) -> None:
        self.due = due
        self.watch: Watch | None = watch

    def __lt__(self, other: _Entry) -> bool:
        return self.due < other.due


class Deadlines:
    """The due times of every `Watch` of one event loop, kept in a heap checked by
    one loop timer armed at the earliest: an attempt costs an entry in the heap, not
    a timer of the loop's own (whose cancelled handles the loop keeps until they are
    half of all its timers). A watch is checked when its due time comes, exactly as
    a timer of its own would be."""

    __slots__ = ("_dropped", "_firing", "_handle", "_heap", "_when", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._heap: list[_Entry] = []
        self._handle: asyncio.TimerHandle | None = None
        self._when = 0.0
        self._dropped = 0
        self._firing = False

    def add(self, due: float, watch: Watch) -> _Entry:
        """Check `watch` at `due` (loop time)."""
        entry = _Entry(due, watch)
        heappush(self._heap, entry)
        if not self._firing and (self._handle is None or due < self._when):
            self._arm(due)
        return entry

    def drop(self, entry: _Entry) -> None:
        """Forget `entry` (its watch no longer needs the check)."""
        entry.watch = None
        self._dropped += 1
        heap = self._heap
        if self._dropped > _COMPACT_AT and 2 * self._dropped > len(heap):
            heap[:] = [kept for kept in heap if kept.watch is not None]
            heapify(heap)
            self._dropped = 0
            if not heap and self._handle is not None and not self._firing:
                self._handle.cancel()
                self._handle = None

    def _arm(self, due: float) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._when = due
        self._handle = self.loop.call_at(due, self._fire)

    def _fire(self) -> None:
        self._handle = None
        heap = self._heap
        now = self.loop.time()
        self._firing = True  # a watch re-armed here goes in the heap, not a new timer
        try:
            while heap and heap[0].due <= now:
                watch = heappop(heap).watch
                if watch is None:
                    self._dropped -= 1
                else:
                    watch._check()
        finally:
            self._firing = False
        while heap and heap[0].watch is None:
            heappop(heap)
            self._dropped -= 1
        if heap:
            self._arm(heap[0].due)


class Watch:
    """One attempt's deadline (`call_timeout` seconds from now) and the longest one
    read may wait (`idle`; `TAIL_GRACE` at most once `tail` is set). None turns a
    limit off. `deadlines` keeps the checks (one per event loop, shared by its
    attempts).

    `read(step)` awaits `step()` and raises `Expired` when a limit passes first (a
    hot loop can spell it out with `begin`, `end` and `expired`). The
    time between reads (the consumer's) counts towards the deadline only. One entry
    in `deadlines` serves the whole attempt: a read costs a clock reading, not a
    timer of its own, so keeping the limits stays cheap for streams of many small
    events.
    """

    __slots__ = (
        "_call_timeout",
        "_deadline",
        "_deadlines",
        "_entry",
        "_fired",
        "_idle",
        "_loop",
        "_read_limit",
        "_read_started",
        "_task",
    )

    def __init__(
        self, call_timeout: float | None, idle: float | None, deadlines: Deadlines
    ) -> None:
        self._deadlines = deadlines
        self._loop = deadlines.loop
        self._call_timeout = call_timeout
        self._deadline = None if call_timeout is None else self._loop.time() + call_timeout
        self._idle = idle
        self._read_limit = idle
        self._read_started = 0.0
        self._task: asyncio.Task[object] | None = None
        self._entry: _Entry | None = None
        self._fired: str | None = None

    def set_tail(self) -> None:
        """The end marker was seen: later reads wait `TAIL_GRACE` at most."""
        limit = TAIL_GRACE if self._idle is None else min(self._idle, TAIL_GRACE)
        if self._read_limit != limit:
            self._read_limit = limit
            self._disarm()

    def close(self) -> None:
        """Stop the checks (the attempt is over)."""
        self._disarm()

    def _disarm(self) -> None:
        if self._entry is not None:
            self._deadlines.drop(self._entry)
            self._entry = None

    def _overdue(self, now: float) -> str | None:
        if self._deadline is not None and now >= self._deadline:
            return f"the call took longer than {self._call_timeout:g} s"
        limit = self._read_limit
        if limit is not None and self._task is not None and now >= self._read_started + limit:
            if limit == self._idle:
                return f"no event for {limit:g} s"
            return "the body did not end after the end marker"
        return None

    def _arm(self) -> None:
        due = self._deadline
        if self._read_limit is not None:
            read_due = self._read_started + self._read_limit
            due = read_due if due is None else min(due, read_due)
        if due is not None:
            self._entry = self._deadlines.add(due, self)

    def _check(self) -> None:
        """The due time of this watch's entry came (its `Deadlines` popped it)."""
        self._entry = None
        if self._task is None:
            return  # between reads: the next read checks the time itself and re-arms
        reason = self._overdue(self._loop.time())
        if reason is None:
            self._arm()  # a later read started since this was armed
            return
        self._fired = reason
        self._task.cancel()

    def begin(self) -> None:
        """A read starts now: raises `Expired` when a limit has already passed. Pair
        with `end()`, and call `expired()` on `CancelledError` (as `read` does)."""
        now = self._loop.time()
        self._read_started = now
        self._task = asyncio.current_task()
        reason = self._overdue(now)
        if reason is not None:
            self._task = None
            raise Expired(reason)
        if self._entry is None:
            self._arm()

    def end(self) -> None:
        """The read is over (it returned or raised)."""
        self._task = None
        self._fired = None

    def expired(self) -> Expired | None:
        """On a `CancelledError` during a read: the `Expired` to raise instead when
        this watch cancelled the read (and nobody else cancelled the task), else None
        (the cancellation is someone else's and must propagate)."""
        fired, self._fired = self._fired, None
        if fired is not None and self._task is not None and self._task.uncancel() == 0:
            return Expired(fired)
        return None

    async def read(self, step: Callable[[], Awaitable[T]]) -> T:
        """`await step()` within the limits, else `Expired` (with the reason)."""
        self.begin()
        try:
            return await step()
        except asyncio.CancelledError:
            expired = self.expired()
            if expired is not None:
                raise expired from None
            raise
        finally:
            self.end()


class Expired(Exception):
    """A limit of a `Watch` passed; the message says which."""
