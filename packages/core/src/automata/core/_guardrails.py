"""Guardrails: checks that may stop a run, on what goes in and on what comes out.

An input guardrail is a function (sync or async) of the `RunContext` and the messages
the run starts from; an output guardrail, of the `RunContext` and the run's final
output (the typed value, or the answer text). Each returns a `GuardrailResult`; one
that is `tripped` stops the run with `InputGuardrailTripped` or
`OutputGuardrailTripped`, naming it. Input guardrails run before the first model call,
or alongside it when declared `run_in_parallel=True`, in which case a trip cancels
the call in flight. The rules are **L73**-**L78** of docs/loop.md.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeAlias, TypeVar

from automata.core._blocks import Message
from automata.core._deps import DepsT, RunContext
from automata.core._errors import ArgumentTypeError, RunError
from automata.core._result import RunResult

__all__ = [
    "GuardrailError",
    "GuardrailResult",
    "GuardrailTripped",
    "InputGuard",
    "InputGuardrail",
    "InputGuardrailFunction",
    "InputGuardrailTripped",
    "OutputGuardrail",
    "OutputGuardrailFunction",
    "OutputGuardrailTripped",
    "check_output",
]


R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class GuardrailResult:
    """A guardrail's verdict: `tripped` stops the run; `info` is anything the
    guardrail wants the caller to see (a reason, a score), carried by the error."""

    tripped: bool = False
    info: Any = None


InputGuardrailFunction: TypeAlias = Callable[
    [RunContext[DepsT], tuple[Message, ...]], GuardrailResult | Awaitable[GuardrailResult]
]
"""A function of the run's context and the messages the run starts from (system
message first, the task last), sync or async."""

OutputGuardrailFunction: TypeAlias = Callable[
    [RunContext[DepsT], Any], GuardrailResult | Awaitable[GuardrailResult]
]
"""A function of the run's context and its final output, sync or async."""


def _name_of(function: object, what: str) -> str:
    if not callable(function):
        raise ArgumentTypeError(
            f"an {what} guardrail must be a function of the run context and the "
            f"{'messages' if what == 'input' else 'output'}, got {type(function).__name__}"
        )
    return str(getattr(function, "__name__", type(function).__name__))


@dataclass(frozen=True, slots=True)
class InputGuardrail(Generic[DepsT]):
    """An input guardrail: `function`, the `name` errors give (default: the function's
    name) and whether it runs alongside the first model call (`run_in_parallel`)
    instead of before it."""

    function: InputGuardrailFunction[DepsT]
    name: str = ""
    run_in_parallel: bool = False

    def __post_init__(self) -> None:
        default = _name_of(self.function, "input")
        if not self.name:
            object.__setattr__(self, "name", default)


@dataclass(frozen=True, slots=True)
class OutputGuardrail(Generic[DepsT]):
    """An output guardrail: `function` and the `name` errors give (default: the
    function's name)."""

    function: OutputGuardrailFunction[DepsT]
    name: str = ""

    def __post_init__(self) -> None:
        default = _name_of(self.function, "output")
        if not self.name:
            object.__setattr__(self, "name", default)


class GuardrailTripped(RunError):
    """A guardrail tripped and stopped the run. `guardrail` names it, `info` is the
    `info` of its `GuardrailResult`; `.result` is the run as far as it got."""

    def __init__(
        self,
        message: str,
        result: RunResult[Any] | None = None,
        *,
        guardrail: str = "",
        info: Any = None,
    ) -> None:
        super().__init__(message, result)
        self.guardrail = guardrail
        self.info = info


class InputGuardrailTripped(GuardrailTripped):
    """An input guardrail tripped: no model reply was committed."""


class OutputGuardrailTripped(GuardrailTripped):
    """An output guardrail tripped on the run's final output (the answer stays in the
    transcript; `result.output` is the output it rejected)."""


class GuardrailError(RunError):
    """A guardrail failed (raised, or returned something that is not a
    `GuardrailResult`). `guardrail` names it; the exception it raised is the
    `__cause__`; `.result` is the run as far as it got."""

    def __init__(
        self, message: str, result: RunResult[Any] | None = None, *, guardrail: str = ""
    ) -> None:
        super().__init__(message, result)
        self.guardrail = guardrail


async def _check(
    kind: str,
    name: str,
    function: Callable[[RunContext[Any], Any], Any],
    context: RunContext[Any],
    value: Any,
) -> None:
    """Run one guardrail; raise its trip or its failure."""
    try:
        verdict = function(context, value)
        if inspect.isawaitable(verdict):
            verdict = await verdict
    except Exception as exc:
        raise GuardrailError(
            f'{kind} guardrail "{name}" failed: {type(exc).__name__}: {exc}', guardrail=name
        ) from exc
    if not isinstance(verdict, GuardrailResult):
        raise GuardrailError(
            f'{kind} guardrail "{name}" returned {type(verdict).__name__}, not a GuardrailResult',
            guardrail=name,
        )
    if verdict.tripped:
        error = InputGuardrailTripped if kind == "input" else OutputGuardrailTripped
        raise error(f'{kind} guardrail "{name}" tripped', guardrail=name, info=verdict.info)


async def check_output(
    guardrails: Sequence[OutputGuardrail[Any]], context: RunContext[Any], output: Any
) -> None:
    """Run the output guardrails in order; the first that trips (or fails) raises."""
    for guardrail in guardrails:
        await _check("output", guardrail.name, guardrail.function, context, output)


async def _cancelled(*tasks: asyncio.Future[Any]) -> None:
    """Cancel `tasks` and wait until they have stopped, ignoring how they ended."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@dataclass(slots=True)
class InputGuard:
    """One run's input guardrails, checked around its first model call only.

    `before` runs the blocking guardrails in order; `around` runs the provider call
    and the parallel guardrails together: a trip (or failure) cancels the call and
    waits for it to stop before raising; a reply that arrives first is held until
    every parallel guardrail has passed, so nothing is committed before them."""

    guardrails: tuple[InputGuardrail[Any], ...]
    context: RunContext[Any]
    spent: bool = field(default=False)

    async def before(self, messages: tuple[Message, ...]) -> None:
        for guardrail in self.guardrails:
            if not guardrail.run_in_parallel:
                await _check("input", guardrail.name, guardrail.function, self.context, messages)

    async def around(self, messages: tuple[Message, ...], call: Callable[[], Awaitable[R]]) -> R:
        parallel = [g for g in self.guardrails if g.run_in_parallel]
        if not parallel:
            return await call()
        checks = [
            asyncio.ensure_future(_check("input", g.name, g.function, self.context, messages))
            for g in parallel
        ]
        model: asyncio.Future[R] = asyncio.ensure_future(call())
        try:
            pending: set[asyncio.Future[Any]] = {*checks, model}
            while any(not c.done() for c in checks):
                _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                failed = next((c for c in checks if c.done() and c.exception() is not None), None)
                if failed is not None:
                    await _cancelled(model, *checks)
                    failed.result()  # raises the trip or the failure
            return await model
        except BaseException:
            await _cancelled(model, *checks)
            raise
