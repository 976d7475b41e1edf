"""`GenAIPrices` prices usage exactly as genai-prices' own table does, maps the core's
`Usage` onto it (cache tokens at their rates, never twice), answers None for what the
table lacks, and never touches the network."""

from __future__ import annotations

import socket
from decimal import Decimal
from importlib.metadata import version

import genai_prices
import pytest

from automata.core import (
    Agent,
    Cost,
    Message,
    ModelResponse,
    PriceTable,
    StopReason,
    Usage,
    UsageLimitExceeded,
    UsageLimits,
)
from automata.core.testing import ScriptedProvider
from automata.prices import GenAIPrices

MILLION = 1_000_000


@pytest.fixture(scope="module")
def prices() -> GenAIPrices:
    return GenAIPrices()


def usd(amount: str, prices: GenAIPrices) -> Cost:
    return Cost(
        amount=Decimal(amount), currency="USD", source="genai-prices", version=prices.version
    )


def test_a_known_usage_on_gpt_4o_costs_what_the_table_says(prices: GenAIPrices) -> None:
    """$2.50 a million input tokens and $10 a million output tokens (gpt-4o in the
    table), and the same figure genai-prices' own `calc_price` gives."""
    usage = Usage(input_tokens=MILLION, output_tokens=MILLION)
    cost = prices.price(usage, provider="openai", model="gpt-4o")
    assert cost == usd("12.50", prices)
    theirs = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=MILLION, output_tokens=MILLION),
        "gpt-4o",
        provider_id="openai",
    )
    assert cost is not None
    assert cost.amount == theirs.total_price


def test_cache_reads_are_priced_at_their_rate_and_not_again_as_input(
    prices: GenAIPrices,
) -> None:
    """The core's `input_tokens` is uncached input; genai-prices' includes the cache.
    gpt-4o: $2.50 a million uncached, $1.25 a million read from the cache."""
    usage = Usage(input_tokens=MILLION, cache_read_tokens=MILLION)
    assert prices.price(usage, provider="openai", model="gpt-4o") == usd("3.75", prices)


def test_cache_writes_are_priced_at_their_rate(prices: GenAIPrices) -> None:
    """claude-3-5-haiku: $0.80 a million input, $1 a million written to the cache,
    $0.08 read from it, $4 a million output."""
    usage = Usage(
        input_tokens=MILLION,
        cache_write_tokens=MILLION,
        cache_read_tokens=MILLION,
        output_tokens=MILLION,
    )
    cost = prices.price(usage, provider="anthropic", model="claude-3-5-haiku-latest")
    assert cost == usd("5.88", prices)
    theirs = genai_prices.calc_price(
        genai_prices.Usage(
            input_tokens=3 * MILLION,
            cache_write_tokens=MILLION,
            cache_read_tokens=MILLION,
            output_tokens=MILLION,
        ),
        "claude-3-5-haiku-latest",
        provider_id="anthropic",
    )
    assert cost is not None
    assert cost.amount == theirs.total_price


def test_reasoning_tokens_are_priced_as_the_output_they_are_part_of(prices: GenAIPrices) -> None:
    usage = Usage(output_tokens=MILLION, reasoning_tokens=MILLION // 2)
    assert prices.price(usage, provider="openai", model="gpt-4o") == usd("10", prices)


def test_an_unknown_model_or_provider_has_no_price(prices: GenAIPrices) -> None:
    usage = Usage(input_tokens=1000)
    assert prices.price(usage, provider="openai", model="no-such-model") is None
    assert prices.price(usage, provider="scripted", model="gpt-4o") is None
    assert prices.price(usage, provider="anthropic", model="gpt-4o") is None  # not guessed
    assert prices.price(usage, provider="openai", model="") is None


def test_a_provider_name_maps_onto_the_tables_provider_id() -> None:
    prices = GenAIPrices(provider_ids={"gateway": "openai"})
    cost = prices.price(Usage(input_tokens=MILLION), provider="gateway", model="gpt-4o")
    assert cost is not None
    assert cost.amount == Decimal("2.50")


def test_the_cost_names_the_table_and_the_installed_version(prices: GenAIPrices) -> None:
    cost = prices.price(Usage(input_tokens=1), provider="openai", model="gpt-4o")
    assert cost is not None
    assert (cost.source, cost.version) == ("genai-prices", version("genai-prices"))
    assert isinstance(prices, PriceTable)


def test_pricing_never_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is the bundled data, read when a `GenAIPrices` is made: with every
    connection refused, making one and pricing with it still work."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("genai-prices tried to connect")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "create_connection", refused)
    prices = GenAIPrices()
    cost = prices.price(Usage(input_tokens=MILLION), provider="openai", model="gpt-4o")
    assert cost is not None
    assert cost.amount == Decimal("2.50")


class GPT4o(ScriptedProvider):
    provider_name = "openai"
    model = "gpt-4o"


def reply(text: str, usage: Usage) -> ModelResponse:
    return ModelResponse(Message.assistant(text), StopReason.END_TURN, usage, model="gpt-4o")


async def test_an_agent_run_carries_the_tables_cost(prices: GenAIPrices) -> None:
    usage = Usage(input_tokens=200_000, cache_read_tokens=800_000, output_tokens=100_000)
    result = await Agent(GPT4o([reply("Paris.", usage)]), prices=prices).run("Capital?")
    assert result.cost == usd("2.50", prices)


async def test_max_cost_stops_a_run_priced_by_the_table(prices: GenAIPrices) -> None:
    agent = Agent(GPT4o([reply("Paris.", Usage(input_tokens=MILLION))]), prices=prices)
    with pytest.raises(UsageLimitExceeded) as caught:
        await agent.run("Capital?", usage_limits=UsageLimits(max_cost=Decimal("2")))
    assert caught.value.used == Decimal("2.50")
