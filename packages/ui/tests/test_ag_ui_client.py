"""AG-UI events from an agent run: every event validates as the official
`ag-ui-protocol` type, and AG-UI's own client (`HttpAgent`, run in node, with its
event verification) reads them into the messages and state it should."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from ag_ui.core import Event, EventType, RunAgentInput, UserMessage
from automata_wire_testing import serving
from pydantic import TypeAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from automata.core import Agent, Message, TextBlock, ThinkingBlock, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.ui import agui_stream

from ._node import run_client

EVENTS: TypeAdapter[Event] = TypeAdapter(Event)
ran: list[str] = []


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    ran.append(city)
    return "sunny"


@tool
def delete_files(pattern: str) -> str:
    """Delete files."""
    ran.append(pattern)
    return "deleted"


def agui_app(agent: Agent[Any]) -> Starlette:
    async def run(request: Request) -> Response:
        return agui_stream(agent, request, approval_required={"delete_files"})

    return Starlette(routes=[Route("/agent", run, methods=["POST"])])


@asynccontextmanager
async def agent_url(agent: Agent[Any]) -> AsyncIterator[str]:
    async with serving(agui_app(agent)) as client:
        yield f"{client.base_url}/agent"


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


async def test_every_event_validates_as_the_official_ag_ui_type() -> None:
    """U8: the event sequence, each validated by the official types."""
    reply = Message.assistant([ThinkingBlock(thinking="hmm"), TextBlock(text="<script>x</script>")])
    agent = Agent(ScriptedProvider([tool_calls(tool_call("c1", "weather", city="Oslo")), reply]))
    body = RunAgentInput(
        thread_id="t1",
        run_id="r1",
        messages=[UserMessage(id="u1", content="weather?")],
        state={"theme": "dark"},
    ).model_dump(mode="json", by_alias=True, exclude_none=True)
    async with serving(agui_app(agent)) as client:
        response = await client.post("/agent", json=body)
    assert response.headers["content-type"].startswith("text/event-stream")
    frames = [
        line[len("data: ") :] for line in response.text.splitlines() if line.startswith("data: ")
    ]
    events = [EVENTS.validate_python(json.loads(frame)) for frame in frames]
    assert [event.type for event in events] == [
        EventType.RUN_STARTED,
        EventType.STATE_SNAPSHOT,
        EventType.STEP_STARTED,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_END,
        EventType.STEP_FINISHED,
        EventType.STEP_STARTED,
        EventType.TOOL_CALL_RESULT,
        EventType.STEP_FINISHED,
        EventType.STEP_STARTED,
        EventType.REASONING_START,
        EventType.REASONING_MESSAGE_START,
        EventType.REASONING_MESSAGE_CONTENT,
        EventType.REASONING_MESSAGE_END,
        EventType.REASONING_END,
        EventType.TEXT_MESSAGE_START,
        EventType.TEXT_MESSAGE_CONTENT,
        EventType.TEXT_MESSAGE_END,
        EventType.STEP_FINISHED,
        EventType.STATE_DELTA,
        EventType.RUN_FINISHED,
    ]


async def test_the_ag_ui_client_reads_the_run_into_messages_and_state() -> None:
    """U8: HttpAgent (with its verifyEvents) builds the messages and the state."""
    ran.clear()
    agent = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("c1", "weather", city="Oslo")), "Sunny <b>today</b>."]
        ),
        tools=[weather],
    )
    async with agent_url(agent) as url:
        read = await run_client("ag_ui_run.mjs", url, "weather in Oslo?")
    assert read["error"] is None
    (run,) = read["runs"]
    assert kinds(run["events"])[0] == "RUN_STARTED"
    assert kinds(run["events"])[-1] == "RUN_FINISHED"
    messages = run["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1]["toolCalls"][0]["function"] == {
        "name": "weather",
        "arguments": '{"city": "Oslo"}',
    }
    assert messages[2]["content"] == "sunny"
    assert messages[3]["content"] == "Sunny <b>today</b>."
    assert run["state"]["theme"] == "dark"
    assert run["state"]["usage"] == {
        "inputTokens": 0,
        "outputTokens": 0,
        "cacheReadTokens": 0,
        "cacheWriteTokens": 0,
    }
    assert ran == ["Oslo"]


async def test_a_client_side_tool_call_ends_the_run_and_its_result_continues_it() -> None:
    """U9."""
    provider = ScriptedProvider([tool_calls(tool_call("c1", "read_theme")), "Your theme is dark."])
    async with agent_url(Agent(provider)) as url:
        read = await run_client("ag_ui_run.mjs", url, "which theme?", "read_theme")
    assert read["error"] is None
    first, second = read["runs"]
    finished = first["events"][-1]
    assert finished["type"] == "RUN_FINISHED"
    assert finished["outcome"] == {"type": "success", "pendingToolCallIds": ["c1"]}
    assert "TOOL_CALL_RESULT" not in kinds(first["events"])
    assert second["messages"][-1]["content"] == "Your theme is dark."
    assert "dark mode is on" in str(provider.requests[-1].messages)


async def test_an_interrupt_for_approval_resumed_approved_runs_the_call() -> None:
    """U10."""
    ran.clear()
    provider = ScriptedProvider(
        [tool_calls(tool_call("c1", "delete_files", pattern="*.tmp")), "Deleted."]
    )
    async with agent_url(Agent(provider, tools=[delete_files])) as url:
        read = await run_client("ag_ui_run.mjs", url, "clean up", "", "approve")
    assert read["error"] is None
    first, second = read["runs"]
    outcome = first["events"][-1]["outcome"]
    assert outcome["type"] == "interrupt"
    assert outcome["interrupts"][0]["toolCallId"] == "c1"
    assert outcome["interrupts"][0]["reason"] == "tool_approval"
    assert ran == ["*.tmp"]
    assert second["messages"][-1]["content"] == "Deleted."


async def test_an_interrupt_for_approval_resumed_denied_never_runs_the_call() -> None:
    """U10."""
    ran.clear()
    provider = ScriptedProvider(
        [tool_calls(tool_call("c1", "delete_files", pattern="*")), "Kept them."]
    )
    async with agent_url(Agent(provider, tools=[delete_files])) as url:
        read = await run_client("ag_ui_run.mjs", url, "clean up", "", "deny")
    assert read["error"] is None
    _, second = read["runs"]
    assert ran == []
    result = next(e for e in second["events"] if e["type"] == "TOOL_CALL_RESULT")
    assert result["content"] == "denied: not now"
