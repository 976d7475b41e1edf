"""Servers built on the adapters are safe to copy: request bodies are read within a
bound and refused with typed errors (413, 400) before anything runs, a gated call
never runs without the front end's decision, and a client that does not read stops
the run instead of growing a queue without bound."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from automata_wire_testing import serving
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from automata.core import Agent, InvalidArgumentError, Message, TextBlock, tool
from automata.core.testing import ScriptedProvider
from automata.ui import StreamOverflowError, UILimits, agui_stream, ui_message_stream
from automata.ui._driver import Failed, drive
from automata.ui._run_plan import RunPlan

ran: list[str] = []


@tool
def send_email(to: str) -> str:
    """Send an email."""
    ran.append(to)
    return "sent"


def app(provider: ScriptedProvider, limits: UILimits | None = None) -> Starlette:
    agent = Agent(provider, tools=[send_email])

    async def chat(request: Request) -> Response:
        return ui_message_stream(agent, request, approval_required={"send_email"}, limits=limits)

    async def agui(request: Request) -> Response:
        return agui_stream(agent, request, approval_required={"send_email"}, limits=limits)

    return Starlette(
        routes=[Route("/chat", chat, methods=["POST"]), Route("/agui", agui, methods=["POST"])]
    )


def user(text: str) -> dict[str, Any]:
    return {"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}


async def test_a_ui_message_stream_carries_the_protocol_header_and_ends_with_done() -> None:
    """U1, U2."""
    async with serving(app(ScriptedProvider(["hi"]))) as client:
        response = await client.post("/chat", json={"id": "c", "messages": [user("hi")]})
    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.text.endswith("data: [DONE]\n\n")


@pytest.mark.parametrize("route", ["/chat", "/agui"])
async def test_a_body_over_the_bound_is_refused_with_413_and_runs_nothing(route: str) -> None:
    """U12."""
    provider = ScriptedProvider(["never"])
    limits = UILimits(max_body_bytes=1000)
    async with serving(app(provider, limits)) as client:
        declared = await client.post(route, content=b"{" + b" " * 2000 + b"}")

        async def chunks() -> Any:  # no Content-Length: refused while it is read
            for _ in range(10):
                yield b" " * 500

        streamed = await client.post(route, content=chunks())
    for response in (declared, streamed):
        assert response.status_code == 413
        assert response.json()["error"] == "RequestBodyTooLargeError"
    assert provider.requests == []


@pytest.mark.parametrize(
    ("route", "body", "says"),
    [
        ("/chat", b"not json", "not JSON"),
        ("/chat", b'{"messages": NaN}', "NaN"),
        ("/chat", b"[]", "JSON object"),
        ("/chat", b'{"messages": []}', "messages must be a non-empty array"),
        ("/chat", b'{"messages": [{"role": "system", "parts": []}]}', "messages[0].role"),
        ("/chat", b'{"messages": [{"role": "user", "parts": "hi"}]}', "messages[0].parts"),
        ("/chat", b'{"messages": ' + b"[" * 40 + b"]" * 40 + b"}", "nested deeper"),
        ("/agui", b'{"threadId": "t"}', "not a RunAgentInput"),
    ],
)
async def test_a_malformed_body_is_refused_with_400_naming_the_problem(
    route: str, body: bytes, says: str
) -> None:
    """U4, U8, U12."""
    provider = ScriptedProvider(["never"])
    async with serving(app(provider)) as client:
        response = await client.post(route, content=body)
    assert response.status_code == 400
    assert response.json()["error"] == "InvalidRequestBodyError"
    assert says in response.json()["detail"]
    assert provider.requests == []


async def test_continuing_a_gated_call_without_a_decision_is_refused_and_runs_nothing() -> None:
    """U5."""
    ran.clear()
    waiting = {
        "id": "a1",
        "role": "assistant",
        "parts": [
            {"type": "step-start"},
            {
                "type": "tool-send_email",
                "toolCallId": "c1",
                "state": "approval-requested",
                "input": {"to": "bob"},
                "approval": {"id": "approval-c1"},
            },
        ],
    }
    provider = ScriptedProvider(["never"])
    async with serving(app(provider)) as client:
        response = await client.post("/chat", json={"messages": [user("email bob"), waiting]})
    assert response.status_code == 400
    assert "waits for an approval" in response.json()["detail"]
    assert ran == []
    assert provider.requests == []


async def test_a_client_that_does_not_read_stops_the_run_at_the_queue_bound() -> None:
    """U13."""
    many = Message.assistant([TextBlock(text=f"part {n} ") for n in range(50)])
    agent = Agent(ScriptedProvider([many]))
    items = drive(
        agent,
        RunPlan((), "go"),
        approval_required=(),
        client_tools=(),
        max_queued_events=4,
    )
    await anext(items)  # the run starts; the reader then stops reading
    await asyncio.sleep(0.2)
    rest = [item async for item in items]
    assert isinstance(rest[-1], Failed)
    assert isinstance(rest[-1].error, StreamOverflowError)
    assert len(rest) < 10


def test_limits_must_be_positive() -> None:
    """U12: the bounds themselves are checked."""
    with pytest.raises(InvalidArgumentError, match="max_body_bytes"):
        UILimits(max_body_bytes=0)
