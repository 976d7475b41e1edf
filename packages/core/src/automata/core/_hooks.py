"""Run hooks: transform what is sent to the provider, and act after each run.

A hook is any object with either or both methods of `Hook`. Pre-send hooks run in
order before every provider call and may return a changed request; the stored
transcript never changes. Post-run hooks run in order after every run (success, error
or cancellation) once the transcript is committed, shielded from the run's
cancellation so a checkpoint can still be written.

Either method may also declare a keyword parameter named `context`: the run then
passes its `RunContext` (the run's `deps`, the agent answering and the invocation id)
as `context=`. Hooks written without it keep working unchanged (L86).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from automata.core._deps import RunContext
from automata.core._provider import ModelRequest
from automata.core._result import RunResult

__all__ = [
    "Hook",
    "PostRunFunction",
    "PreSendFunction",
    "WithDeps",
    "finish_through",
    "post_run",
    "pre_send",
    "send_through",
]

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


def _takes_context(method: Callable[..., Any]) -> bool:
    """Whether a hook method declares a `context` parameter it can be given by name."""
    try:
        parameter = inspect.signature(method).parameters.get("context")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )


async def send_through(hook: Hook, request: ModelRequest, context: RunContext[Any]) -> ModelRequest:
    """`hook.before_send(request)`, given `context=` when it declares it."""
    method = hook.before_send
    if _takes_context(method):
        return await method(request, context=context)  # type: ignore[call-arg]
    return await method(request)


async def finish_through(
    hook: Hook, result: RunResult[Any], error: BaseException | None, deps: Any
) -> None:
    """`hook.after_run(result, error)`, given `context=` (the run's deps, the agent
    that finished it and its invocation id) when it declares it."""
    method = hook.after_run
    if _takes_context(method):
        context = RunContext(deps, result.agent, result.invocation_id)
        await method(result, error, context=context)  # type: ignore[call-arg]
        return
    await method(result, error)


@dataclass(frozen=True, slots=True)
class WithDeps(Hook):
    """A post-run hook bound to one run's deps, so it can be given its context."""

    hook: Hook
    deps: Any

    async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
        await finish_through(self.hook, result, error, self.deps)
