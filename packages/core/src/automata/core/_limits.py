"""Usage limits: how many requests and tokens one run may spend.

A run checks its request count before each provider call and its tokens (and cost)
after each reply; crossing a limit stops it with `UsageLimitExceeded` (rules
**L57**-**L61** and **L97**-**L98** of docs/loop.md). A sub-agent started through
`as_tool(..., share_usage_limits=True)` counts against its parent's limits as well as
its own.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any

from automata.core._cost import Cost
from automata.core._errors import ArgumentTypeError, InvalidArgumentError, RunError
from automata.core._result import RunResult
from automata.core._usage import Usage

__all__ = ["UsageLimitExceeded", "UsageLimits", "UsageMeter"]


@dataclass(frozen=True, slots=True)
class UsageLimits:
    """The most one run may spend; None leaves that measure unlimited.

    `max_requests` counts provider calls. Tokens are counted as the provider reports
    them: input tokens are everything sent (`input_tokens + cache_read_tokens +
    cache_write_tokens`), output tokens what came back, total their sum. Each of
    these must be an int of at least 1 (`ArgumentTypeError` / `InvalidArgumentError`).

    `max_cost` is the most the run may cost, a `Decimal` above 0 in the price table's
    currency, checked after each reply against the run's cost as its agent's
    `PriceTable` prices it (L97). It needs a price table, and a call the table cannot
    price stops the run: a limit that cannot be checked is never passed (L98).
    """

    max_requests: int | None = None
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_total_tokens: int | None = None
    max_cost: Decimal | None = None

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if value is None:
                continue
            if item.name == "max_cost":
                _check_max_cost(value)
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise ArgumentTypeError(
                    f"UsageLimits.{item.name} must be an int (at least 1) or None, "
                    f"got {value!r} ({type(value).__name__})"
                )
            if value < 1:
                raise InvalidArgumentError(
                    f"UsageLimits.{item.name} must be at least 1, got {value}"
                )


def _check_max_cost(value: object) -> None:
    if not isinstance(value, Decimal):
        raise ArgumentTypeError(
            f"UsageLimits.max_cost must be a Decimal (above 0) or None, "
            f"got {value!r} ({type(value).__name__}); write Decimal({str(value)!r})"
        )
    if not value.is_finite() or value <= 0:
        raise InvalidArgumentError(f"UsageLimits.max_cost must be above 0, got {value}")


class UsageLimitExceeded(RunError):
    """A run reached one of its `UsageLimits`. `limit` names it (`"max_requests"`,
    `"max_total_tokens"`, `"max_cost"`, ...), `maximum` is its value and `used` what
    the run (with the sub-agents sharing its limits) had spent, or, for requests, the
    request it was about to make. For `max_cost`, both are `Decimal`s, and `used` is
    None when a call could not be priced (L98). The partial result is in `.result`."""

    def __init__(
        self,
        message: str,
        result: RunResult[Any] | None = None,
        *,
        limit: str,
        maximum: int | Decimal,
        used: int | Decimal | None,
    ) -> None:
        super().__init__(message, result)
        self.limit = limit
        self.maximum = maximum
        self.used = used


class UsageMeter:
    """What one run has spent, checked against its limits and, through `parent`,
    against the limits of the run whose sub-agent it is (when it shares them)."""

    __slots__ = ("cost", "input_tokens", "limits", "output_tokens", "parent", "requests")

    def __init__(self, limits: UsageLimits | None, parent: UsageMeter | None) -> None:
        self.limits = limits
        self.parent = parent
        self.requests = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.cost: Decimal | None = Decimal(0)
        """The cost counted so far; None once a call could not be priced."""

    def start_request(self) -> UsageLimitExceeded | None:
        """Count one more request, or say which limit it would exceed (not counted)."""
        meter: UsageMeter | None = self
        while meter is not None:
            limits = meter.limits
            maximum = None if limits is None else limits.max_requests
            if maximum is not None and meter.requests + 1 > maximum:
                return UsageLimitExceeded(
                    f"usage limit exceeded: max_requests={maximum}, "
                    f"the run would make request {meter.requests + 1}",
                    limit="max_requests",
                    maximum=maximum,
                    used=meter.requests + 1,
                )
            meter = meter.parent
        meter = self
        while meter is not None:
            meter.requests += 1
            meter = meter.parent
        return None

    def add(self, usage: Usage | None, cost: Cost | None = None) -> UsageLimitExceeded | None:
        """Count a reply's tokens and cost (None: the reply could not be priced), then
        say which limit they crossed, if any."""
        spent_in = spent_out = 0
        if usage is not None:
            spent_in = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
            spent_out = usage.output_tokens
        meter: UsageMeter | None = self
        while meter is not None:
            meter.input_tokens += spent_in
            meter.output_tokens += spent_out
            if meter.cost is not None:
                meter.cost = None if cost is None else meter.cost + cost.amount
            meter = meter.parent
        meter = self
        while meter is not None:
            crossed = meter.crossed()
            if crossed is not None:
                return crossed
            meter = meter.parent
        return None

    def crossed(self) -> UsageLimitExceeded | None:
        limits = self.limits
        if limits is None:
            return None
        spent = (
            ("max_input_tokens", limits.max_input_tokens, self.input_tokens),
            ("max_output_tokens", limits.max_output_tokens, self.output_tokens),
            ("max_total_tokens", limits.max_total_tokens, self.input_tokens + self.output_tokens),
        )
        for name, maximum, used in spent:
            if maximum is not None and used > maximum:
                return UsageLimitExceeded(
                    f"usage limit exceeded: {name}={maximum}, {used} used",
                    limit=name,
                    maximum=maximum,
                    used=used,
                )
        maximum_cost = limits.max_cost
        if maximum_cost is not None and (self.cost is None or self.cost > maximum_cost):
            what = "a call the price table could not price" if self.cost is None else None
            return UsageLimitExceeded(
                f"usage limit exceeded: max_cost={maximum_cost}, {what or f'{self.cost} used'}",
                limit="max_cost",
                maximum=maximum_cost,
                used=self.cost,
            )
        return None
