"""`RunStream`: a run delivered as a live async iterator of events.

The run starts on first iteration, in its own task; events from the run and from its
sub-agents (whose tools may run concurrently) reach the consumer one at a time, in the
order they were produced. The run never waits for the consumer: events queue up until
they are read. When the iterator is exhausted `.result` holds the `RunResult`; a failed
run raises its error after its last event. Closing the stream early (`aclose()` or
leaving `async with`) cancels the run and waits until it has stopped, so its transcript
is committed; dropping an unfinished stream cancels the run without waiting.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any, Generic, TypeVar

from automata.core._events import StreamEvent
from automata.core._result import RunResult

__all__ = ["RunStream"]

T = TypeVar("T")

_DONE = object()

RunStarter = Callable[[Callable[[StreamEvent], None]], Coroutine[Any, Any, RunResult[Any]]]


class _Mailbox:
    """Unbounded FIFO from the run to its one consumer: `put` never blocks and wakes a
    waiting consumer at most once however many items arrive before it runs.

    Lighter than `asyncio.Queue` (no task accounting, no putter list, no maxsize
    checks): a streamed run puts one item per delta, so this sits on the hot path.
    The consumer takes ready items straight from `items`; when it is empty it parks a
    future of its own in `waiter` (`RunStream.__anext__` does it inline: one
    coroutine fewer per awaited delta, which under thousands of concurrent runs is
    that many fewer GC-tracked objects alive between deltas).
    """

    __slots__ = ("items", "loop", "waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.items: deque[object] = deque()
        self.loop = loop
        self.waiter: asyncio.Future[None] | None = None

    def put(self, item: object) -> None:
        self.items.append(item)
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():  # a cancelled consumer leaves its cancelled waiter
                waiter.set_result(None)


async def _drive(start: RunStarter, mailbox: _Mailbox) -> RunResult[Any]:
    """The run, then `_DONE`: the run's task is done by the time a consumer sees it."""
    try:
        return await start(mailbox.put)
    finally:
        mailbox.put(_DONE)


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Mark a finished task's outcome as seen, so asyncio does not log it as lost."""
    if task.done() and not task.cancelled():
        task.exception()


class RunStream(Generic[T]):
    """Async iterator of a run's `StreamEvent`s; `.result` once exhausted.

    Iterate it once, from one task. After `aclose()` iteration ends at once, even if
    events were still queued.
    """

    __slots__ = ("__weakref__", "_closed", "_finished", "_mailbox", "_result", "_start", "_task")

    def __init__(self, start: RunStarter) -> None:
        self._start = start
        self._mailbox: _Mailbox | None = None
        self._task: asyncio.Task[RunResult[Any]] | None = None
        self._result: RunResult[T] | None = None
        self._closed = False
        self._finished = False

    @property
    def result(self) -> RunResult[T]:
        """The run's result once the stream is exhausted.

        After a failed run this raises the run's error again (it carries the partial
        result as `.result`). Before the end, or after the stream was closed early, it
        raises `RuntimeError`.
        """
        if self._result is not None:
            return self._result
        if self._finished and self._task is not None:
            self._result = self._task.result()  # raises the run's error, if any
            return self._result
        if self._closed:
            raise RuntimeError("the stream was closed before the run finished")
        raise RuntimeError("the stream has not finished; iterate it to the end first")

    def __aiter__(self) -> RunStream[T]:
        return self

    async def __anext__(self) -> StreamEvent:
        if self._closed:
            raise StopAsyncIteration
        mailbox = self._mailbox
        if mailbox is None:
            mailbox = self._begin()
        items = mailbox.items
        while not items:
            waiter = mailbox.loop.create_future()
            mailbox.waiter = waiter
            await waiter
        item = items[0]  # `_DONE` stays in place, so every later call ends too
        if self._closed:
            raise StopAsyncIteration
        if item is _DONE:
            self._finished = True
            assert self._task is not None
            self._result = self._task.result()  # raises the run's error, if any
            raise StopAsyncIteration
        items.popleft()
        return item  # type: ignore[return-value]

    def _begin(self) -> _Mailbox:
        loop = asyncio.get_running_loop()
        mailbox = _Mailbox(loop)
        task = loop.create_task(_drive(self._start, mailbox), name="automata-run-stream")
        # `_drive` marks the end itself, in the task's last step, so the consumer wakes
        # one loop iteration sooner; this covers a task cancelled before it started.
        # A second `_DONE` is harmless: the first one is never taken out.
        task.add_done_callback(lambda _: mailbox.put(_DONE))
        self._task = task
        self._mailbox = mailbox
        return mailbox

    async def aclose(self) -> None:
        """Cancel the run if it is still going and wait until it has stopped.

        The run's cancellation commits its transcript (every tool call gets a result)
        and runs its post-run hooks before this returns. If the caller is itself
        cancelled meanwhile, it still waits for the run to stop, then re-raises that
        cancellation. Closing twice, or after the end, does nothing more.
        """
        already_closed = self._closed
        self._closed = True
        task = self._task
        if task is None:
            return
        if task.done():
            self._finished = True  # the run ended on its own; `.result` reports it
            _retrieve(task)
            return
        if not already_closed:
            task.cancel()
        interrupted: asyncio.CancelledError | None = None
        while not task.done():
            try:
                await asyncio.wait({task})
            except asyncio.CancelledError as exc:
                interrupted = exc
        _retrieve(task)  # closing was the caller's decision: the run's error is not news
        if not task.cancelled():
            self._finished = True  # it ended on its own before the cancellation landed
        if interrupted is not None:
            raise interrupted

    async def __aenter__(self) -> RunStream[T]:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __del__(self) -> None:
        task = getattr(self, "_task", None)
        if task is None:
            return
        if task.done():
            _retrieve(task)
        elif not task.get_loop().is_closed():
            task.cancel()
