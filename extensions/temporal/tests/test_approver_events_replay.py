"""The agent's own approver as an activity (TP15), following a run's events as they are
recorded (TP7), and replaying a run that used the core loop's handoffs and typed output
(TP2)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from pydantic import BaseModel
from temporalio.client import Client

from automata.core import (
    Agent,
    Approval,
    Message,
    StreamAccumulator,
    ToolContext,
    ToolUseBlock,
    load_messages,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.core.testing import tool_results as results_of
from automata.temporal import (
    AgentRegistry,
    TemporalAgent,
    agent_replayer,
    agent_worker,
    follow_events,
    query_events,
    start_agent_run,
)


@dataclass
class Limits:
    max_amount: int


@tool
def pay(amount: int) -> str:
    """Pay an amount."""
    return f"paid {amount}"


def payer() -> Agent[Limits]:
    def within_limit(call: ToolUseBlock, context: ToolContext) -> Approval:
        limits, amount = cast(Limits, context.deps), call.input["amount"]
        assert isinstance(amount, int)
        if amount > limits.max_amount:
            return Approval.deny(f"over {limits.max_amount}")
        return Approval.allow()

    replies: list[Message | str] = [
        tool_calls(tool_call("c1", "pay", amount=5), tool_call("c2", "pay", amount=500)),
        "done",
    ]
    return Agent(ScriptedProvider(replies), tools=[pay], approver=within_limit, deps_type=Limits)


async def test_the_agents_own_approver_decides_each_call_in_an_activity(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP15: the agent's approver runs as an activity with the call's context (the run's
    deps included) before the call; a denied call gets `denied: <reason>` and never
    runs, as in process."""
    queue = fresh("q")
    async with agent_worker(client, AgentRegistry({"payer": payer}), task_queue=queue):
        handle = await start_agent_run(
            client, "payer", "pay", id=fresh("run"), task_queue=queue, deps=Limits(100)
        )
        result = await handle.result()
    assert results_of(load_messages(result.transcript)) == [
        ("c1", "paid 5", False),
        ("c2", "denied: over 100", True),
    ]


async def test_follow_events_yields_each_event_once_while_the_run_goes_on(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP7: `follow_events` polls the `events` query and yields every event once, in
    order, until the run is closed: the same events `query_events` gives at the end,
    which a `StreamAccumulator` folds into the run's view."""
    registry = AgentRegistry({"payer": payer})
    queue = fresh("q")
    async with agent_worker(client, registry, task_queue=queue):
        handle = await start_agent_run(
            client, "payer", "pay", id=fresh("run"), task_queue=queue, deps=Limits(100)
        )
        followed = [event async for event in follow_events(handle, interval=0.05)]
        everything = await query_events(handle)
    assert followed == everything
    folded = StreamAccumulator()
    for event in followed:
        folded.add(event)
    (view,) = folded.views()
    assert view.text == "done"
    assert [(c.id, c.result) for c in view.tool_calls] == [
        ("c1", "paid 5"),
        ("c2", "denied: over 100"),
    ]


class Answer(BaseModel):
    text: str


def front_desk() -> Agent:
    expert = Agent(
        ScriptedProvider(
            [
                tool_calls(tool_call("p1", "pay", amount=1)),
                tool_calls(tool_call("o1", "automata_structured_output", text="paid")),
            ]
        ),
        name="expert",
        tools=[pay],
    )
    desk = ScriptedProvider([tool_calls(tool_call("t1", "transfer_to_expert"))])
    return Agent(desk, name="desk", handoffs=[expert], system_prompt=lambda c: "Be kind.")


async def test_a_run_with_a_handoff_and_typed_output_replays_in_the_sandbox(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP2: the history of a run whose loop handed off and answered through the typed
    output tool replays with `agent_replayer`: the core loop in the workflow is
    deterministic."""
    registry = AgentRegistry({"desk": TemporalAgent(front_desk, output_type=Answer)})
    queue = fresh("q")
    async with agent_worker(client, registry, task_queue=queue):
        handle = await start_agent_run(client, "desk", "pay 1", id=fresh("run"), task_queue=queue)
        result = await handle.result()
        history = await handle.fetch_history()
    assert result.output_as(Answer) == Answer(text="paid")
    fresh_registry = AgentRegistry({"desk": TemporalAgent(front_desk, output_type=Answer)})
    replayed = await agent_replayer(fresh_registry).replay_workflow(history)
    assert replayed.replay_failure is None
