"""Replaying recorded histories, approvals as signals, and cancellation from the client."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio import workflow
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import CancelledError
from temporalio.worker import Replayer

from automata.core import Agent, Message, ToolPolicy, load_messages, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results
from automata.temporal import (
    WORKFLOW_NAME,
    AgentRegistry,
    AgentRunRequest,
    Decision,
    RecordedEvent,
    TemporalAgent,
    agent_replayer,
    agent_worker,
    start_agent_run,
)
from automata.temporal.testing import SkipTime


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def adder() -> Agent:
    return Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "add", a=1, b=2)), "three"]), tools=[add]
    )


@workflow.defn(name=WORKFLOW_NAME, sandboxed=False)
class DriftedWorkflow:
    """The agent workflow's name with other code: it schedules a different activity."""

    @workflow.run
    async def run(self, request: AgentRunRequest) -> str:
        done = await workflow.execute_activity(
            "something.else", request.agent, start_to_close_timeout=timedelta(seconds=1)
        )
        return str(done)


async def finished_run(client: Client, fresh: Callable[[str], str]) -> WorkflowHandle[Any, Any]:
    queue = fresh("q")
    async with agent_worker(client, AgentRegistry({"adder": adder}), task_queue=queue):
        handle = await start_agent_run(client, "adder", "1+2", id=fresh("run"), task_queue=queue)
        await handle.result()
    return handle


async def test_a_recorded_history_replays_in_the_sandbox(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP2: a finished run's history replays with the SDK's `Replayer` (`agent_replayer`:
    the agent workflow, sandboxed, with the registry): the workflow code, the core loop
    included, is deterministic."""
    handle = await finished_run(client, fresh)
    history = await handle.fetch_history()
    replayed = await agent_replayer(AgentRegistry({"adder": adder})).replay_workflow(history)
    assert replayed.replay_failure is None


async def test_replaying_with_different_workflow_code_fails(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP2: the replay check can fail: code that schedules other activities than the
    history recorded is reported as nondeterministic."""
    handle = await finished_run(client, fresh)
    history = await handle.fetch_history()
    replayer = Replayer(workflows=[DriftedWorkflow])
    with pytest.raises(Exception, match=r"[Nn]ondetermin"):
        await replayer.replay_workflow(history)


def gated(provider_replies: list[Message | str]) -> TemporalAgent:
    @tool
    def send(to: str) -> str:
        """Send a message."""
        return f"sent to {to}"

    return TemporalAgent(
        lambda: Agent(ScriptedProvider(provider_replies), tools=[send]),
        approval_required=frozenset({"send"}),
    )


async def waiting_for(handle: WorkflowHandle[Any, Any], call_id: str) -> None:
    for _ in range(200):
        if await handle.query("pending_approvals") == [call_id]:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{call_id} never waited for approval")


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        (Decision("c1", approved=True), ("c1", "sent to bob", False)),
        (Decision("c1", approved=False, reason="not today"), ("c1", "denied: not today", True)),
    ],
)
async def test_a_gated_call_waits_in_the_workflow_for_a_decide_signal(
    client: Client,
    fresh: Callable[[str], str],
    decision: Decision,
    expected: tuple[str, str, bool],
) -> None:
    """TP9: a call to a tool in `approval_required` waits (no activity, no worker slot)
    until a `decide` signal arrives; approved it runs, denied it gets `denied: <reason>`."""
    replies: list[Message | str] = [tool_calls(tool_call("c1", "send", to="bob")), "done"]
    queue = fresh("q")
    async with agent_worker(client, AgentRegistry({"mailer": gated(replies)}), task_queue=queue):
        handle = await start_agent_run(
            client, "mailer", "mail bob", id=fresh("run"), task_queue=queue
        )
        await waiting_for(handle, "c1")
        await asyncio.sleep(1.0)  # a person takes their time (time skipping: see docs)
        assert load_messages(await handle.query("transcript", result_type=str))[-1].role == (
            "assistant"
        )
        await handle.signal("decide", decision)
        result = await handle.result()
        assert await handle.query("pending_approvals") == []
    assert tool_results(load_messages(result.transcript)) == [expected]


async def test_cancelling_a_run_from_the_client_cancels_its_running_tool(
    client: Client, fresh: Callable[[str], str], tmp_path: Path
) -> None:
    """TP10: `handle.cancel()` cancels the workflow; a running tool's activity is
    cancelled (its task sees `CancelledError`) before the run ends as cancelled."""

    started = asyncio.Event()

    @tool
    async def wait_forever() -> str:
        """Blocks until cancelled."""
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            (tmp_path / "cancelled").touch()
            raise
        return "never"

    agent = TemporalAgent(
        lambda: Agent(
            ScriptedProvider([tool_calls(tool_call("c1", "wait_forever"))]),
            tools=[wait_forever],
            tool_policy=ToolPolicy(timeout=60),
        ),
        heartbeat_timeout=0.5,
    )
    queue = fresh("q")
    async with agent_worker(client, AgentRegistry({"waiter": agent}), task_queue=queue):
        handle = await start_agent_run(client, "waiter", "wait", id=fresh("run"), task_queue=queue)
        await asyncio.wait_for(started.wait(), timeout=20)
        await handle.cancel()
        with pytest.raises(WorkflowFailureError) as failure:
            await handle.result()
    assert isinstance(failure.value.cause, CancelledError)
    assert (tmp_path / "cancelled").exists()


async def fast_forwarded(handle: WorkflowHandle[Any, Any], by: timedelta) -> None:
    """Waits until the server reports the run's clock `by` past its start."""
    for _ in range(200):
        described = (await handle.describe()).raw_description.workflow_extended_info
        now = described.time_skipping_info.current_time.ToDatetime()
        if now - described.original_start_time.ToDatetime() >= by:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the run's clock never moved {by} ahead: {described}")


async def test_an_approval_signalled_an_hour_of_workflow_time_later_lets_the_call_run(
    temporal_address: str, fresh: Callable[[str], str]
) -> None:
    """TP9: the wait holds nothing, so it may be long: started with the server's time
    skipping and an hour's fast-forward, the run's clock jumps an hour while the call
    waits; the approval then arrives and the call runs. The `events` query records how
    long the call waited, in workflow time."""
    skipping = await Client.connect(
        temporal_address, interceptors=[SkipTime(fast_forward=timedelta(hours=1))]
    )
    replies: list[Message | str] = [tool_calls(tool_call("c1", "send", to="bob")), "done"]
    queue = fresh("q")
    async with agent_worker(skipping, AgentRegistry({"mailer": gated(replies)}), task_queue=queue):
        handle = await start_agent_run(
            skipping, "mailer", "mail bob", id=fresh("run"), task_queue=queue
        )
        await waiting_for(handle, "c1")
        await fast_forwarded(handle, timedelta(hours=1))
        await handle.signal("decide", Decision("c1", approved=True))
        result = await handle.result()
        records = await handle.query("events", result_type=list[RecordedEvent])
    assert tool_results(load_messages(result.transcript)) == [("c1", "sent to bob", False)]
    (approval,) = [json.loads(r.data) for r in records if r.kind == "approval"]
    assert approval["approved"] is True
    # the clock jumped to an hour after the start; the call began waiting just after it
    assert 3600 - 30 < approval["waited"] < 3600 + 60
