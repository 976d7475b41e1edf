"""A tool-using agent, end to end, with no API key.

Run: uv run python examples/quickstart.py

The model here is a `FunctionProvider` that decides like a model would (call the
weather tool, then answer from its result), so the example runs anywhere. Swap in
`AnthropicProvider("claude-sonnet-4-5")` or `OpenAIProvider("gpt-4.1")` for a real one.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from automata.core import Agent, Message, ModelRequest, StreamAccumulator, ToolResultBlock
from automata.core.testing import FunctionProvider, tool_call, tool_calls


def pretend_model(request: ModelRequest) -> Message:
    last = request.messages[-1]
    if last.role == "user":
        city = last.text.rsplit(" ", 1)[-1].strip("?")
        return tool_calls(tool_call("call_1", "weather", city=city), text="Let me check. ")
    result = next(b for b in last.content if isinstance(b, ToolResultBlock))
    return Message.assistant(f"It is {result.text}.")


agent = Agent(FunctionProvider(pretend_model), system_prompt="You are a concise assistant.")


@agent.tool
def weather(city: Annotated[str, "city to look up"]) -> str:
    """Get the weather for a city."""
    return f"sunny and 21°C in {city}"


async def main() -> None:
    accumulator = StreamAccumulator()
    stream = agent.stream("What's the weather in Paris?")
    async for event in stream:
        accumulator.add(event)
    result = stream.result
    (view,) = accumulator.views()
    print(result.output)
    print(f"({result.steps} steps, {len(view.tool_calls)} tool call, stop: {result.stop_reason})")


if __name__ == "__main__":
    asyncio.run(main())
