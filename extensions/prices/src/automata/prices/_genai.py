"""`GenAIPrices`: the core's `PriceTable` on the price data genai-prices ships.

The table is the data bundled in the installed genai-prices distribution, read once
when a `GenAIPrices` is made, and never anything else: it does not start genai-prices'
auto-update (which fetches prices over the network), nor read a snapshot someone else
set process-wide, so a run is priced the same way offline and online, and the
`Cost.version` it carries (the distribution's version) names the data exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from importlib.metadata import version

from genai_prices import Usage as PricedUsage
from genai_prices.data import providers as bundled_providers
from genai_prices.data_snapshot import DataSnapshot

from automata.core import Cost, Usage

__all__ = ["GenAIPrices"]

SOURCE = "genai-prices"
CURRENCY = "USD"  # genai-prices prices everything in US dollars


def priced_usage(usage: Usage) -> PricedUsage:
    """The core's `Usage` as genai-prices counts it. The core's `input_tokens` is
    uncached input only, while genai-prices' `input_tokens` is every input token,
    cache reads and writes included (it prices them apart, at their own rates).
    `reasoning_tokens` is part of `output_tokens` in both and is not added again."""
    return PricedUsage(
        input_tokens=usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        output_tokens=usage.output_tokens,
    )


class GenAIPrices:
    """Prices a provider call with the genai-prices table installed, offline.

    `provider` (a provider's `provider_name`) is looked up as genai-prices' provider
    id (`"openai"`, `"anthropic"`, `"google"`, ...); `provider_ids` maps the names
    that differ (`{"my-gateway": "openai"}`). A provider or model the table does not
    know is priced None, never guessed, and so is a provider named nowhere (the
    table's search across providers is not used). `at` fixes the moment prices are
    looked up for (a price that changed over time); None: the time of each call.

    Making one loads the table (about a second the first time in a process), so make
    it once, when the program starts, not on the event loop per run."""

    __slots__ = ("_at", "_provider_ids", "_snapshot", "version")

    source = SOURCE

    def __init__(
        self, *, provider_ids: Mapping[str, str] | None = None, at: datetime | None = None
    ) -> None:
        self._provider_ids = dict(provider_ids or {})
        self._at = at
        self._snapshot = DataSnapshot(providers=bundled_providers, from_auto_update=False)
        self.version: str = version("genai-prices")
        """The installed genai-prices version: the version of its data."""

    def price(self, usage: Usage, *, provider: str, model: str) -> Cost | None:
        """The cost of one call of `model` at `provider` that spent `usage`, in USD, or
        None when the table has no price for it."""
        if not provider or not model:
            return None
        try:
            calculation = self._snapshot.calc(
                priced_usage(usage),
                model,
                self._provider_ids.get(provider, provider),
                None,
                self._at,
            )
        except LookupError:  # a provider or model the table does not know
            return None
        return Cost(
            amount=calculation.total_price,
            currency=CURRENCY,
            source=SOURCE,
            version=self.version,
        )
