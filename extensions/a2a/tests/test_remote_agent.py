"""`A2AAgent` as a tool of an automata agent, calling an agent written on the bare
a2a-sdk (`PlainExecutor` in served.py) in a uvicorn process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from automata.a2a import (
    A2AAgent,
    RemoteAgentUnavailableError,
    RemoteInputRequiredError,
    RemoteTaskError,
)
from automata.core import Agent, InvalidToolArguments, StreamEvent, TextEvent, ToolContext
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results

from .processes import ServerProcess, free_port, running

pytestmark = pytest.mark.timeout(120)  # a server process starts slowly on a loaded machine


@pytest.fixture(scope="module")
def plain() -> Iterator[ServerProcess]:
    with running("plain") as server:
        yield server


def _context() -> ToolContext:
    return ToolContext(call=tool_call("c1", "remote_agent", task="x"), agent="t", invocation_id="i")


async def test_an_agent_calls_the_remote_agent_as_a_tool_and_gets_its_answer(
    plain: ServerProcess,
) -> None:
    provider = ScriptedProvider(
        [tool_calls(tool_call("c1", "remote_agent", task="world")), "It greeted the world."]
    )
    agent = Agent(provider, tools=[A2AAgent(plain.url)])
    events: list[StreamEvent] = []
    async with agent.iter("greet", on_event=events.append) as steps:
        async for _ in steps:
            pass
    assert tool_results(steps.result.messages) == [("c1", "Hello, world", False)]
    streamed = [e for e in events if isinstance(e, TextEvent) and e.agent == "remote_agent"]
    assert [e.text for e in streamed] == ["Hello, ", "world"]
    assert {(e.invocation_id, e.depth) for e in streamed} == {("c1", 1)}


async def test_a_remote_task_that_waits_for_input_is_a_clear_error_naming_the_task(
    plain: ServerProcess,
) -> None:
    with pytest.raises(RemoteInputRequiredError) as raised:
        await A2AAgent(plain.url).execute({"task": "ask me"}, _context())
    assert raised.value.question == "Which colour?"
    assert raised.value.task_id
    assert "needs input" in str(raised.value)


async def test_a_failed_remote_task_raises_its_reason(plain: ServerProcess) -> None:
    with pytest.raises(RemoteTaskError, match="plain agent failed") as raised:
        await A2AAgent(plain.url).execute({"task": "fail"}, _context())
    assert raised.value.state == "failed"


async def test_an_unreachable_agent_is_a_retryable_unavailable_error() -> None:
    url = f"http://127.0.0.1:{free_port()}/"
    with pytest.raises(RemoteAgentUnavailableError, match="could not be reached"):
        await A2AAgent(url, timeout=5).execute({"task": "hi"}, _context())


async def test_arguments_other_than_one_task_string_are_invalid() -> None:
    with pytest.raises(InvalidToolArguments):
        await A2AAgent("http://127.0.0.1:1/").execute({"task": 3}, _context())
