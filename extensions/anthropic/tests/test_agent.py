"""AnthropicProvider driven by the real agent loop against the local server."""

from __future__ import annotations

from typing import Any

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
