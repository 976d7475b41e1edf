"""Approvals and questions park a turn: the question is committed, no runner waits,
and `respond` from any host commits the answer and resumes the turn."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from automata.core import Agent, ToolPolicy, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import (
    Host,
    ItemNotFoundError,
    RequestConflictError,
    ThreadService,
    ThreadView,
    ViewItem,
    ask_user_tool,
    require_approval,
)
from automata.threads.store import ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]


def interaction(view: ThreadView) -> ViewItem:
    return next(item for item in view.items if item.kind == "interaction")


class Payments:
    def __init__(self) -> None:
        self.charged: list[int] = []

    def charge(self, amount: int) -> str:
        self.charged.append(amount)
        return f"charged {amount}"

    def agent(self, provider: ScriptedProvider) -> Agent[None]:
        return Agent(
            provider,
            tools=[tool(self.charge, name="charge")],
            approver=require_approval("charge"),
        )


async def test_an_approved_call_runs_once_after_the_answer(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T18: the turn waits with the question in its view; the approved call runs."""
    payments = Payments()
    provider = ScriptedProvider([tool_calls(tool_call("c1", "charge", amount=5)), "paid"])
    service = await service_for(lambda r: payments.agent(provider))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "pay", request_key="s")
    waiting = await settle(service, thread.thread_id)
    assert waiting.status == "waiting"
    asked = interaction(waiting)
    assert (asked.status, asked.interaction_kind, asked.tool_name) == (
        "pending",
        "approval",
        "charge",
    )
    assert payments.charged == []
    await service.respond(thread.thread_id, asked.interaction_id or "", True, request_key="r")
    done = await settle(service, thread.thread_id)
    assert done.status == "done"
    assert payments.charged == [5]
    answered = interaction(done)
    assert (answered.id, answered.ordinal, answered.status) == (asked.id, asked.ordinal, "answered")
    call = next(item for item in done.items if item.kind == "tool_call")
    assert (call.status, call.result) == ("done", "charged 5")


async def test_an_approved_call_runs_under_the_agents_tool_policy(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T18: once approved, the call runs as an ordinary tool batch of the agent (its
    tool policy applies): a call that hangs times out, and the model is told so."""

    async def charge(amount: int) -> str:
        await asyncio.sleep(30)
        return "never"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "charge", amount=5)), "gave up"])

    def agent(request: object) -> Agent[None]:
        return Agent(
            provider,
            tools=[tool(charge, name="charge")],
            approver=require_approval("charge"),
            tool_policy=ToolPolicy(timeout=0.1),
        )

    service = await service_for(agent)
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "pay", request_key="s")
    asked = interaction(await settle(service, thread.thread_id))
    await service.respond(thread.thread_id, asked.interaction_id or "", True, request_key="r")
    done = await asyncio.wait_for(settle(service, thread.thread_id), 10)
    assert done.status == "done"
    call = next(item for item in done.items if item.kind == "tool_call")
    assert call.status == "error"
    assert "timed out" in str(call.result)


async def test_a_denied_call_never_runs_and_the_model_sees_why(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T18: a denial gives the call `denied: <reason>`, and the turn goes on."""
    payments = Payments()
    provider = ScriptedProvider([tool_calls(tool_call("c1", "charge", amount=500)), "ok"])
    service = await service_for(lambda r: payments.agent(provider))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "pay", request_key="s")
    asked = interaction(await settle(service, thread.thread_id))
    await service.respond(
        thread.thread_id, asked.interaction_id or "", False, request_key="r", reason="too much"
    )
    done = await settle(service, thread.thread_id)
    call = next(item for item in done.items if item.kind == "tool_call")
    assert (call.status, call.result) == ("error", "denied: too much")
    assert payments.charged == []
    assert "denied: too much" in str(provider.requests[-1].messages)


async def test_a_parked_turn_is_answered_and_resumed_by_another_host(
    open_host: OpenHost, settle: Settle
) -> None:
    """T18: the wait survives a restart; responding twice is harmless."""
    payments = Payments()
    first = await open_host()
    script = [tool_calls(tool_call("c1", "charge", amount=7))]
    service = first.thread_service(lambda r: payments.agent(ScriptedProvider(script)))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "pay", request_key="s")
    asked = interaction(await settle(service, thread.thread_id))
    await first.shutdown()
    second = await open_host()
    resumed = second.thread_service(lambda r: payments.agent(ScriptedProvider(["paid"])))
    await resumed.respond(thread.thread_id, asked.interaction_id or "", True, request_key="r")
    done = await settle(resumed, thread.thread_id)
    assert done.status == "done"
    again = await resumed.respond(
        thread.thread_id, asked.interaction_id or "", True, request_key="r"
    )
    other = await resumed.respond(
        thread.thread_id, asked.interaction_id or "", False, request_key="r2"
    )
    assert again.items == done.items == other.items
    assert payments.charged == [7]
    with pytest.raises(ItemNotFoundError):
        await resumed.respond(thread.thread_id, "interaction-999", True, request_key="r3")


async def test_a_secret_answer_reaches_the_model_and_is_journaled_redacted(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """T19: `ask_user` parks the turn; a secret answer is the call's result for the
    model and `[redacted]` everywhere it is kept."""
    question = tool_call("q1", "ask_user", question="Your PIN?", secret=True)
    provider = ScriptedProvider([tool_calls(question), "thanks"])
    service = await service_for(lambda r: Agent(provider, tools=[ask_user_tool()]))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "log me in", request_key="s")
    asked = interaction(await settle(service, thread.thread_id))
    assert (asked.interaction_kind, asked.text) == ("question", "Your PIN?")
    await service.respond(thread.thread_id, asked.interaction_id or "", "4321", request_key="r")
    done = await settle(service, thread.thread_id)
    assert done.status == "done"
    assert "4321" in str(provider.requests[-1].messages)
    assert all("4321" not in record.data for record in await store.read(thread.thread_id))
    assert interaction(done).result == "[redacted]"
    history = await service.history(thread.thread_id)
    assert "4321" not in str([entry.message for entry in history.entries])


async def test_a_public_answer_is_the_calls_result(service_for: ServiceFor, settle: Settle) -> None:
    """T19: the answer to a question that is not secret is kept as it is."""
    question = tool_call("q1", "ask_user", question="Which city?")
    provider = ScriptedProvider([tool_calls(question), "Paris it is"])
    service = await service_for(lambda r: Agent(provider, tools=[ask_user_tool()]))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "plan a trip", request_key="s")
    asked = interaction(await settle(service, thread.thread_id))
    await service.respond(thread.thread_id, asked.interaction_id or "", "Paris", request_key="r")
    done = await settle(service, thread.thread_id)
    call = next(item for item in done.items if item.kind == "tool_call")
    assert (call.status, call.result) == ("done", "Paris")


async def test_cancelling_a_waiting_turn_closes_its_question(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T18: cancel ends a parked turn; its question is closed, its call cancelled."""
    payments = Payments()
    provider = ScriptedProvider([tool_calls(tool_call("c1", "charge", amount=5))])
    service = await service_for(lambda r: payments.agent(provider))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "pay", request_key="s")
    asked = interaction(await settle(service, thread.thread_id))
    view = await service.cancel(thread.thread_id, request_key="x")
    assert view.status == "cancelled"
    assert interaction(view).status == "closed"
    late = await service.respond(
        thread.thread_id, asked.interaction_id or "", True, request_key="r"
    )
    assert late.status == "cancelled"
    assert payments.charged == []


async def test_outside_a_thread_service_a_gated_call_is_denied() -> None:
    """T18: with no one to ask, the gate refuses the calls it covers."""
    payments = Payments()
    provider = ScriptedProvider([tool_calls(tool_call("c1", "charge", amount=5)), "ok"])
    result = await payments.agent(provider).run("pay")
    assert payments.charged == []
    assert "needs a person's approval" in str(result.messages)


async def test_a_respond_reusing_a_key_with_another_answer_is_a_conflict(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T3: respond takes request keys like every mutation."""
    payments = Payments()
    provider = ScriptedProvider([tool_calls(tool_call("c1", "charge", amount=5)), "ok"])
    service = await service_for(lambda r: payments.agent(provider))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "pay", request_key="s")
    interaction_id = interaction(await settle(service, thread.thread_id)).interaction_id or ""
    await service.respond(thread.thread_id, interaction_id, False, request_key="r")
    with pytest.raises(RequestConflictError):
        await service.respond(thread.thread_id, interaction_id, True, request_key="r")
    await settle(service, thread.thread_id)
    assert payments.charged == []
