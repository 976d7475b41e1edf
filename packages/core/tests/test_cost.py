"""A run's cost: each call priced by the agent's price table, summed, never guessed, and
limited by `UsageLimits(max_cost=...)` (docs/loop.md, L95-L98). The table here is a
small one of the test's own; extensions/prices/tests pins genai-prices' figures."""

from __future__ import annotations

from decimal import Decimal

import pytest

from automata.core import (
    Agent,
    ArgumentTypeError,
    Cost,
    FallbackProvider,
    InvalidArgumentError,
    Message,
    ModelResponse,
    ModelStep,
    PriceTable,
    ProviderError,
    StopReason,
    Usage,
    UsageLimitExceeded,
    UsageLimits,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls

PER_TOKEN = {"model-a": Decimal("0.001"), "model-b": Decimal("0.01")}


class TokenPrices:
    """Prices every token (of any kind) of a known model at its rate, at provider
    "vendor" only; records what it was asked."""

    def __init__(self, currency: str = "USD") -> None:
        self.currency = currency
        self.asked: list[tuple[str, str, Usage]] = []

    def price(self, usage: Usage, *, provider: str, model: str) -> Cost | None:
        self.asked.append((provider, model, usage))
        rate = PER_TOKEN.get(model)
        if provider != "vendor" or rate is None:
            return None
        return Cost(
            amount=rate * usage.total_tokens, currency=self.currency, source="test", version="1"
        )


class VendorProvider(ScriptedProvider):
    provider_name = "vendor"
    model = "model-a"


def reply(message: Message | str, tokens: int | None, model: str = "") -> ModelResponse:
    message = Message.assistant(message) if isinstance(message, str) else message
    return ModelResponse(
        message=message,
        stop_reason=StopReason.TOOL_USE if message.tool_calls else StopReason.END_TURN,
        usage=None if tokens is None else Usage(input_tokens=tokens),
        model=model,
    )


def agent_of(replies: list[ModelResponse | ProviderError], **options: object) -> Agent:
    agent = Agent(VendorProvider(replies), **options)  # type: ignore[arg-type]
    agent.tool(lambda: "ok", name="t")
    return agent


def calling(tokens: int | None, model: str = "") -> ModelResponse:
    return reply(tool_calls(tool_call("c1", "t")), tokens, model)


async def test_a_runs_cost_is_the_sum_of_its_calls_each_priced_for_the_model_that_answered() -> (
    None
):
    """L95, L96: the reply's model prices it (model-b), else the provider's (model-a)."""
    prices = TokenPrices()
    agent = agent_of([calling(100, model="model-b"), reply("done", 10)], prices=prices)
    result = await agent.run("go")
    assert result.cost == Cost(amount=Decimal("1.010"), currency="USD", source="test", version="1")
    assert [(provider, model) for provider, model, _ in prices.asked] == [
        ("vendor", "model-b"),
        ("vendor", "model-a"),
    ]


async def test_a_fallback_chains_call_is_priced_at_the_provider_that_answered() -> None:
    """L96: the chain is not a vendor; the reply names the provider that answered."""
    overloaded = ProviderError("overloaded", provider="down", status=529, retryable=True)
    failing = VendorProvider([overloaded])
    failing.provider_name = "down"
    prices = TokenPrices()
    agent = Agent(FallbackProvider([failing, VendorProvider([reply("done", 10)])]), prices=prices)
    result = await agent.run("go")
    assert result.cost is not None
    assert result.cost.amount == Decimal("0.010")
    assert [(provider, model) for provider, model, _ in prices.asked] == [("vendor", "model-a")]


async def test_each_model_step_carries_its_own_cost() -> None:
    """L95."""
    agent = agent_of([calling(100), reply("done", 10)], prices=TokenPrices())
    costs = []
    async with agent.iter("go") as steps:
        async for step in steps:
            if isinstance(step, ModelStep):
                costs.append(None if step.cost is None else step.cost.amount)
    assert costs == [Decimal("0.100"), Decimal("0.010")]


async def test_a_run_without_a_price_table_has_no_cost() -> None:
    """L95."""
    result = await agent_of([reply("done", 10)]).run("go")
    assert result.cost is None


async def test_one_call_of_an_unknown_model_leaves_the_run_without_a_cost() -> None:
    """L96: no partial sum: the known call's cost is not reported as the run's."""
    agent = agent_of([calling(100), reply("done", 10, model="unknown")], prices=TokenPrices())
    result = await agent.run("go")
    assert result.cost is None


async def test_a_call_that_reported_no_usage_leaves_the_run_without_a_cost() -> None:
    """L96."""
    agent = agent_of([calling(None), reply("done", 10)], prices=TokenPrices())
    assert (await agent.run("go")).cost is None


async def test_a_failed_calls_reported_usage_is_priced_too() -> None:
    """L95: a failure that reported usage counts in the cost of the partial result."""
    failure = ProviderError("overloaded")
    failure.usage = Usage(input_tokens=50)
    agent = agent_of([calling(100), failure], prices=TokenPrices())
    with pytest.raises(ProviderError) as caught:
        await agent.run("go")
    assert caught.value.result is not None
    assert caught.value.result.cost is not None
    assert caught.value.result.cost.amount == Decimal("0.150")


async def test_max_cost_stops_the_run_after_the_reply_that_crosses_it() -> None:
    """L97: checked after each reply like the token limits, with the same typed error."""
    agent = agent_of(
        [calling(100), calling(100), calling(100), reply("done", 1)], prices=TokenPrices()
    )
    with pytest.raises(UsageLimitExceeded) as caught:
        await agent.run("go", usage_limits=UsageLimits(max_cost=Decimal("0.15")))
    error = caught.value
    assert str(error) == "usage limit exceeded: max_cost=0.15, 0.200 used"
    assert (error.limit, error.maximum, error.used) == ("max_cost", Decimal("0.15"), Decimal("0.2"))
    assert error.result is not None
    assert error.result.steps == 2
    assert len(error.result.messages) == 3  # the task, the first turn, its results
    assert error.result.cost is not None
    assert error.result.cost.amount == Decimal("0.200")


async def test_a_run_within_its_max_cost_is_untouched() -> None:
    """L97."""
    agent = agent_of([calling(100), reply("done", 1)], prices=TokenPrices())
    result = await agent.run("go", usage_limits=UsageLimits(max_cost=Decimal("1")))
    assert result.output == "done"


async def test_max_cost_stops_the_run_at_a_call_it_cannot_price() -> None:
    """L98: a limit that cannot be checked is never passed."""
    agent = agent_of([calling(100), reply("done", 1, model="unknown")], prices=TokenPrices())
    with pytest.raises(UsageLimitExceeded) as caught:
        await agent.run("go", usage_limits=UsageLimits(max_cost=Decimal("5")))
    assert str(caught.value) == (
        "usage limit exceeded: max_cost=5, a call the price table could not price"
    )
    assert caught.value.used is None


async def test_max_cost_without_a_price_table_is_refused_before_any_call() -> None:
    """L98."""
    provider = VendorProvider([reply("done", 1)])
    agent = Agent(provider, usage_limits=UsageLimits(max_cost=Decimal("1")))
    with pytest.raises(InvalidArgumentError, match=r"max_cost=1\) needs a price table"):
        await agent.run("go")
    assert provider.requests == []


def test_max_cost_must_be_a_decimal_above_zero() -> None:
    """L98."""
    with pytest.raises(ArgumentTypeError, match=r"write Decimal\('0.5'\)"):
        UsageLimits(max_cost=0.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="must be above 0, got 0"):
        UsageLimits(max_cost=Decimal(0))


def test_an_agent_refuses_a_price_table_without_a_price_method() -> None:
    """L95."""
    with pytest.raises(ArgumentTypeError, match="needs a PriceTable"):
        Agent(VendorProvider([]), prices={"model-a": 1})  # type: ignore[arg-type]
    assert isinstance(TokenPrices(), PriceTable)


def test_costs_of_one_currency_add_up_and_name_every_version_they_were_priced_at() -> None:
    """L95."""
    old = Cost(amount=Decimal("0.5"), currency="USD", source="test", version="1")
    new = Cost(amount=Decimal("0.25"), currency="USD", source="test", version="2")
    assert old + new == Cost(amount=Decimal("0.75"), currency="USD", source="test", version="1 + 2")
    assert (old + old).version == "1"
    with pytest.raises(InvalidArgumentError, match="cannot add a cost in EUR to one in USD"):
        old + Cost(amount=Decimal(1), currency="EUR", source="test", version="1")


def test_a_cost_keeps_its_amount_exact_in_json() -> None:
    cost = Cost(amount=Decimal("0.000125"), currency="USD", source="test", version="1")
    assert cost.model_dump(mode="json")["amount"] == "0.000125"
    assert Cost.model_validate(cost.model_dump(mode="json")) == cost
