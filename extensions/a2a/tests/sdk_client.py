"""The SDK's own client, as the tests use it against a server process."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from a2a.client import Client, ClientConfig, create_client
from a2a.types import Message, Part, Role, SendMessageRequest, StreamResponse, TaskState


@asynccontextmanager
async def sdk_client(url: str, *, streaming: bool = True) -> AsyncIterator[Client]:
    async with httpx.AsyncClient(timeout=30) as http:
        client = await create_client(url, ClientConfig(streaming=streaming, httpx_client=http))
        async with client:
            yield client


def request(text: str, *, task_id: str = "", context_id: str = "") -> SendMessageRequest:
    message = Message(
        role=Role.ROLE_USER,
        message_id=uuid.uuid4().hex,
        parts=[Part(text=text)],
        task_id=task_id,
        context_id=context_id,
    )
    return SendMessageRequest(message=message)


async def collect(client: Client, text: str, **ids: str) -> list[StreamResponse]:
    return [event async for event in client.send_message(request(text, **ids))]


def states(events: list[StreamResponse]) -> list[str]:
    """The task states the events went through, in order (`submitted`, `working`...)."""
    seen: list[str] = []
    for event in events:
        if event.HasField("task"):
            seen.append(_name(event.task.status.state))
        elif event.HasField("status_update"):
            seen.append(_name(event.status_update.status.state))
    return seen


def deltas(events: list[StreamResponse]) -> list[tuple[str, bool]]:
    """Each artifact update's text and whether it appends."""
    return [
        ("".join(p.text for p in e.artifact_update.artifact.parts), e.artifact_update.append)
        for e in events
        if e.HasField("artifact_update")
    ]


def _name(state: TaskState) -> str:
    return TaskState.Name(state).removeprefix("TASK_STATE_").lower()
