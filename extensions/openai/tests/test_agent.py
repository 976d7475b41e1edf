"""OpenAIProvider driven by the real agent loop against the local server."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import WireServer
from pydantic import BaseModel

from automata.core import (
    Agent,
    Tool,
    ToolResult,
    tool,
)

from . import replies
from .conftest import ProviderMaker

USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
PIXEL = b"\x89PNG\r\n\x1a\npixel"


def weather(city: str) -> str:
    """Current weather for a city."""
    return f"snow in {city}"


def broken(city: str) -> str:
    """Always fails."""
    raise RuntimeError(f"no station near {city}")


def snapshot(city: str) -> ToolResult:
    """A webcam picture of the city."""
    return ToolResult.image(PIXEL, media_type="image/png", caption=f"webcam {city}")


def call_then_answer(server: WireServer, name: str) -> None:
    server.enqueue(
        replies.reply(
            replies.completion(
                tool_calls=[replies.tool_call("call_w", name, {"city": "Oslo"})],
                finish_reason="tool_calls",
                usage=USAGE,
            )
        ),
        replies.reply(replies.completion("It snows in Oslo.", usage=USAGE)),
    )


def agent_with(provider: Any, *tools: Tool) -> Agent:
    return Agent(provider, system_prompt="Be brief.", tools=tools)


async def test_the_tool_result_goes_back_as_a_tool_message(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    call_then_answer(server, "weather")
    await agent_with(make_provider(), tool(weather)).run("Weather in Oslo?")
    assert server.received[1].body["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_w",
        "content": "snow in Oslo",
    }


async def test_a_failing_tool_reaches_the_model_prefixed_error(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    call_then_answer(server, "broken")
    await agent_with(make_provider(), tool(broken)).run("Weather in Oslo?")
    assert server.received[1].body["messages"][-1]["content"] == "error: no station near Oslo"


async def test_an_image_a_tool_returns_reaches_the_model(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    call_then_answer(server, "snapshot")
    await agent_with(make_provider(), tool(snapshot)).run("Show me Oslo")
    sent = server.received[1].body["messages"]
    assert [m["role"] for m in sent[-2:]] == ["tool", "user"]
    assert sent[-2]["content"].startswith("webcam Oslo")
    images = [p for p in sent[-1]["content"] if p["type"] == "image_url"]
    assert images == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgpwaXhlbA=="}}
    ]


class City(BaseModel):
    name: str
    country: str


async def test_native_structured_output_goes_through_response_format(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(replies.reply(replies.completion('{"name": "Oslo", "country": "Norway"}')))
    agent = Agent(make_provider())
    result = await agent.run("Capital of Norway?", output_type=City, native_structured_output=True)
    assert result.output == City(name="Oslo", country="Norway")
    response_format = server.received[0].body["response_format"]
    assert response_format["type"] == "json_schema"
    assert set(response_format["json_schema"]["schema"]["properties"]) == {"name", "country"}


@pytest.mark.parametrize("streamed", [False, True])
@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        ('{"city": "Os', 'arguments were cut off: \'{"city": "Os\''),
        ('["Oslo"]', "arguments are not a JSON object: '[\"Oslo\"]'"),
    ],
)
async def test_unreadable_arguments_never_run_the_tool_and_reach_the_model_as_invalid_args(
    server: WireServer, make_provider: ProviderMaker, streamed: bool, arguments: str, why: str
) -> None:
    ran: list[str] = []

    def forecast(city: str = "Paris") -> str:
        """The forecast for a city (Paris unless told)."""
        ran.append(city)
        return f"rain in {city}"

    server.enqueue(
        replies.reply(
            replies.completion(
                tool_calls=[replies.tool_call("call_w", "forecast", arguments)],
                finish_reason="tool_calls",
                usage=USAGE,
            )
        ),
        replies.reply(replies.completion("Which city?", usage=USAGE)),
    )
    agent = agent_with(make_provider(), tool(forecast))
    if streamed:
        stream = agent.stream("Forecast?")
        _ = [event async for event in stream]
        result = stream.result
    else:
        result = await agent.run("Forecast?")
    assert ran == []
    assert result.output == "Which city?"
    sent = server.received[1].body["messages"]
    assert sent[-2]["tool_calls"] == [
        {
            "id": "call_w",
            "type": "function",
            "function": {"name": "forecast", "arguments": arguments},
        }
    ]
    assert sent[-1] == {
        "role": "tool",
        "tool_call_id": "call_w",
        "content": f"error: invalid args: {why}",
    }
