"""Tool arguments the model sent that are not a JSON object never reach the tool.

A string `input` in a JSON reply, or `input_json_delta` fragments that join into
something other than an object (or stop part-way), become a `ToolUseBlock` with empty
`input` and `input_error` set, in both modes alike; the agent loop then answers the
call with `invalid args: ...` without running the tool (docs/loop.md L16).
"""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer, final_response, sse_event

from automata.anthropic import AnthropicProvider
from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    Agent,
    Message,
    ModelRequest,
    ModelResponse,
    PartialOutputEvent,
    ToolCallDelta,
    ToolCallDeltaEvent,
    ToolCallEvent,
    ToolResultBlock,
    ToolUseBlock,
    tool,
)

from . import replies
from .conftest import ProviderMaker

REQUEST = ModelRequest(messages=(Message.user("hi"),))


def streamed_call(*fragments: str, name: str = "weather") -> Reply:
    """A stream whose one tool_use block's arguments arrive as these fragments."""
    start = replies.message([], stop_reason=None)
    events = [sse_event("message_start", {"type": "message_start", "message": start})]
    opening = {"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}
    events.append(
        sse_event(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": opening},
        )
    )
    for fragment in fragments:
        delta = {"type": "input_json_delta", "partial_json": fragment}
        events.append(
            sse_event(
                "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
            )
        )
    events.append(sse_event("content_block_stop", {"type": "content_block_stop", "index": 0}))
    events.append(
        sse_event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 3},
            },
        )
    )
    events.append(sse_event("message_stop", {"type": "message_stop"}))
    return Reply(events=events)


def json_call(arguments: Any) -> Reply:
    call = {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": arguments}
    return Reply(json_body=replies.message([call], stop_reason="tool_use"))


async def only_call(server: WireServer, provider: AnthropicProvider, reply: Reply) -> ToolUseBlock:
    server.enqueue(reply)
    response = await final_response(provider, REQUEST, streamed=reply.events is not None)
    (call,) = response.message.tool_calls
    return call


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (
            json_call('{"city": "Oslo"}'),
            """arguments are not a JSON object: '"{\\\\"city\\\\": \\\\"Oslo\\\\"}"'""",
        ),
        (json_call([1, 2]), "arguments are not a JSON object: '[1, 2]'"),
        (json_call(None), "arguments are not a JSON object: 'null'"),
        (streamed_call('"Os', 'lo"'), """arguments are not a JSON object: '"Oslo"'"""),
        (streamed_call("[1, ", "2]"), "arguments are not a JSON object: '[1, 2]'"),
        (streamed_call('{"city": ', '"Os'), """arguments were cut off: '{"city": "Os'"""),
        (streamed_call('{"city": Oslo}'), """arguments are not valid JSON: '{"city": Oslo}'"""),
        (streamed_call('{"x": NaN}'), """arguments are not valid JSON: '{"x": NaN}'"""),
    ],
    ids=[
        "json-string",
        "json-list",
        "json-null",
        "stream-string",
        "stream-list",
        "cut-off",
        "bad",
        "not-a-number",
    ],
)
async def test_arguments_that_are_not_a_json_object_are_reported_not_emptied(
    server: WireServer, provider: AnthropicProvider, reply: Reply, message: str
) -> None:
    call = await only_call(server, provider, reply)
    assert (call.input, call.input_error) == ({}, message)


async def test_a_long_unreadable_argument_text_is_shortened_in_the_report(
    server: WireServer, provider: AnthropicProvider
) -> None:
    arguments = '{"city": "' + "x" * 500
    call = await only_call(server, provider, streamed_call(arguments))
    assert call.input_error == f"arguments were cut off: {arguments[:200]!r}... (510 characters)"


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_an_object_and_no_arguments_at_all_read_as_before(
    server: WireServer, provider: AnthropicProvider, streamed: bool
) -> None:
    reply = streamed_call('{"city": ', '"Oslo"}') if streamed else json_call({"city": "Oslo"})
    assert (await only_call(server, provider, reply)).input == {"city": "Oslo"}
    empty = await only_call(server, provider, streamed_call() if streamed else json_call({}))
    assert (empty.input, empty.input_error) == ({}, None)


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_the_agent_never_runs_a_tool_on_arguments_it_could_not_read(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    ran: list[str] = []

    def weather(city: str = "Paris") -> str:
        """Current weather for a city."""
        ran.append(city)
        return f"sun in {city}"

    first = streamed_call('"Oslo"') if streamed else json_call("Oslo")
    server.enqueue(first, replies.reply(replies.message([{"type": "text", "text": "Sorry."}])))
    agent = Agent(make_provider(), tools=[tool(weather)])
    if streamed:
        run = agent.stream("Weather?")
        async for _ in run:
            pass
        result = run.result
    else:
        result = await agent.run("Weather?")
    assert ran == []
    result_block = result.messages[2].content[0]
    assert isinstance(result_block, ToolResultBlock)
    assert result_block.is_error
    sent = server.received[1].body["messages"][2]["content"][0]
    assert sent == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": """invalid args: arguments are not a JSON object: '"Oslo"'""",
        "is_error": True,
    }


async def test_streamed_argument_fragments_are_yielded_as_tool_call_deltas(
    server: WireServer, provider: AnthropicProvider
) -> None:
    """Each non-empty `input_json_delta` is a `ToolCallDelta` naming the call, before
    the final response (docs/streaming.md O6)."""
    server.enqueue(streamed_call("", '{"city": ', '"Oslo"}'))
    items = [item async for item in provider.stream(REQUEST)]
    assert items[:-1] == [
        ToolCallDelta("toolu_1", "weather", '{"city": '),
        ToolCallDelta("toolu_1", "weather", '"Oslo"}'),
    ]
    assert isinstance(items[-1], ModelResponse)
    assert items[-1].message.tool_calls[0].input == {"city": "Oslo"}


async def test_a_streamed_run_reports_the_arguments_as_they_are_written(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    """The agent turns the provider's argument deltas into `ToolCallDeltaEvent`s
    ahead of the call's `ToolCallEvent` (docs/streaming.md O6)."""

    def weather(city: str) -> str:
        """Current weather for a city."""
        return f"sun in {city}"

    server.enqueue(
        streamed_call('{"city": ', '"Oslo"}'),
        replies.reply(replies.message([{"type": "text", "text": "Sunny."}])),
    )
    agent = Agent(make_provider(), tools=[tool(weather)])
    async with agent.stream("Weather?") as stream:
        events = [event async for event in stream]
    assert [(e.call_id, e.name, e.delta) for e in events if isinstance(e, ToolCallDeltaEvent)] == [
        ("toolu_1", "weather", '{"city": '),
        ("toolu_1", "weather", '"Oslo"}'),
    ]
    (announced,) = [e for e in events if isinstance(e, ToolCallEvent)]
    assert announced.call.input == {"city": "Oslo"}
    assert events.index(announced) > max(
        i for i, e in enumerate(events) if isinstance(e, ToolCallDeltaEvent)
    )


async def test_a_typed_streamed_run_reports_partial_output(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    """The hidden output tool's streamed arguments give partial values, and the run's
    output is the complete value (docs/streaming.md O8)."""
    server.enqueue(streamed_call('{"result": ["a', '", "b', '"]}', name=STRUCTURED_OUTPUT_TOOL))
    agent = Agent(make_provider())
    async with agent.stream("Letters?", output_type=list[str]) as stream:
        partials = [e.output async for e in stream if isinstance(e, PartialOutputEvent)]
    assert partials == [["a"], ["a", "b"]]
    assert stream.result.output == ["a", "b"]
