"""What usage cost: a `Cost` value, the `PriceTable` protocol that prices one provider
call, and the tally that sums a run's calls (rules **L95**-**L98** of docs/loop.md).

The core holds no prices: a price table comes from a package that keeps one
(`automata.prices.GenAIPrices` on genai-prices) and is given as `Agent(prices=...)`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from automata.core._errors import ArgumentTypeError, InvalidArgumentError
from automata.core._usage import Usage

__all__ = ["Cost", "CostTally", "PriceTable", "check_max_cost_priced", "check_price_table"]


def _joined(first: str, second: str) -> str:
    """Two sources (or versions) as one: the same one, or both, in order, once each."""
    names = first.split(" + ")
    return first if second in names else f"{first} + {second}"


class Cost(BaseModel):
    """What some usage cost: `amount` (a `Decimal`, never a float) in `currency` (ISO
    4217, `"USD"`), priced by the table `source` (its distribution name,
    `"genai-prices"`) at `version` (the table's own version, `"0.2.3"`).

    `+` sums two costs of one currency; the sum names each source and version it was
    priced by (`"0.2.3 + 0.2.4"` when a thread outlived an upgrade of the table).
    Adding costs of two currencies raises `InvalidArgumentError`: they do not add up.
    JSON keeps the amount exact (a string)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    amount: Decimal
    currency: str
    source: str
    version: str

    def __add__(self, other: Cost) -> Cost:
        if not isinstance(other, Cost):
            return NotImplemented
        if other.currency != self.currency:
            raise InvalidArgumentError(
                f"cannot add a cost in {other.currency} to one in {self.currency}"
            )
        return Cost(
            amount=self.amount + other.amount,
            currency=self.currency,
            source=_joined(self.source, other.source),
            version=_joined(self.version, other.version),
        )


@runtime_checkable
class PriceTable(Protocol):
    """Prices the usage of one provider call.

    `provider` is the provider's `provider_name` (`"openai"`, `"anthropic"`) and
    `model` the model that answered (the reply's `ModelResponse.model`, else the
    provider's `model`). The answer is the call's `Cost`, or None when the table does
    not know the provider or the model: a table never guesses. Pricing is synchronous
    and must not do I/O (it runs on the loop after every reply)."""

    def price(self, usage: Usage, *, provider: str, model: str) -> Cost | None: ...


class CostTally:
    """A run's (or a thread's) cost so far: the sum of its calls' costs, each priced by
    the table of the agent that made the call. One call that could not be priced (no table, no
    usage reported, or a model the table does not know) makes the run's cost unknown
    for good: `cost` is then None, never a partial sum."""

    __slots__ = ("_total", "_unpriced")

    def __init__(self) -> None:
        self._total: Cost | None = None
        self._unpriced = False

    def price(
        self, prices: PriceTable | None, usage: Usage | None, provider: str, model: str | None
    ) -> Cost | None:
        """Price one call and add it to the tally; the call's cost, or None."""
        cost = None
        if prices is not None and usage is not None and model:
            cost = prices.price(usage, provider=provider, model=model)
        self.add(cost)
        return cost

    def add(self, cost: Cost | None) -> None:
        """Add one call's cost; None (the call went unpriced) makes the sum unknown."""
        if cost is None:
            self._unpriced = True
        elif self._total is None:
            self._total = cost
        elif cost.currency != self._total.currency:  # no sum to give: unknown, not wrong
            self._unpriced = True
        else:
            self._total = self._total + cost

    @property
    def cost(self) -> Cost | None:
        """The run's cost: None before its first call or once a call went unpriced."""
        return None if self._unpriced else self._total


def check_price_table(prices: object) -> PriceTable | None:
    """`prices` as an agent's price table: None or a `PriceTable` (an object with a
    `price` method). Raises `ArgumentTypeError` naming the fix."""
    if prices is None or isinstance(prices, PriceTable):
        return prices
    raise ArgumentTypeError(
        f"Agent(prices=...) needs a PriceTable (an object with a `price` method), got "
        f"{type(prices).__name__}; e.g. GenAIPrices() from automata.prices"
    )


def check_max_cost_priced(max_cost: Decimal | None, prices: PriceTable | None) -> None:
    """Refuse a run limited in cost that nothing prices, before it spends anything
    (L98). Raises `InvalidArgumentError`."""
    if max_cost is not None and prices is None:
        raise InvalidArgumentError(
            f"UsageLimits(max_cost={max_cost}) needs a price table to check it against: "
            "give the agent one, e.g. Agent(..., prices=GenAIPrices()) from automata.prices"
        )
