"""An automata agent served by `a2a_app` in a uvicorn process, driven by the SDK's own
client: send and stream, task states, input-required approvals and cancel."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import cast

import pytest
from a2a.types import CancelTaskRequest, GetTaskRequest, StreamResponse, TaskState
from google.protobuf.json_format import MessageToDict

from automata.a2a import METADATA_KEY

from .processes import ServerProcess
from .sdk_client import collect, deltas, request, sdk_client, states

pytestmark = pytest.mark.timeout(120)  # a server process starts slowly on a loaded machine


@pytest.fixture
def echo(agents: ServerProcess) -> str:
    return agents.url + "echo/"


@pytest.fixture
def approval(agents: ServerProcess) -> str:
    return agents.url + "approval/"


async def test_a_streamed_task_goes_submitted_working_completed_and_streams_its_answer(
    echo: str,
) -> None:
    async with sdk_client(echo) as client:
        events = await collect(client, "hi")
    assert states(events) == ["submitted", "working", "completed"]
    assert deltas(events) == [("You said: ", False), ("hi", True), ("You said: hi", False)]
    assert events[-2].artifact_update.last_chunk


async def test_a_sent_message_returns_the_completed_task_holding_the_whole_answer(
    echo: str,
) -> None:
    async with sdk_client(echo, streaming=False) as client:
        events = await collect(client, "hello there")
        (only,) = events
        task = only.task
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert [a.name for a in task.artifacts] == ["answer"]
        assert [p.text for p in task.artifacts[0].parts] == ["You said: hello there"]
        stored = await client.get_task(GetTaskRequest(id=task.id))
    assert stored.status.state == TaskState.TASK_STATE_COMPLETED
    assert stored.history[0].parts[0].text == "hello there"


async def test_a_run_that_fails_ends_its_task_failed_with_the_reason(
    agents: ServerProcess,
) -> None:
    async with sdk_client(agents.url + "failing/") as client:
        events = await collect(client, "anything")
    assert states(events)[-1] == "failed"
    reason = events[-1].status_update.status.message.parts[0].text
    assert "the model is down" in reason


async def test_a_call_needing_approval_puts_the_task_in_input_required_and_yes_runs_it(
    approval: str,
) -> None:
    async with sdk_client(approval) as client:
        first = await collect(client, "charge me")
        assert states(first) == ["submitted", "working", "input_required"]
        status = first[-1].status_update
        asked = status.status.message
        assert "Approve the call to charge" in asked.parts[0].text
        details = MessageToDict(asked.metadata)[METADATA_KEY]
        assert details["kind"] == "approval"
        assert details["tool"] == "charge"
        assert details["input"] == {"amount": 5}
        second = await collect(client, "yes", task_id=status.task_id, context_id=status.context_id)
    assert states(second)[-1] == "completed"
    assert deltas(second)[-1][0] == "The tool said: charged 5"


async def test_any_other_answer_denies_the_call_and_the_model_sees_the_reason(
    approval: str,
) -> None:
    async with sdk_client(approval) as client:
        first = await collect(client, "charge me")
        status = first[-1].status_update
        second = await collect(
            client, "no, too much", task_id=status.task_id, context_id=status.context_id
        )
    assert states(second)[-1] == "completed"
    assert deltas(second)[-1][0] == "The tool said: denied: no, too much"


async def test_cancel_cancels_a_running_task(agents: ServerProcess) -> None:
    async with sdk_client(agents.url + "slow/") as client:
        stream = cast(AsyncGenerator[StreamResponse, None], client.send_message(request("wait")))
        task_id = ""
        async for event in stream:
            if event.HasField("artifact_update"):  # the run is in its tool call
                task_id = event.artifact_update.task_id
                break
        await stream.aclose()
        cancelled = await client.cancel_task(CancelTaskRequest(id=task_id))
        assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
        await asyncio.sleep(0.1)
        stored = await client.get_task(GetTaskRequest(id=task_id))
    assert stored.status.state == TaskState.TASK_STATE_CANCELED


async def test_cancel_ends_a_task_waiting_for_approval(approval: str) -> None:
    async with sdk_client(approval) as client:
        first = await collect(client, "charge me")
        task_id = first[-1].status_update.task_id
        cancelled = await client.cancel_task(CancelTaskRequest(id=task_id))
    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
