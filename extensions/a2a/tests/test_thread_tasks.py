"""A durable thread service served by `ThreadTaskExecutor` in a uvicorn process on a
real SQLite file, driven by the SDK's own client: a task is a turn, input-required
is the turn's pending approval or question, answered by the next message on the task,
even after the server process is killed and started again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from a2a.types import CancelTaskRequest, GetTaskRequest, TaskState
from google.protobuf.json_format import MessageToDict

from automata.a2a import METADATA_KEY

from .processes import ServerProcess, running, start
from .sdk_client import collect, deltas, sdk_client, states

pytestmark = pytest.mark.timeout(120)  # a server process starts slowly on a loaded machine


@pytest.fixture(scope="module")
def durable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running("threads", str(tmp_path_factory.mktemp("a2a") / "threads.db")) as server:
        yield server


async def test_an_approval_waits_across_a_killed_server_and_the_answer_resumes_the_turn(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "threads.db")
    first = start("threads", db)
    try:
        async with sdk_client(first.url) as client:
            events = await collect(client, "charge me")
        assert states(events) == ["submitted", "working", "input_required"]
        status = events[-1].status_update
        details = MessageToDict(status.status.message.metadata)[METADATA_KEY]
        assert (details["kind"], details["tool"], details["input"]) == (
            "approval",
            "charge",
            {"amount": 5},
        )
        port = int(first.url.rsplit(":", 1)[1].strip("/"))
    finally:
        first.kill()
    second = start("threads", db, port=port)
    try:
        async with sdk_client(second.url) as client:
            answered = await collect(
                client, "yes", task_id=status.task_id, context_id=status.context_id
            )
            stored = await client.get_task(GetTaskRequest(id=status.task_id))
    finally:
        second.stop()
    assert states(answered)[-1] == "completed"
    assert deltas(answered)[-1][0] == "The tool said: charged 5"
    assert stored.status.state == TaskState.TASK_STATE_COMPLETED
    assert [p.text for p in stored.artifacts[0].parts] == ["The tool said: charged 5"]


async def test_a_question_is_input_required_and_the_next_message_is_its_answer(
    durable: ServerProcess,
) -> None:
    async with sdk_client(durable.url) as client:
        events = await collect(client, "paint it")
        status = events[-1].status_update
        assert states(events)[-1] == "input_required"
        assert status.status.message.parts[0].text == "Which colour?"
        kind = MessageToDict(status.status.message.metadata)[METADATA_KEY]["kind"]
        assert kind == "question"
        answered = await collect(
            client, "blue", task_id=status.task_id, context_id=status.context_id
        )
    assert deltas(answered)[-1][0] == "You chose blue."


async def test_a_second_task_in_a_context_is_the_next_turn_of_the_same_thread(
    durable: ServerProcess,
) -> None:
    async with sdk_client(durable.url) as client:
        one = (await collect(client, "paint it"))[-1].status_update
        await collect(client, "red", task_id=one.task_id, context_id=one.context_id)
        two = (await collect(client, "again", context_id=one.context_id))[-1].status_update
        assert two.task_id != one.task_id
        assert two.context_id == one.context_id
        ids = MessageToDict(two.status.message.metadata)[METADATA_KEY]
        first_ids = MessageToDict(one.status.message.metadata)[METADATA_KEY]
    assert ids["thread_id"] == first_ids["thread_id"]
    assert ids["turn_id"] != first_ids["turn_id"]


async def test_cancel_cancels_the_waiting_turn(durable: ServerProcess) -> None:
    async with sdk_client(durable.url) as client:
        status = (await collect(client, "charge me"))[-1].status_update
        cancelled = await client.cancel_task(CancelTaskRequest(id=status.task_id))
        assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
        again = await collect(client, "charge me", context_id=status.context_id)
    assert states(again)[-1] == "input_required"  # the thread took the next turn
