"""A durable thread served as the AI SDK's UI message stream, read by the AI SDK's own
chat client in node: the front end's approve or deny resumes the durable turn."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from automata.core import Agent
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import AgentRequest, ThreadService, ask_user_tool
from automata.threads._agents import AgentFactory
from automata.ui import ui_message_thread_stream

from ._node import run_client
from ._threads import approving, sent, served_thread
from .test_ai_sdk_client import parts


def chat(service: ThreadService, request: Request) -> Response:
    return ui_message_thread_stream(service, request.path_params["thread_id"], request)


@asynccontextmanager
async def thread_chat(
    path: Path, provider: ScriptedProvider, factory: AgentFactory | None = None
) -> AsyncIterator[tuple[str, ThreadService]]:
    chosen = factory or approving(provider)
    async with served_thread(path, chosen, "/threads/{thread_id}/chat", chat) as (url, _, service):
        yield url, service


async def test_a_thread_turn_streams_as_an_assistant_message(tmp_path: Path) -> None:
    """U7."""
    async with thread_chat(tmp_path, ScriptedProvider(["Hello from the journal."])) as (url, _):
        read = await run_client("ai_sdk_chat.mjs", url, "hi")
    assert read["errors"] == []
    (messages,) = read["rounds"]
    assert parts(messages[1]) == [("step-start",), ("text", "Hello from the journal.")]
    assert {"type": "data-thread", "data": {"threadId": url.split("/")[-2]}} in [
        {key: part[key] for key in ("type", "data")} for part in read["data"]
    ]


async def test_approving_in_the_front_end_resumes_the_durable_turn(tmp_path: Path) -> None:
    """U7."""
    sent.clear()
    provider = ScriptedProvider([tool_calls(tool_call("c1", "send_email", to="bob")), "Sent it."])
    async with thread_chat(tmp_path, provider) as (url, service):
        read = await run_client("ai_sdk_chat.mjs", url, "email bob", "approve")
        view = await service.view(url.split("/")[-2])
    assert read["errors"] == []
    asked, answered = read["rounds"]
    assert parts(asked[1]) == [("step-start",), ("tool-send_email", "approval-requested")]
    assert parts(answered[1]) == [
        ("step-start",),
        ("tool-send_email", "output-available"),
        ("step-start",),
        ("text", "Sent it."),
    ]
    assert sent == ["bob"]
    assert view.status == "done"
    assert [item.kind for item in view.items] == ["user", "tool_call", "interaction", "assistant"]


async def test_denying_in_the_front_end_answers_the_durable_turn_denied(tmp_path: Path) -> None:
    """U7."""
    sent.clear()
    provider = ScriptedProvider([tool_calls(tool_call("c1", "send_email", to="bob")), "Not sent."])
    async with thread_chat(tmp_path, provider) as (url, service):
        read = await run_client("ai_sdk_chat.mjs", url, "email bob", "deny")
        view = await service.view(url.split("/")[-2])
    assert read["errors"] == []
    _, answered = read["rounds"]
    assert parts(answered[1])[1] == ("tool-send_email", "output-denied")
    assert parts(answered[1])[-1] == ("text", "Not sent.")
    assert sent == []
    call = next(item for item in view.items if item.kind == "tool_call")
    assert call.result == "denied: not now"


async def test_a_question_is_a_data_part_and_the_next_user_message_answers_it(
    tmp_path: Path,
) -> None:
    """U7: ask_user parks the turn; the text typed next is the answer, not a new turn."""
    provider = ScriptedProvider(
        [tool_calls(tool_call("q1", "ask_user", question="Which city?")), "Oslo it is."]
    )

    def choose_agent(request: AgentRequest) -> Agent[Any]:
        return Agent(provider, tools=[ask_user_tool()])

    async with thread_chat(tmp_path, provider, choose_agent) as (url, service):
        read = await run_client("ai_sdk_chat.mjs", url, "plan a trip", "", "", "Oslo")
        view = await service.view(url.split("/")[-2])
    assert read["errors"] == []
    questions = [part for part in read["data"] if part["type"] == "data-question"]
    assert [part["data"]["question"] for part in questions] == ["Which city?"]
    _, answered = read["rounds"]
    assert [m["role"] for m in answered] == ["user", "assistant", "user", "assistant"]
    assert parts(answered[3]) == [("step-start",), ("text", "Oslo it is.")]
    assert view.status == "done"
    assert [item.kind for item in view.items] == ["user", "tool_call", "interaction", "assistant"]
    assert next(item for item in view.items if item.kind == "tool_call").result == "Oslo"
