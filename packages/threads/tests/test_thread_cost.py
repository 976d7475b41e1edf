"""A thread's usage totals carry its cost: each step journals the cost its agent's
price table gave it (core rules L95-L96), the view sums them, and a thread with a step
that was not priced (an agent without prices, a journal written before costs) shows no
cost rather than a partial sum."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from decimal import Decimal

from automata.core import Agent, Cost, Message, ModelResponse, StopReason, Usage
from automata.core.testing import ScriptedProvider
from automata.threads import Host, ThreadView
from automata.threads.store import ThreadStore

OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]


class TenthOfACentPerToken:
    """Every token of model "m" at $0.001; nothing else is known."""

    def price(self, usage: Usage, *, provider: str, model: str) -> Cost | None:
        if model != "m":
            return None
        amount = Decimal("0.001") * usage.total_tokens
        return Cost(amount=amount, currency="USD", source="test", version="7")


class Model(ScriptedProvider):
    model = "m"


def answer(text: str, tokens: int) -> ModelResponse:
    return ModelResponse(
        message=Message.assistant(text),
        stop_reason=StopReason.END_TURN,
        usage=Usage(input_tokens=tokens, cache_read_tokens=tokens),
    )


async def steps_journaled(store: ThreadStore, thread_id: str) -> list[dict[str, object]]:
    return [json.loads(r.data) for r in await store.read(thread_id) if r.kind == "step"]


async def test_a_threads_totals_carry_the_cost_of_its_steps_live_and_after_a_reload(
    open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """T14: the view's cost sums the steps' journaled costs, the same after a reload."""
    provider = Model([answer("one", 100), answer("two", 50)])
    first = await open_host()
    service = first.thread_service(lambda r: Agent(provider, prices=TenthOfACentPerToken()))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "first", request_key="s1")
    await settle(service, thread.thread_id)
    await service.send(thread.thread_id, "second", request_key="s2")
    live = await settle(service, thread.thread_id)
    assert live.cost == Cost(amount=Decimal("0.300"), currency="USD", source="test", version="7")
    assert live.to_dict()["cost"] == {
        "amount": "0.300",
        "currency": "USD",
        "source": "test",
        "version": "7",
    }
    assert [step["cost"] for step in await steps_journaled(store, thread.thread_id)] == [
        {"amount": "0.200", "currency": "USD", "source": "test", "version": "7"},
        {"amount": "0.100", "currency": "USD", "source": "test", "version": "7"},
    ]
    await first.shutdown()
    second = await open_host()
    reloaded = await second.thread_service(lambda r: Agent(provider)).view(thread.thread_id)
    assert reloaded.cost == live.cost


async def test_a_thread_of_an_agent_without_prices_journals_steps_as_before_and_has_no_cost(
    open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """T14: no `cost` key in the step record, so journals read as they did (its
    `totals` are the thread's usage, CX2)."""
    host = await open_host()
    service = host.thread_service(lambda r: Agent(Model([answer("one", 100)])))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "first", request_key="s1")
    view = await settle(service, thread.thread_id)
    assert view.cost is None
    assert view.to_dict()["cost"] is None
    [step] = await steps_journaled(store, thread.thread_id)
    assert sorted(step) == ["message", "stop_reason", "totals", "turn", "usage", "v"]  # CX2


async def test_a_thread_with_one_unpriced_step_shows_no_partial_cost(
    open_host: OpenHost, settle: Settle
) -> None:
    """T14, core rule L96: the first turn's agent had no prices; the second's does."""
    provider = Model([answer("one", 100), answer("two", 50)])
    agents = iter([Agent(provider), Agent(provider, prices=TenthOfACentPerToken())])
    host = await open_host()
    service = host.thread_service(lambda r: next(agents))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "first", request_key="s1")
    await settle(service, thread.thread_id)
    await service.send(thread.thread_id, "second", request_key="s2")
    view = await settle(service, thread.thread_id)
    assert view.usage.input_tokens == 150
    assert view.cost is None
