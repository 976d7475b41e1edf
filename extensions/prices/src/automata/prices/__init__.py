"""automata.prices: usage priced for automata agents.

`GenAIPrices` is the core's `PriceTable` on the price data genai-prices ships, read
offline: `Agent(..., prices=GenAIPrices())` gives every run a `cost`.
"""

from automata.prices._genai import GenAIPrices

__all__ = ["GenAIPrices"]
