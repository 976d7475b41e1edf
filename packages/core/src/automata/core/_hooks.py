"""Run hooks: transform what is sent to the provider, and act after each run.

A hook is any object with either or both methods of `Hook`. Pre-send hooks run in
order before every provider call and may return a changed request; the stored
transcript never changes. Post-run hooks run in order after every run (success, error
or cancellation) once the transcript is committed, shielded from the run's
cancellation so a checkpoint can still be written.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from automata.core._provider import ModelRequest
from automata.core._result import RunResult

__all__ = ["Hook", "PostRunFunction", "PreSendFunction", "post_run", "pre_send"]

PreSendFunction = Callable[[ModelRequest], Awaitable[ModelRequest]]
PostRunFunction = Callable[[RunResult[Any], BaseException | None], Awaitable[None]]


class Hook:
    """Base for hooks; override either method. The defaults do nothing."""

    async def before_send(self, request: ModelRequest) -> ModelRequest:
        """Return the request to send (the same one, or a changed copy)."""
        return request

    async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
        """Called after a run with its result (partial on failure) and its error."""


@dataclass(frozen=True, slots=True)
class _PreSend(Hook):
    function: PreSendFunction

    async def before_send(self, request: ModelRequest) -> ModelRequest:
        return await self.function(request)


@dataclass(frozen=True, slots=True)
class _PostRun(Hook):
    function: PostRunFunction

    async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
        await self.function(result, error)


def pre_send(function: PreSendFunction) -> Hook:
    """A hook from an async function `(request) -> request`."""
    return _PreSend(function)


def post_run(function: PostRunFunction) -> Hook:
    """A hook from an async function `(result, error) -> None`."""
    return _PostRun(function)
