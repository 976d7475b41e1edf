"""A compatible server that names every tool call `call_0` (as Amazon's
OpenAI-compatible endpoint does): the run's transcript has unique ids, and each
assistant turn and its tool messages go back with the id the server wrote."""

from __future__ import annotations

import pytest
from automata_wire_testing import Responder, WireServer

from automata.core import Agent, ToolUseBlock, tool

from . import replies
from .conftest import ProviderMaker


def lookup(city: str) -> str:
    """The weather of a city."""
    return f"sun in {city}"


def calls(city: str) -> Responder:
    return replies.reply(
        replies.completion(
            tool_calls=[replies.tool_call("call_0", "lookup", {"city": city})],
            finish_reason="tool_calls",
        )
    )


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_a_server_reusing_call_0_gets_it_back_and_the_transcript_stays_unique(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    server.enqueue(calls("Oslo"), calls("Rome"), replies.reply(replies.completion("Done.")))
    agent = Agent(make_provider(), tools=[tool(lookup)])
    if streamed:
        stream = agent.stream("Weather?")
        _ = [event async for event in stream]
        result = stream.result
    else:
        result = await agent.run("Weather?")
    ids = [b.id for m in result.messages for b in m.content if isinstance(b, ToolUseBlock)]
    assert ids == ["call_0", "call_0_2"]
    sent = server.received[2].body["messages"]
    assert [(m["role"], m.get("tool_call_id")) for m in sent[1:]] == [
        ("assistant", None),
        ("tool", "call_0"),
        ("assistant", None),
        ("tool", "call_0"),
    ]
    assert [m["tool_calls"][0]["id"] for m in sent if m["role"] == "assistant"] == [
        "call_0",
        "call_0",
    ]
    assert [m["content"] for m in sent if m["role"] == "tool"] == ["sun in Oslo", "sun in Rome"]
