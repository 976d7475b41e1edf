"""Handoffs in a stream: a `HandoffEvent` marks the switch, later events carry the new
agent's name, and the accumulator folds it (docs/streaming.md, O9 and M10)."""

from __future__ import annotations

from automata.core import (
    Agent,
    HandoffEvent,
    StreamAccumulator,
    StreamEvent,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls


def agents() -> Agent:
    billing = Agent(ScriptedProvider(["refunded"]), name="billing")
    return Agent(
        ScriptedProvider([tool_calls(tool_call("h1", "transfer_to_billing"))]),
        name="triage",
        handoffs=[billing],
    )


async def streamed(agent: Agent) -> tuple[list[StreamEvent], str]:
    events: list[StreamEvent] = []
    async with agent.stream("I was charged twice") as stream:
        async for event in stream:
            events.append(event)
    return events, stream.result.agent


async def test_the_handoff_event_follows_the_batch_and_precedes_the_new_agent() -> None:
    """O9 (and L84): after the handoff call's result, before the new agent's first event; tagged
    with the agent handing off; later events carry the new agent's name and the same
    invocation id and depth."""
    events, finished_by = await streamed(agents())
    kinds = [(type(e).__name__, e.agent) for e in events if not isinstance(e, UsageEvent)]
    assert kinds == [
        ("ToolCallEvent", "triage"),
        ("ToolResultEvent", "triage"),
        ("HandoffEvent", "triage"),
        ("TextEvent", "billing"),
    ]
    handoff = next(e for e in events if isinstance(e, HandoffEvent))
    assert (handoff.from_agent, handoff.to_agent) == ("triage", "billing")
    assert len({e.invocation_id for e in events}) == 1
    assert {e.depth for e in events} == {0}
    assert finished_by == "billing"
    assert isinstance(events[0], ToolCallEvent)
    assert any(isinstance(e, ToolResultEvent) for e in events)
    assert isinstance(events[-1], TextEvent | UsageEvent)


async def test_the_accumulator_shows_the_agent_answering_now() -> None:
    """M10: the lane that handed off says to whom; the new agent has a lane of its own;
    `current_agent` follows the top-level handoff."""
    accumulator = StreamAccumulator()
    assert accumulator.current_agent is None
    events, _ = await streamed(agents())
    for event in events[:2]:
        accumulator.add(event)
    assert accumulator.current_agent == "triage"
    for event in events[2:]:
        accumulator.add(event)
    assert accumulator.current_agent == "billing"
    triage_view, billing_view = accumulator.views()
    assert (triage_view.agent, triage_view.handed_off_to) == ("triage", "billing")
    assert (billing_view.agent, billing_view.text, billing_view.handed_off_to) == (
        "billing",
        "refunded",
        None,
    )
