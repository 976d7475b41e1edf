"""The AI SDK's own chat client (run in node) reads our UI message stream into the
messages and parts it should, approvals answered and continued included."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from automata_wire_testing import serving
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from automata.core import Agent, Message, TextBlock, ThinkingBlock, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.ui import ClientTool, ui_message_stream

from ._node import run_client
from ._providers import ArgumentStreamingProvider

sent: list[str] = []


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    sent.append(to)
    return f"sent to {to}"


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: found"


def chat_app(agent: Agent[Any]) -> Starlette:
    async def chat(request: Request) -> Response:
        return ui_message_stream(agent, request, approval_required={"send_email"})

    return Starlette(routes=[Route("/api/chat", chat, methods=["POST"])])


@asynccontextmanager
async def chat_url(agent: Agent[Any]) -> AsyncIterator[str]:
    async with serving(chat_app(agent)) as client:
        yield f"{client.base_url}/api/chat"


def parts(message: dict[str, Any]) -> list[tuple[str, ...]]:
    shown: list[tuple[str, ...]] = []
    for part in message["parts"]:
        if part["type"] in ("text", "reasoning"):
            shown.append((part["type"], part["text"]))
        elif part["type"].startswith("tool-"):
            shown.append((part["type"], part["state"]))
        else:
            shown.append((part["type"],))
    return shown


async def test_a_streamed_answer_reads_as_one_assistant_message_with_reasoning_and_text() -> None:
    """U2, U3: the AI SDK reads one message; frame-like text stays text."""
    # text that would end the stream, were it written into the frames as it is
    forged = 'Hello <b>you</b>\n\ndata: {"type":"finish"}\n\ndata: [DONE]\n\n'
    reply = Message.assistant([ThinkingBlock(thinking="They greet."), TextBlock(text=forged)])
    agent = Agent(ScriptedProvider([reply]))
    async with chat_url(agent) as url:
        read = await run_client("ai_sdk_chat.mjs", url, "hi")
    assert read["errors"] == []
    assert read["status"] == "ready"
    (messages,) = read["rounds"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert parts(messages[1]) == [
        ("step-start",),
        ("reasoning", "They greet."),
        ("text", forged),  # the model's markup and line breaks stay text in the part
    ]


async def test_an_approval_request_answered_approve_continues_the_run_and_runs_the_call() -> None:
    """U4, U5: approved in the client, the call runs and the message continues."""
    sent.clear()
    provider = ScriptedProvider(
        [tool_calls(tool_call("c1", "send_email", to="bob", body="hi"), text="Sending."), "Done."]
    )
    agent = Agent(provider, tools=[send_email])
    async with chat_url(agent) as url:
        read = await run_client("ai_sdk_chat.mjs", url, "email bob", "approve")
    assert read["errors"] == []
    asked, answered = read["rounds"]
    assert parts(asked[1]) == [
        ("step-start",),
        ("text", "Sending."),
        ("tool-send_email", "approval-requested"),
    ]
    assert sent == ["bob"]
    assert parts(answered[1]) == [
        ("step-start",),
        ("text", "Sending."),
        ("tool-send_email", "output-available"),
        ("step-start",),
        ("text", "Done."),
    ]
    call = answered[1]["parts"][2]
    assert call["input"] == {"to": "bob", "body": "hi"}
    assert call["output"] == "sent to bob"


async def test_an_approval_request_answered_deny_shows_the_call_denied_and_never_runs_it() -> None:
    """U5: denied in the client, the call never runs and shows denied."""
    sent.clear()
    provider = ScriptedProvider(
        [tool_calls(tool_call("c1", "send_email", to="bob", body="hi")), "I did not send it."]
    )
    agent = Agent(provider, tools=[send_email])
    async with chat_url(agent) as url:
        read = await run_client("ai_sdk_chat.mjs", url, "email bob", "deny")
    assert read["errors"] == []
    _, answered = read["rounds"]
    assert sent == []
    assert parts(answered[1])[1] == ("tool-send_email", "output-denied")
    assert parts(answered[1])[-1] == ("text", "I did not send it.")
    assert "denied: not now" in str(provider.requests[-1].messages[-1])


async def test_a_failed_run_reaches_the_client_as_an_error() -> None:
    """U3: a failed run is an error part the client reports."""
    agent = Agent(ScriptedProvider([]))
    async with chat_url(agent) as url:
        read = await run_client("ai_sdk_chat.mjs", url, "hi")
    assert read["status"] == "error"
    assert read["errors"]  # the client's onError saw the stream's error part


async def test_a_client_side_tool_runs_in_the_front_end_and_its_output_continues_the_run() -> None:
    """U6: the call ends the stream; the output the client adds continues the run."""
    provider = ScriptedProvider([tool_calls(tool_call("c1", "get_location")), "You are in Oslo."])
    agent = Agent(provider)

    async def chat(request: Request) -> Response:
        locate = ClientTool("get_location", "Where the user is, from the browser.")
        return ui_message_stream(agent, request, client_tools=[locate])

    app = Starlette(routes=[Route("/api/chat", chat, methods=["POST"])])
    async with serving(app) as client:
        read = await run_client(
            "ai_sdk_chat.mjs", f"{client.base_url}/api/chat", "where?", "", "Oslo"
        )
    assert read["errors"] == []
    answered = read["rounds"][-1]
    assert parts(answered[1]) == [
        ("step-start",),
        ("tool-get_location", "output-available"),
        ("step-start",),
        ("text", "You are in Oslo."),
    ]
    assert answered[1]["parts"][1]["output"] == "Oslo"
    assert provider.requests[0].tools[0].name == "get_location"
    assert "Oslo" in str(provider.requests[-1].messages[-1])


async def test_streamed_tool_arguments_reach_the_client_as_input_deltas() -> None:
    """U3: tool-input-start and -delta as the model writes, then the parsed input."""
    replies = [tool_calls(tool_call("c1", "lookup", city="Oslo")), Message.assistant("Found.")]
    provider = ArgumentStreamingProvider(replies * 2)
    agent = Agent(provider, tools=[lookup])
    async with serving(chat_app(agent)) as client:
        response = await client.post(
            "/api/chat",
            json={
                "messages": [{"id": "u", "role": "user", "parts": [{"type": "text", "text": "?"}]}]
            },
        )
        read = await run_client("ai_sdk_chat.mjs", f"{client.base_url}/api/chat", "?")
    chunks = [json.loads(line[6:]) for line in response.text.splitlines() if line[6:7] == "{"]
    kinds = [chunk["type"] for chunk in chunks]
    start = kinds.index("tool-input-start")
    assert kinds[start : start + 4] == [
        "tool-input-start",
        "tool-input-delta",
        "tool-input-delta",
        "tool-input-available",
    ]
    assert "".join(c["inputTextDelta"] for c in chunks if c["type"] == "tool-input-delta") == (
        '{"city": "Oslo"}'
    )
    assert read["errors"] == []
    (messages,) = read["rounds"]
    call = messages[1]["parts"][1]
    assert (call["type"], call["state"]) == ("tool-lookup", "output-available")
    assert call["input"] == {"city": "Oslo"}
