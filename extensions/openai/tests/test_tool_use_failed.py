"""Groq's `tool_use_failed` (the server could not parse the call the model wrote) is
a correction turn, as unreadable arguments are: the model is told, and tries again
within `max_steps`. The error's shape is Groq's own (400 with `failed_generation`;
in a stream, the same object in an error event)."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer, sse_data

from automata.core import Agent, MaxStepsError, ProviderError, RunResult, tool

from . import replies
from .conftest import ProviderMaker

GENERATION = '<function=forecast{"city": "Oslo"}</function>'
MESSAGE = (
    "Failed to call a function. Please adjust your prompt. "
    "See 'failed_generation' for more details."
)
FAILED: dict[str, Any] = {
    "message": MESSAGE,
    "type": "invalid_request_error",
    "code": "tool_use_failed",
    "failed_generation": GENERATION,
}


def refused(request: dict[str, Any]) -> Reply:
    """Groq's refusal: a 400, or, to a streaming request, an error event."""
    if request.get("stream"):
        return Reply(events=[sse_data({"error": FAILED})])
    return Reply(status=400, json_body={"error": FAILED})


def forecast(city: str) -> str:
    """The forecast for a city."""
    return f"rain in {city}"


async def run(agent: Agent, task: str, *, streamed: bool) -> RunResult[Any]:
    if not streamed:
        return await agent.run(task)
    stream = agent.stream(task)
    _ = [event async for event in stream]
    return stream.result


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_a_refused_tool_call_is_corrected_by_the_model_and_the_run_answers(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    server.enqueue(
        refused,
        replies.reply(
            replies.completion(
                tool_calls=[replies.tool_call("call_ok", "forecast", {"city": "Oslo"})],
                finish_reason="tool_calls",
            )
        ),
        replies.reply(replies.completion("Rain in Oslo.")),
    )
    agent = Agent(make_provider(), tools=[tool(forecast)])
    result = await run(agent, "Forecast for Oslo?", streamed=streamed)
    assert result.output == "Rain in Oslo."
    corrected = server.received[1].body["messages"]
    call = corrected[-2]["tool_calls"][0]
    assert call["function"] == {"name": "forecast", "arguments": GENERATION}
    assert corrected[-1] == {
        "role": "tool",
        "tool_call_id": call["id"],
        "content": (
            "error: invalid args: the server refused the tool call as written "
            f"({MESSAGE}): {GENERATION!r}"
        ),
    }
    assert server.received[2].body["messages"][-1]["content"] == "rain in Oslo"


async def test_refusals_that_never_end_stop_at_max_steps(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.always(refused)
    agent = Agent(make_provider(), tools=[tool(forecast)], max_steps=3)
    with pytest.raises(MaxStepsError):
        await agent.run("Forecast for Oslo?")
    assert len(server.received) == 3


async def test_another_invalid_request_stays_an_error(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(replies.error(400, "invalid_value", "bad temperature"))
    agent = Agent(make_provider(), tools=[tool(forecast)])
    with pytest.raises(ProviderError, match="bad temperature"):
        await agent.run("Forecast for Oslo?")
