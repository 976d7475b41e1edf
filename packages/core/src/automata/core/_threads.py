"""The threads sync tools run on: a bounded set per agent, apart from everything else.

A sync tool function blocks the thread it runs on, and Python cannot stop a thread: a
call that times out leaves its thread running until the function returns, maybe never.
On the event loop's default executor (`asyncio.to_thread`) such threads would take the
places that file work and DNS lookups need, and `asyncio.run` (so `run_sync`) waits for
that executor's threads when it shuts down. So sync tools get threads of their own:

- each call runs on a new daemon thread, which nothing ever joins: neither an event
  loop's shutdown nor the interpreter's exit waits for a hung tool;
- at most `limit` of an agent's sync-tool threads run at once (`ToolPolicy.
  max_sync_threads`); a thread holds its place until its function returns, even after
  its call timed out, so hung tools cannot add threads without bound;
- a call that finds every place taken waits for one, first come first served; the
  wait is part of the call (its timeout covers it, cancelling it gives the place up).

The places are counted per agent (`ThreadSlots`), shared by the agent's runs whatever
event loop or thread they run in; nothing is shared between agents or held globally.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["DEFAULT_MAX_SYNC_THREADS", "ThreadSlots", "ToolThreads"]

T = TypeVar("T")

DEFAULT_MAX_SYNC_THREADS = 32
"""How many of an agent's sync-tool threads may run at once unless the policy says."""


class _Waiter:
    __slots__ = ("future", "limit", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, limit: int) -> None:
        self.loop = loop
        self.future: asyncio.Future[None] = loop.create_future()
        self.limit = limit


class ThreadSlots:
    """The places for one agent's sync-tool threads. Thread-safe, and usable from any
    number of event loops at once: a place freed in a worker thread is handed to the
    first waiter through that waiter's own loop."""

    __slots__ = ("_busy", "_lock", "_waiters")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy = 0
        self._waiters: deque[_Waiter] = deque()

    @property
    def busy(self) -> int:
        """How many threads hold a place now (running, or hung past their timeout)."""
        return self._busy

    async def acquire(self, limit: int) -> None:
        """Take a place once fewer than `limit` are taken and nobody waits before us.
        Cancelled while waiting, it takes none."""
        with self._lock:
            if not self._waiters and self._busy < limit:
                self._busy += 1
                return
            waiter = _Waiter(asyncio.get_running_loop(), limit)
            self._waiters.append(waiter)
        try:
            await waiter.future
        except BaseException:
            with self._lock:
                queued = waiter in self._waiters
                if queued:
                    self._waiters.remove(waiter)
                    self._hand_over()
            if not queued:  # the place was handed to us as we were cancelled
                self.release()
            raise

    def release(self) -> None:
        """Give a place back (from any thread)."""
        with self._lock:
            self._busy -= 1
            self._hand_over()

    def _hand_over(self) -> None:
        """Give free places to the first waiters (the lock is held)."""
        while self._waiters and self._busy < self._waiters[0].limit:
            waiter = self._waiters.popleft()
            self._busy += 1
            try:
                waiter.loop.call_soon_threadsafe(_wake, waiter.future)
            except RuntimeError:  # its event loop is closed: nobody is waiting any more
                self._busy -= 1


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


@dataclass(frozen=True, slots=True)
class ToolThreads:
    """Where one run's sync tools run: the agent's `slots`, at most `limit` at once.
    `ToolContext.threads` hands it to tools; outside a run a sync tool gets a thread of
    its own."""

    slots: ThreadSlots
    limit: int = DEFAULT_MAX_SYNC_THREADS

    async def run(self, name: str, function: Callable[..., T], /, **kwargs: Any) -> T:
        """`function(**kwargs)` on a daemon thread named `name`, in a copy of the
        current context, once a place is free. Cancelling the call (a timeout)
        abandons the thread, which keeps its place until the function returns."""
        await self.slots.acquire(self.limit)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        context = contextvars.copy_context()

        def work() -> None:
            try:
                try:
                    value = context.run(function, **kwargs)
                except BaseException as exc:  # handed to the caller, whatever it is
                    error = exc
                    _deliver(loop, lambda: _set_error(future, error))
                else:
                    _deliver(loop, lambda: _set_result(future, value))
            finally:
                self.slots.release()

        try:
            threading.Thread(target=work, name=name, daemon=True).start()
        except BaseException:
            self.slots.release()
            raise
        return await future


def _set_result(future: asyncio.Future[T], value: T) -> None:
    if not future.done():  # else the call was abandoned (timed out or cancelled)
        future.set_result(value)


def _set_error(future: asyncio.Future[T], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


def _deliver(loop: asyncio.AbstractEventLoop, settle: Callable[[], None]) -> None:
    with contextlib.suppress(RuntimeError):  # a closed loop: the run is long over
        loop.call_soon_threadsafe(settle)
