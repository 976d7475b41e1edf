"""OpenAIProvider driven by the real agent loop against the local server."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer
from pydantic import BaseModel

from automata.core import (
    Agent,
    IncompleteResponseError,
    StopReason,
    TextEvent,
    Tool,
    ToolCallEvent,
    ToolResult,
    Usage,
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


async def test_an_agent_runs_a_tool_call_then_answers(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    call_then_answer(server, "weather")
    result = await agent_with(make_provider(), tool(weather)).run("Weather in Oslo?")
    assert result.output == "It snows in Oslo."
    assert (result.steps, result.stop_reason) == (2, StopReason.END_TURN)
    assert result.usage == Usage(input_tokens=20, output_tokens=10)
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


async def test_a_streamed_agent_run_emits_text_and_the_tool_call(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    call_then_answer(server, "weather")
    stream = agent_with(make_provider(), tool(weather)).stream("Weather in Oslo?")
    events = [event async for event in stream]
    assert "".join(e.text for e in events if isinstance(e, TextEvent)) == "It snows in Oslo."
    assert [e.call.name for e in events if isinstance(e, ToolCallEvent)] == ["weather"]
    assert stream.result.usage == Usage(input_tokens=20, output_tokens=10)


async def test_a_stream_broken_after_text_fails_the_run_as_incomplete_with_the_partial_text(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    body = replies.completion("It snows in Oslo.")
    server.enqueue(Reply(events=replies.stream_events(body), drop_after=2))
    stream = Agent(make_provider()).stream("Weather in Oslo?")
    with pytest.raises(IncompleteResponseError) as caught:
        _ = [event async for event in stream]
    result = caught.value.result
    assert result is not None
    assert result.stop_reason is StopReason.INCOMPLETE
    assert result.messages[-1].text == "It snows"
    assert len(server.received) == 1


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


async def test_a_traced_run_reports_the_provider_model_and_usage_on_its_chat_spans(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    call_then_answer(server, "weather")
    agent = Agent(make_provider(), tools=[tool(weather)], tracer_provider=tracer_provider)
    await agent.run("Weather in Oslo?")
    chats = [s for s in exporter.get_finished_spans() if s.name.startswith("chat")]
    assert len(chats) == 2
    attributes = dict(chats[0].attributes or {})
    assert attributes["gen_ai.provider.name"] == "openai"
    assert attributes["gen_ai.request.model"] == agent.provider.model  # type: ignore[attr-defined]
    assert attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (
        10,
        5,
    )
