"""What every activity of this package does alike: heartbeat while its work runs, and
name an error in one line."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TypeVar

from temporalio import activity

__all__ = ["error_message", "heartbeating"]

T = TypeVar("T")


async def heartbeating(work: Awaitable[T]) -> T:
    """Await `work`, heartbeating at a third of the activity's heartbeat timeout, so a
    worker that dies is noticed by the server within that timeout (TP6)."""
    timeout = activity.info().heartbeat_timeout
    task = asyncio.ensure_future(work)
    if timeout is None:
        return await task
    interval = max(timeout.total_seconds() / 3, 0.05)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=interval)
            if done:
                return task.result()
            activity.heartbeat()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


def error_message(error: BaseException) -> str:
    """The error's message, or its type's name when it has none (or cannot say it)."""
    try:
        text = str(error)
    except Exception:
        text = ""
    return text or type(error).__name__
