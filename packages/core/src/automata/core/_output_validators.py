"""Output validators: functions that check (and may change) a run's output before it
is returned, or ask the model to try again by raising `ModelRetry`. The rules are
**L71**-**L72** of docs/loop.md."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias

from typing_extensions import TypeVar

from automata.core._deps import DepsT, RunContext
from automata.core._errors import ArgumentTypeError

__all__ = ["OutputT", "OutputValidator", "check_output_validator", "validate_output"]

OutputT = TypeVar("OutputT", default=Any)

OutputValidator: TypeAlias = Callable[[RunContext[DepsT], OutputT], OutputT | Awaitable[OutputT]]
"""A function of the run's context and its output (the typed value, or the text of an
untyped run), sync or async, returning the output to keep."""


def check_output_validator(value: object) -> None:
    """Refuse what is not a function, when it is registered or handed to a run."""
    if not callable(value):
        raise ArgumentTypeError(
            "an output validator must be a function of the run context and the output, "
            f"got {type(value).__name__}"
        )


async def validate_output(
    validators: Sequence[OutputValidator[Any, Any]], context: RunContext[Any], value: Any
) -> Any:
    """`value` passed through every validator in order, each given what the one before
    returned. A `ModelRetry` (or any other error) a validator raises propagates."""
    for validator in validators:
        returned = validator(context, value)
        value = await returned if inspect.isawaitable(returned) else returned
    return value
