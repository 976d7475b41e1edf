"""Handoffs: the model hands the conversation to another agent through a tool; the run,
and a session, go on with that agent over the full transcript (docs/loop.md,
L79-L85)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from automata.core import (
    Agent,
    Approval,
    Handoff,
    MaxStepsError,
    Message,
    ModelStep,
    RunContext,
    ToolContext,
    ToolDefinitionError,
    ToolStep,
    ToolUseBlock,
    UsageLimitExceeded,
    UsageLimits,
    handoff,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


def transfer(call_id: str = "h1", name: str = "transfer_to_billing") -> Message:
    return tool_calls(tool_call(call_id, name))


def pair(
    triage_replies: list[str | Message], billing_replies: list[str | Message]
) -> tuple[Agent, Agent, ScriptedProvider, ScriptedProvider]:
    billing_provider = ScriptedProvider(billing_replies)
    billing = Agent(billing_provider, name="billing", system_prompt="You handle invoices.")
    triage_provider = ScriptedProvider(triage_replies)
    triage = Agent(
        triage_provider, name="triage", system_prompt="You route requests.", handoffs=[billing]
    )
    return triage, billing, triage_provider, billing_provider


# -- L79: the tool -----------------------------------------------------------------------


async def test_a_handoff_is_offered_as_a_transfer_tool_without_arguments() -> None:
    """L79: `transfer_to_<name>` with a default description, or the name and
    description given to `handoff(...)`; unsafe characters become `_`."""
    provider = ScriptedProvider(["hi"])
    billing = Agent(ScriptedProvider([]), name="billing")
    refunds = Agent(ScriptedProvider([]), name="refunds desk")
    agent = Agent(
        provider,
        handoffs=[billing, handoff(refunds, description="Refunds over 100 EUR.")],
    )
    agent.add_handoff(handoff(billing, name="escalate"))
    await agent.run("hello")
    specs = {spec.name: spec for spec in provider.requests[0].tools}
    assert list(specs) == ["transfer_to_billing", "transfer_to_refunds_desk", "escalate"]
    assert specs["transfer_to_billing"].description == "Hand the conversation to billing."
    assert specs["transfer_to_refunds_desk"].description == "Refunds over 100 EUR."
    assert specs["escalate"].input_schema == {"type": "object", "properties": {}}


def test_a_handoff_name_already_taken_is_refused() -> None:
    """L79."""
    billing = Agent(ScriptedProvider([]), name="billing")
    agent = Agent(ScriptedProvider([]), handoffs=[billing])
    with pytest.raises(ToolDefinitionError, match="transfer_to_billing"):
        agent.add_handoff(billing)
    assert isinstance(agent.tools[0], Handoff)


# -- L80-L81: the run goes on with the other agent ------------------------------------


async def test_the_run_goes_on_with_the_new_agent_over_the_full_transcript() -> None:
    """L80, L81: the call's result is `Transferred to billing`; the new agent's provider
    gets the whole transcript with its own system prompt sent in place of the stored
    one, and its own tools; `result.agent` names it."""
    triage, billing, triage_provider, billing_provider = pair(
        [transfer()], [tool_calls(tool_call("c2", "invoice", number="7")), "refunded"]
    )

    @billing.tool
    def invoice(number: str) -> str:
        """Look an invoice up."""
        return f"invoice {number}: 20 EUR"

    result = await triage.run("I was charged twice")
    assert result.output == "refunded"
    assert result.agent == "billing"
    assert tool_results(result.messages) == [
        ("h1", "Transferred to billing", False),
        ("c2", "invoice 7: 20 EUR", False),
    ]
    assert len(triage_provider.requests) == 1
    sent = billing_provider.requests[0]
    assert sent.messages[0] == Message.system("You handle invoices.")
    assert [m.role for m in sent.messages] == ["system", "user", "assistant", "tool"]
    assert [spec.name for spec in sent.tools] == ["invoice"]
    assert result.messages[0] == Message.system("You route requests.")
    assert result.steps == 3


async def test_a_denied_handoff_call_changes_nothing() -> None:
    """L80: a handoff call whose result is an error (here, denied by the approver)
    hands nothing off."""

    def deny(call: ToolUseBlock, context: ToolContext) -> Approval:
        return Approval.deny("not now")

    billing = Agent(ScriptedProvider([]), name="billing")
    provider = ScriptedProvider([transfer(), "staying"])
    triage = Agent(provider, name="triage", handoffs=[billing], approver=deny)
    result = await triage.run("hi")
    assert (result.output, result.agent) == ("staying", "triage")
    assert tool_results(result.messages) == [("h1", "denied: not now", True)]


async def test_the_first_handoff_in_the_models_order_wins() -> None:
    """L80: only the first handoff call of a turn is carried out; the model is told the
    others were not, so the transcript never claims a transfer that did not happen."""
    billing = Agent(ScriptedProvider(["from billing"]), name="billing")
    sales = Agent(ScriptedProvider(["from sales"]), name="sales")
    both = tool_calls(tool_call("h1", "transfer_to_sales"), tool_call("h2", "transfer_to_billing"))
    triage = Agent(ScriptedProvider([both]), name="triage", handoffs=[billing, sales])
    result = await triage.run("hi")
    assert (result.output, result.agent) == ("from sales", "sales")
    assert tool_results(result.messages) == [
        ("h1", "Transferred to sales", False),
        ("h2", "not transferred: only the first handoff call of a turn is carried out", True),
    ]


async def test_max_steps_and_usage_limits_span_the_whole_run() -> None:
    """L81: the run's limits count both agents' calls."""
    triage, billing, _, _ = pair([transfer()], [transfer("h2", "transfer_to_billing"), "late"])
    billing.add_handoff(handoff(billing, name="transfer_to_billing"))
    with pytest.raises(MaxStepsError) as caught:
        await triage.run("hi", max_steps=2)
    assert caught.value.result is not None
    assert caught.value.result.steps == 2
    assert caught.value.result.agent == "billing"

    triage, _, _, _ = pair([transfer()], ["never"])
    with pytest.raises(UsageLimitExceeded) as limited:
        await triage.run("hi", usage_limits=UsageLimits(max_requests=1))
    assert limited.value.limit == "max_requests"


@dataclass(frozen=True)
class Account:
    owner: str


async def test_the_new_agent_sees_the_runs_deps() -> None:
    """L81: deps belong to the run, and reach the new agent's instructions."""
    billing = Agent(ScriptedProvider(["ok"]), name="billing", deps_type=Account)

    @billing.instructions
    def owner(ctx: RunContext[Account]) -> str:
        return f"The account is {ctx.deps.owner}'s."

    triage = Agent(ScriptedProvider([transfer()]), handoffs=[billing], deps_type=Account)
    result = await triage.run("hi", deps=Account("ada"))
    assert result.output == "ok"
    provider = billing.provider
    assert isinstance(provider, ScriptedProvider)
    assert provider.requests[0].messages[0].text.endswith("The account is ada's.")


# -- L82: sessions -----------------------------------------------------------------------


async def test_a_session_goes_on_with_the_agent_it_was_handed_to() -> None:
    """L82: `session.agent` switches; later runs go to the new agent's provider with
    its system prompt, while the stored transcript keeps the first one."""
    triage, billing, triage_provider, billing_provider = pair(
        [transfer()], ["refunded", "anything else?"]
    )
    session = triage.session()
    assert session.agent is triage
    await session.run("I was charged twice")
    assert session.agent is billing
    result = await session.run("thanks")
    assert result.output == "anything else?"
    assert result.agent == "billing"
    assert len(triage_provider.requests) == 1
    assert billing_provider.requests[1].messages[0] == Message.system("You handle invoices.")
    assert session.messages[0] == Message.system("You route requests.")


# -- L83: steps ----------------------------------------------------------------------------


async def test_steps_name_the_agent_that_produced_them() -> None:
    """L83: the batch holding the handoff call is the old agent's; later steps are the
    new agent's."""
    triage, _, _, _ = pair([transfer()], ["refunded"])
    async with triage.iter("hi") as steps:
        seen = [(type(step).__name__, step.run.agent) async for step in steps]
    assert seen == [("ModelStep", "triage"), ("ToolStep", "triage"), ("ModelStep", "billing")]
    assert steps.result.agent == "billing"


async def test_a_run_stopped_at_the_handoff_batch_is_already_handed_off() -> None:
    """L82, L83: the switch is made when the batch is committed."""
    triage, billing, _, _ = pair([transfer()], ["later"])
    session = triage.session()
    async with session.iter("hi") as steps:
        async for step in steps:
            if isinstance(step, ToolStep):
                break
            assert isinstance(step, ModelStep)
    assert session.agent is billing


# -- L85: typed output ------------------------------------------------------------------


class Refund(BaseModel):
    amount: int


async def test_the_runs_output_type_applies_to_the_agent_that_answers() -> None:
    """L85: the new agent is asked for the same type and validated like the first."""
    answer = tool_calls(tool_call("o1", "automata_structured_output", amount=20))
    triage, _, _, billing_provider = pair([transfer()], [answer, "noted"])
    result = await triage.run("refund me", output_type=Refund)
    assert result.output == Refund(amount=20)
    assert result.agent == "billing"
    assert "automata_structured_output" in [s.name for s in billing_provider.requests[0].tools]
