"""Many runs in one process."""

from __future__ import annotations

import asyncio

from automata.core import Agent, Message, ModelRequest, ToolResultBlock
from automata.core.testing import FunctionProvider, tool_call, tool_calls


def echo_model(request: ModelRequest) -> Message:
    """Calls `double` once with the number in the task, then reports the result."""
    last = request.messages[-1]
    if last.role == "user":
        number = int(last.text.split()[-1])
        return tool_calls(tool_call(f"c{number}", "double", n=number))
    result = last.content[0]
    assert isinstance(result, ToolResultBlock)
    return Message.assistant(f"result {result.text}")


async def test_a_thousand_concurrent_runs_complete_correctly() -> None:
    agent = Agent(FunctionProvider(echo_model))

    @agent.tool
    async def double(n: int) -> int:
        await asyncio.sleep(0)
        return n * 2

    results = await asyncio.gather(*(agent.run(f"double {i}") for i in range(1000)))
    assert [r.output for r in results] == [f"result {i * 2}" for i in range(1000)]
    assert all(r.steps == 2 for r in results)


async def test_a_thousand_concurrent_sessions_stream_without_error() -> None:
    agent = Agent(FunctionProvider(echo_model))
    agent.tool(lambda n: n * 2, name="double")

    async def one(i: int) -> str:
        session = agent.session()
        stream = session.stream(f"double {i}")
        async for _ in stream:
            pass
        return str(stream.result.output)

    outputs = await asyncio.gather(*(one(i) for i in range(1000)))
    assert outputs == [f"result {i * 2}" for i in range(1000)]
