"""Tool-call arguments stream as `ToolCallDelta`s (docs/streaming.md O6).

Every non-empty `tool_calls[].function.arguments` fragment of a streamed chunk is
handed on at once, naming the call it belongs to; the final response still carries
the parsed call.
"""

from __future__ import annotations

from automata_wire_testing import Reply, WireServer, sse_data

from automata.core import (
    Agent,
    Message,
    ModelRequest,
    ModelResponse,
    ToolCallDelta,
    ToolCallDeltaEvent,
    ToolCallEvent,
    tool,
)
from automata.openai import OpenAIProvider

from . import replies
from .conftest import ProviderMaker

REQUEST = ModelRequest(messages=(Message.user("hi"),))


async def test_argument_fragments_are_yielded_as_tool_call_deltas(
    server: WireServer, provider: OpenAIProvider
) -> None:
    body = replies.completion(
        tool_calls=[
            replies.tool_call("call_1", "weather", '{"city":"Oslo"}'),
            replies.tool_call("call_2", "clock", "{}"),
        ],
        finish_reason="tool_calls",
    )
    server.enqueue(replies.reply(body))
    items = [item async for item in provider.stream(REQUEST)]
    assert items[:-1] == [
        ToolCallDelta("call_1", "weather", '{"city"'),
        ToolCallDelta("call_1", "weather", ':"Oslo"}'),
        ToolCallDelta("call_2", "clock", "{"),
        ToolCallDelta("call_2", "clock", "}"),
    ]
    final = items[-1]
    assert isinstance(final, ModelResponse)
    assert [(c.id, c.input) for c in final.message.tool_calls] == [
        ("call_1", {"city": "Oslo"}),
        ("call_2", {}),
    ]


async def test_a_call_streamed_without_an_id_gets_one_its_deltas_and_block_share(
    server: WireServer, provider: OpenAIProvider
) -> None:
    def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return sse_data(
            {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "gpt-test",
                "choices": [choice],
            }
        )

    head = {"index": 0, "type": "function", "function": {"name": "clock", "arguments": "{"}}
    rest = {"index": 0, "function": {"arguments": "}"}}
    events = [
        chunk({"role": "assistant", "tool_calls": [head]}),
        chunk({"tool_calls": [rest]}),
        chunk({}, "tool_calls"),
        b"data: [DONE]\n\n",
    ]
    server.enqueue(Reply(events=events))
    items = [item async for item in provider.stream(REQUEST)]
    first, second, final = items
    assert isinstance(first, ToolCallDelta)
    assert isinstance(second, ToolCallDelta)
    assert isinstance(final, ModelResponse)
    (call,) = final.message.tool_calls
    assert first.id
    assert (first.id, second.id, first.name, first.arguments + second.arguments) == (
        call.id,
        call.id,
        "clock",
        "{}",
    )


async def test_a_streamed_run_reports_the_arguments_as_they_are_written(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    def weather(city: str) -> str:
        """Current weather for a city."""
        return f"sun in {city}"

    call = replies.tool_call("call_1", "weather", '{"city":"Oslo"}')
    server.enqueue(
        replies.reply(replies.completion(tool_calls=[call], finish_reason="tool_calls")),
        replies.reply(replies.completion("Sunny.")),
    )
    agent = Agent(make_provider(), tools=[tool(weather)])
    async with agent.stream("Weather?") as stream:
        events = [event async for event in stream]
    deltas = [e for e in events if isinstance(e, ToolCallDeltaEvent)]
    assert [(e.call_id, e.name, e.delta) for e in deltas] == [
        ("call_1", "weather", '{"city"'),
        ("call_1", "weather", ':"Oslo"}'),
    ]
    (announced,) = [e for e in events if isinstance(e, ToolCallEvent)]
    assert announced.call.input == {"city": "Oslo"}
    assert events.index(announced) > events.index(deltas[-1])
    assert stream.result.output == "Sunny."
