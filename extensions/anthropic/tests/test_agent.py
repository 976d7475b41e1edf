"""AnthropicProvider driven by the real agent loop against the local server."""

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
    ThinkingBlock,
    Tool,
    ToolCallEvent,
    ToolResultBlock,
    Usage,
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


async def test_an_agent_runs_a_tool_call_then_answers(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    script(server)
    agent = Agent(make_provider(), system_prompt="Be brief.", tools=[weather_tool()])
    result = await agent.run("Weather in Oslo?")
    assert result.output == "It snows in Oslo."
    assert (result.steps, result.stop_reason) == (2, StopReason.END_TURN)
    assert result.usage == Usage(input_tokens=20, output_tokens=10)
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


async def test_a_streamed_agent_run_emits_text_and_the_tool_call(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    script(server)
    agent = Agent(make_provider(), tools=[weather_tool()])
    stream = agent.stream("Weather in Oslo?")
    events = [event async for event in stream]
    text = "".join(e.text for e in events if isinstance(e, TextEvent))
    calls = [e.call.name for e in events if isinstance(e, ToolCallEvent)]
    assert text == "It snows in Oslo."
    assert calls == ["weather"]
    assert stream.result.output == "It snows in Oslo."


async def test_a_stream_broken_after_text_fails_the_run_as_incomplete_with_the_partial_text(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    body = replies.message([{"type": "text", "text": "It snows in Oslo."}])
    server.enqueue(Reply(events=replies.stream_events(body), drop_after=4))
    agent = Agent(make_provider())
    stream = agent.stream("Weather in Oslo?")
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


async def test_a_traced_run_reports_the_provider_model_and_usage_on_its_chat_spans(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    script(server)
    agent = Agent(make_provider(), tools=[weather_tool()], tracer_provider=tracer_provider)
    await agent.run("Weather in Oslo?")
    chats = [s for s in exporter.get_finished_spans() if s.name.startswith("chat")]
    assert len(chats) == 2
    attributes = dict(chats[0].attributes or {})
    assert attributes["gen_ai.provider.name"] == "anthropic"
    assert attributes["gen_ai.request.model"] == agent.provider.model  # type: ignore[attr-defined]
    assert attributes["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (
        10,
        5,
    )
