"""The agent the example serves by default: a trip planner that sends two researchers
off in parallel, each of which uses a search tool. Its models are scripted, so it runs
with no API key; replace `demo_agent` with a factory for a real agent to go live.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from automata.core import (
    Agent,
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ToolResultBlock,
    Usage,
    as_tool_func,
    pre_send,
)
from automata.core.testing import FunctionProvider, ScriptedProvider, tool_call, tool_calls

__all__ = ["demo_agent"]

_FACTS = {
    "weather": "Lisbon in May: 22°C by day, little rain, long evenings.",
    "food": "Try pastéis de nata in Belém and grilled sardines in Alfama.",
}


def _turn(message: Message, input_tokens: int, output_tokens: int) -> ModelResponse:
    stop = StopReason.TOOL_USE if message.tool_calls else StopReason.END_TURN
    return ModelResponse(
        message=message,
        stop_reason=stop,
        usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens),
        raw_stop_reason=stop.value,
    )


def _sentences(*parts: str) -> Message:
    """An answer in several text blocks, so a stream delivers it piece by piece."""
    return Message.assistant([TextBlock(text=part) for part in parts])


def _researcher_model(request: ModelRequest) -> ModelResponse:
    """Search once for the topic it was given, then report what the search found."""
    last = request.messages[-1]
    topic = next(m.text for m in request.messages if m.role == "user")
    if last.role == "tool":
        found = next(b.text for b in last.content if isinstance(b, ToolResultBlock))
        return _turn(_sentences(f"On {topic}: ", found), 60, 25)
    return _turn(
        tool_calls(
            tool_call(f"search-{topic}", "search", query=topic), text=f"Searching {topic}. "
        ),
        40,
        12,
    )


def demo_agent(pace: float = 0.0) -> Agent:
    """A fresh trip-planner agent (scripted replies are used up by one run).

    `pace` is how long, in seconds, each model turn and each search takes, so that a
    person watching the page can follow the run; tests use 0.
    """

    async def slow_model(request: ModelRequest) -> ModelRequest:
        await asyncio.sleep(pace)
        return request

    hooks = [pre_send(slow_model)] if pace > 0 else []
    researcher = Agent(
        FunctionProvider(_researcher_model),
        name="researcher",
        system_prompt="Research one topic with the search tool and report briefly.",
        hooks=hooks,
    )

    @researcher.tool
    async def search(query: Annotated[str, "what to look up"]) -> str:
        """Look a topic up in the travel notes."""
        await asyncio.sleep(pace)
        return _FACTS.get(query, f"nothing found on {query}")

    return Agent(
        ScriptedProvider(
            [
                _turn(
                    tool_calls(
                        tool_call("call_weather", "researcher", task="weather"),
                        tool_call("call_food", "researcher", task="food"),
                        text="I'll check the weather and the food in parallel. ",
                    ),
                    120,
                    30,
                ),
                _turn(
                    _sentences(
                        "Go to Lisbon in May: ",
                        "it is warm and dry, ",
                        "and you can eat pastéis de nata in Belém ",
                        "and grilled sardines in Alfama.",
                    ),
                    300,
                    28,
                ),
            ]
        ),
        name="planner",
        system_prompt="Plan trips; delegate research to the researcher.",
        tools=[as_tool_func(researcher, "researcher", "Research one topic for the trip.")],
        hooks=hooks,
    )
