"""A server that reuses one tool-call id (`call_0` on every turn) still gives a
transcript whose ids are unique, and gets back the ids it wrote (L93)."""

from __future__ import annotations

from automata.core import Agent, Message, ToolUseBlock, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


def lookup(city: str) -> str:
    """The weather of a city."""
    return f"sun in {city}"


def call_ids(messages: list[Message] | tuple[Message, ...]) -> list[str]:
    return [b.id for m in messages for b in m.content if isinstance(b, ToolUseBlock)]


def script() -> ScriptedProvider:
    return ScriptedProvider(
        [
            tool_calls(tool_call("call_0", "lookup", city="Oslo")),
            tool_calls(
                tool_call("call_0", "lookup", city="Rome"),
                tool_call("call_0", "lookup", city="Lima"),
            ),
            "Done.",
        ]
    )


async def test_repeated_server_call_ids_are_made_unique_in_the_transcript() -> None:
    """L93: every call of the transcript has its own id, each result names its own call,
    and the server's id is kept as `wire_id`."""
    result = await Agent(script(), tools=[tool(lookup)]).run("Weather?")
    assert call_ids(result.messages) == ["call_0", "call_0_2", "call_0_3"]
    assert tool_results(result.messages) == [
        ("call_0", "sun in Oslo", False),
        ("call_0_2", "sun in Rome", False),
        ("call_0_3", "sun in Lima", False),
    ]
    wire = [b.wire_id for m in result.messages for b in m.content if isinstance(b, ToolUseBlock)]
    assert wire == [None, "call_0", "call_0"]


async def test_the_server_gets_back_the_ids_it_wrote_on_calls_and_results() -> None:
    """L93: on the wire each renamed call and its result carry the server's id again."""
    provider = script()
    await Agent(provider, tools=[tool(lookup)], max_steps=5).run("Weather?")
    last = provider.requests[-1].messages
    assert call_ids(last) == ["call_0", "call_0", "call_0"]
    assert [call_id for call_id, _, _ in tool_results(last)] == ["call_0", "call_0", "call_0"]


async def test_ids_that_never_repeat_are_left_as_the_server_wrote_them() -> None:
    """L93: nothing is renamed, and no `wire_id` set, while ids are unique."""
    provider = ScriptedProvider(
        [
            tool_calls(tool_call("a", "lookup", city="Oslo")),
            tool_calls(tool_call("b", "lookup", city="Rome")),
            "Done.",
        ]
    )
    result = await Agent(provider, tools=[tool(lookup)]).run("Weather?")
    assert call_ids(result.messages) == ["a", "b"]
    assert not any("wire_id" in message.model_dump_json() for message in result.messages)
    assert provider.requests[-1].messages == tuple(result.messages[:-1])
