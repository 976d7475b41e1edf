"""`RunStream`: a run delivered as a live async iterator of events.

The run starts on first iteration, in its own task; events from the run and from its
sub-agents (whose tools may run concurrently) reach the consumer one at a time, in the
order they were produced. When the iterator is exhausted `.result` holds the
`RunResult`; a failed run raises its error after its last event. Closing the stream
early (`aclose()`, leaving `async with`, or dropping it) cancels the run cleanly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Generic, TypeVar

from automata.core.events import StreamEvent
from automata.core.result import RunResult

__all__ = ["RunStream"]

T = TypeVar("T")

_DONE = object()

RunStarter = Callable[[Callable[[StreamEvent], None]], Awaitable[RunResult[Any]]]


class RunStream(Generic[T]):
    """Async iterator of a run's `StreamEvent`s; `.result` once exhausted."""

    __slots__ = ("__weakref__", "_queue", "_result", "_start", "_task")

    def __init__(self, start: RunStarter) -> None:
        self._start = start
        self._queue: asyncio.Queue[object] | None = None
        self._task: asyncio.Task[RunResult[Any]] | None = None
        self._result: RunResult[T] | None = None

    @property
    def result(self) -> RunResult[T]:
        """The run's result; raises `RuntimeError` before the stream is exhausted."""
        if self._result is None:
            raise RuntimeError("the stream has not finished; iterate it to the end first")
        return self._result

    def __aiter__(self) -> RunStream[T]:
        return self

    async def __anext__(self) -> StreamEvent:
        if self._task is None:
            self._begin()
        assert self._queue is not None
        assert self._task is not None
        item = await self._queue.get()
        if item is _DONE:
            self._queue.put_nowait(_DONE)  # later calls end too
            self._result = self._task.result()  # raises the run's error, if any
            raise StopAsyncIteration
        return item  # type: ignore[return-value]

    def _begin(self) -> None:
        queue: asyncio.Queue[object] = asyncio.Queue()
        self._queue = queue
        task = asyncio.ensure_future(self._start(queue.put_nowait))
        task.add_done_callback(lambda _: queue.put_nowait(_DONE))
        self._task = task

    async def aclose(self) -> None:
        """Cancel the run if it is still going and wait until it has stopped."""
        task = self._task
        if task is None or task.done():
            return
        task.cancel()
        try:
            await asyncio.wait({task})
        finally:
            if not task.cancelled():
                task.exception()  # retrieved: closing was the caller's decision

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
        if task is not None and not task.done():
            task.cancel()
