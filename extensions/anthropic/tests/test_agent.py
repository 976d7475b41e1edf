"""AnthropicProvider driven by the real agent loop against the local server."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import WireServer
from pydantic import BaseModel

from automata.core import (
    Agent,
    ThinkingBlock,
    Tool,
    ToolResultBlock,
    tool,
)

from . import replies
from .conftest import ProviderMaker

THINKING = {"type": "thinking", "thinking": "Use the tool.", "signature": "sig-t"}
CALL = {"type": "tool_use", "id": "toolu_w", "name": "weather", "input": {"city": "Oslo"}}
USAGE = {"input_tokens": 10, "output_tokens": 5}


def weather(city: str) -> str:
    """Current weather for a city."""
    return f"snow in {city}"


def weather_tool() -> Tool:
    return tool(weather)


def script(server: WireServer) -> None:
    server.enqueue(
        replies.reply(replies.message([THINKING, CALL], stop_reason="tool_use", usage=USAGE)),
        replies.reply(
            replies.message([{"type": "text", "text": "It snows in Oslo."}], usage=USAGE)
        ),
    )


async def test_the_signed_thinking_and_the_tool_result_go_back_in_the_next_request(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    script(server)
    agent = Agent(make_provider(), system_prompt="Be brief.", tools=[weather_tool()])
    await agent.run("Weather in Oslo?")
    second = server.received[1].body["messages"]
    assert second[1]["content"][0] == THINKING
    assert second[2]["content"][0]["type"] == "tool_result"
    assert second[2]["content"][0]["content"] == "snow in Oslo"


async def test_the_transcript_keeps_the_signed_thinking_and_the_tool_result(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    script(server)
    agent = Agent(make_provider(), tools=[weather_tool()])
    result = await agent.run("Weather in Oslo?")
    assistant, tool = result.messages[1], result.messages[2]
    assert assistant.content[0] == ThinkingBlock(thinking="Use the tool.", signature="sig-t")
    assert isinstance(tool.content[0], ToolResultBlock)
    assert tool.content[0].tool_use_id == "toolu_w"


class City(BaseModel):
    name: str
    country: str


async def test_native_structured_output_goes_through_output_config(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    answer = '{"name": "Oslo", "country": "Norway"}'
    server.enqueue(replies.reply(replies.message([{"type": "text", "text": answer}])))
    agent = Agent(make_provider())
    result = await agent.run("Capital of Norway?", output_type=City, native_structured_output=True)
    assert result.output == City(name="Oslo", country="Norway")
    output_config: dict[str, Any] = server.received[0].body["output_config"]
    assert output_config["format"]["type"] == "json_schema"
    assert set(output_config["format"]["schema"]["properties"]) == {"name", "country"}


# A `pause_turn` reply of the shape the API documents for server tools: the server
# tool call and its result so far, the turn to be sent back to continue.
SEARCH_CALL = {
    "type": "server_tool_use",
    "id": "srvtoolu_1",
    "name": "web_search",
    "input": {"query": "weather Oslo"},
}
SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [{"type": "web_search_result", "url": "https://yr.no", "title": "Oslo"}],
}


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_a_paused_turn_is_sent_back_as_it_is_and_the_run_goes_on(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    paused: list[dict[str, Any]] = [
        {"type": "text", "text": "Let me search."},
        SEARCH_CALL,
        SEARCH_RESULT,
    ]
    server.enqueue(
        replies.reply(replies.message(paused, stop_reason="pause_turn", usage=USAGE)),
        replies.reply(replies.message([{"type": "text", "text": "It snows."}], usage=USAGE)),
    )
    agent = Agent(make_provider())
    if streamed:
        async with agent.stream("Weather in Oslo?") as run:
            async for _ in run:
                pass
        result = run.result
    else:
        result = await agent.run("Weather in Oslo?")
    first, second = (received.body["messages"] for received in server.received)
    assert second == [*first, {"role": "assistant", "content": paused}]
    assert (result.output, result.steps, len(result.messages)) == ("It snows.", 2, 3)


CONTAINER = {"id": "container_011CPR5CNjB747bApND9bkAr", "expires_at": "2026-12-01T21:00:00Z"}
RAN_CODE: list[dict[str, Any]] = [
    {
        "type": "server_tool_use",
        "id": "srvtoolu_2",
        "name": "code_execution",
        "input": {"code": "open('a.txt', 'w').write('1')"},
    },
    {
        "type": "code_execution_tool_result",
        "tool_use_id": "srvtoolu_2",
        "content": {"type": "code_execution_result", "stdout": "", "stderr": "", "return_code": 0},
    },
    {"type": "text", "text": "Written."},
]


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_the_code_execution_container_of_a_reply_is_reused_by_the_next_call(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    server.enqueue(
        replies.reply({**replies.message(RAN_CODE, usage=USAGE), "container": CONTAINER}),
        replies.reply(replies.message([{"type": "text", "text": "It holds 1."}], usage=USAGE)),
    )
    session = Agent(make_provider()).session()
    for task in ("Write a.txt.", "What does a.txt hold?"):
        if streamed:
            async with session.stream(task) as run:
                async for _ in run:
                    pass
        else:
            await session.run(task)
    first, second = (received.body for received in server.received)
    assert "container" not in first
    assert second["container"] == CONTAINER["id"]
    assert session.messages[1].extra == {"anthropic": {"container": CONTAINER}}
