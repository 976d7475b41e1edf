"""An ordered outbox for one session's updates."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

from automata.acp._updates import Update

__all__ = ["Outbox"]

Send = Callable[[Update], Awaitable[None]]


class Outbox:
    """Queues updates from synchronous code (the run's event callback) and sends them
    one at a time, in the order they were queued, from a task of its own.

    `flush()` returns once everything queued so far was sent; `close()` flushes and
    stops the sending task. A send that fails stops sending; its error is raised from
    the next `flush()` or `close()`."""

    __slots__ = ("_error", "_queue", "_send", "_task")

    def __init__(self, send: Send) -> None:
        self._send = send
        self._queue: asyncio.Queue[Update] = asyncio.Queue()
        self._error: BaseException | None = None
        self._task = asyncio.get_running_loop().create_task(self._drain())

    def put(self, updates: Iterable[Update]) -> None:
        for update in updates:
            self._queue.put_nowait(update)

    async def _drain(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                if self._error is None:
                    await self._send(update)
            except Exception as exc:
                self._error = exc
            finally:
                self._queue.task_done()

    async def flush(self) -> None:
        await self._queue.join()
        if self._error is not None:
            raise self._error

    async def close(self) -> None:
        try:
            await self.flush()
        finally:
            self._task.cancel()
            await asyncio.wait([self._task])
