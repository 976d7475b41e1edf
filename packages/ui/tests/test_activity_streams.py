"""A tool call's activity in both protocols' streams, read by their own clients in
node (U14): the AI SDK's chat client folds `data-activity` parts (one per call, the
latest replacing the earlier) into the assistant message, and AG-UI's HttpAgent
verifies the ACTIVITY_SNAPSHOT events and keeps an activity message per call; a
durable thread's stream shows the activity while the call runs, then as committed.
The text is the sanitized text the tool gave (terminal escapes removed), as data."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from automata_wire_testing import serving
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from automata.core import Agent, ModelRequest, ToolContext, tool
from automata.core.testing import FunctionProvider, Reply, ScriptedProvider, tool_call, tool_calls
from automata.threads import AgentRequest, ThreadService
from automata.ui import agui_stream, agui_thread_stream, ui_message_stream, ui_message_thread_stream

from ._node import run_client
from ._threads import served_thread

MARKUP = "<img src=x onerror=alert(1)>"


async def fetch(url: str, context: ToolContext) -> str:
    """Fetch a page."""
    context.activity.label(f"Fetching {url}")
    await asyncio.sleep(0.4)  # much longer than a thread's live interval: a view shows this
    context.activity.row("\x1b[31mconnected\x1b[0m")
    context.activity.row(MARKUP, kind="markdown")
    context.activity.status("200")
    await asyncio.sleep(0.15)
    return "page"


def agent() -> Agent[Any]:
    provider = ScriptedProvider([tool_calls(tool_call("c1", "fetch", url="a.test")), "done"])
    return Agent(provider, tools=[tool(fetch, name="fetch")])


FINAL = {
    "callId": "c1",
    "toolName": "fetch",
    "label": "Fetching a.test",
    "rows": [
        {"text": "connected", "kind": "text"},
        {"text": MARKUP, "kind": "markdown"},
    ],
    "status": "200",
    "dropped": 0,
}


def activity_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [part for part in message["parts"] if part["type"] == "data-activity"]


def assert_ai_sdk_read(read: dict[str, Any]) -> None:
    assert read["errors"] == []
    (messages,) = read["rounds"]
    (part,) = activity_parts(messages[1])
    assert part["id"] == "c1"
    assert part["data"] == FINAL
    streamed = [p["data"] for p in read["data"] if p["type"] == "data-activity"]
    assert streamed[0]["label"] == "Fetching a.test"
    assert streamed[0]["rows"] == []
    assert streamed[-1] == FINAL


def assert_ag_ui_read(read: dict[str, Any]) -> None:
    assert read["error"] is None
    (run,) = read["runs"]
    snapshots = [e for e in run["events"] if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert {e["messageId"] for e in snapshots} == {"activity-c1"}
    assert {e["activityType"] for e in snapshots} == {"automata.tool_activity"}
    assert snapshots[0]["content"]["rows"] == []
    assert snapshots[-1]["content"] == FINAL
    shown = [m for m in run["messages"] if m["role"] == "activity"]
    assert [m["content"] for m in shown] == [FINAL]


async def test_an_agent_runs_activity_reads_as_data_parts_in_the_ai_sdk() -> None:
    """U14: a run's `data-activity` parts, the latest kept per call."""

    async def chat(request: Request) -> Response:
        return ui_message_stream(agent(), request)

    app = Starlette(routes=[Route("/api/chat", chat, methods=["POST"])])
    async with serving(app) as client:
        read = await run_client("ai_sdk_chat.mjs", f"{client.base_url}/api/chat", "fetch")
    assert_ai_sdk_read(read)


async def test_an_agent_runs_activity_reads_as_activity_snapshots_in_ag_ui() -> None:
    """U14: a run's ACTIVITY_SNAPSHOTs, verified by HttpAgent."""

    async def run(request: Request) -> Response:
        return agui_stream(agent(), request)

    app = Starlette(routes=[Route("/api/agent", run, methods=["POST"])])
    async with serving(app) as client:
        read = await run_client("ag_ui_run.mjs", f"{client.base_url}/api/agent", "fetch")
    assert_ag_ui_read(read)


def thread_agent(request: AgentRequest) -> Agent[Any]:
    return agent()


async def test_a_threads_running_call_shows_its_activity_in_the_ai_sdk(tmp_path: Path) -> None:
    """U14: the running call's label first, then the committed activity."""

    def chat(service: ThreadService, request: Request) -> Response:
        return ui_message_thread_stream(service, request.path_params["thread_id"], request)

    route = "/threads/{thread_id}/chat"
    async with served_thread(tmp_path, thread_agent, route, chat) as (url, _, _service):
        read = await run_client("ai_sdk_chat.mjs", url, "fetch")
    assert_ai_sdk_read(read)


async def test_a_threads_running_call_shows_its_activity_in_ag_ui(tmp_path: Path) -> None:
    """U14: as in the AI SDK, through the thread's AG-UI stream."""

    def run(service: ThreadService, request: Request) -> Response:
        return agui_thread_stream(service, request, thread_id=request.path_params["thread_id"])

    route = "/threads/{thread_id}/agent"
    async with served_thread(tmp_path, thread_agent, route, run) as (url, tid, _service):
        read = await run_client("ag_ui_run.mjs", url, "fetch", "", "", tid)
    assert_ag_ui_read(read)


async def test_activity_sent_back_by_the_ai_sdk_never_reaches_the_model() -> None:
    """U14: the `data-activity` parts the client sends back with the conversation are
    display data: the next request's transcript holds none of their text."""
    seen: list[str] = []

    async def model(request: ModelRequest) -> Reply:
        seen.append(json.dumps([message.model_dump(mode="json") for message in request.messages]))
        if request.messages[-1].text == "fetch":
            return tool_calls(tool_call("c1", "fetch", url="a.test"))
        return "done"

    shown = Agent(FunctionProvider(model), tools=[tool(fetch, name="fetch")])

    async def chat(request: Request) -> Response:
        return ui_message_stream(shown, request)

    app = Starlette(routes=[Route("/api/chat", chat, methods=["POST"])])
    async with serving(app) as client:
        url = f"{client.base_url}/api/chat"
        read = await run_client("ai_sdk_chat.mjs", url, "fetch", "", "", "thanks")
    assert read["errors"] == []
    first, second = read["rounds"]
    assert activity_parts(first[1])
    assert activity_parts(second[1])  # the client kept it, and sent it back
    assert "thanks" in seen[-1]
    assert "Fetching a.test" not in seen[-1]
    assert "connected" not in seen[-1]
