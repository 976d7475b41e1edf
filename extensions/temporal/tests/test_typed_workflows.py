"""TP14: typed workflows (`automata.workflow`) on Temporal, each activation an activity,
through a real dev server, worker and client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Replayer

from automata.temporal import PASSED_THROUGH, sandbox_runner
from automata.temporal.typed import (
    NODE_CALL,
    TypedWorkflowRun,
    TypedWorkflows,
    start_typed_workflow,
    typed_output,
    typed_workflow_worker,
)
from automata.workflow import CompiledWorkflow, NodeContext, Workflow


@dataclass
class Ticket:
    text: str
    urgent: bool


@dataclass
class Report:
    title: str
    words: int


def support_workflow(ran: list[str]) -> CompiledWorkflow[str, str]:
    """triage routes a `Ticket` on; it fans out to `title` and `report`, whose join
    `merge` is the exit. An urgent ticket routes to `page` (an exit) instead."""
    wf = Workflow[str, str]("support")

    @wf.node
    async def triage(text: str, context: NodeContext) -> Ticket:
        ran.append(f"triage:{context.idempotency_key.split('/')[-1]}")
        return Ticket(text, urgent=text.startswith("!"))

    @wf.node
    async def title(ticket: Ticket) -> str:
        ran.append("title")
        return ticket.text.title()

    @wf.node
    async def report(ticket: Ticket) -> Report:
        ran.append("report")
        return Report(title=ticket.text, words=len(ticket.text.split()))

    @wf.join(title, report)
    async def merge(parts: tuple[str, Report]) -> str:
        heading, body = parts
        ran.append("merge")
        return f"{heading}: {body.words} words"

    @wf.node
    async def page(ticket: Ticket) -> str:
        ran.append("page")
        return f"paged: {ticket.text}"

    wf.entry(triage)
    wf.edge(triage, page, when=lambda t: t.urgent)
    wf.fan_out(triage, [title, report])
    wf.exit(merge)
    wf.exit(page)
    return wf.compile()


async def test_a_typed_workflow_runs_each_activation_as_an_activity(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP14: the graph is walked in the workflow (fan-out, join), each activation an
    activity of the node; the result is the exit's output, typed again by
    `typed_output`, and the history has one `automata.node_call` per activation and
    replays in the sandbox (TP2)."""
    ran: list[str] = []
    compiled = support_workflow(ran)
    workflows = TypedWorkflows({"support": compiled})
    queue = fresh("q")
    async with typed_workflow_worker(client, workflows, task_queue=queue):
        handle = await start_typed_workflow(
            client, "support", compiled, "the quick fox", id=fresh("wf"), task_queue=queue
        )
        result = await handle.result()
        history = await handle.fetch_history()
    replayer = Replayer(
        workflows=[TypedWorkflowRun],
        workflow_runner=sandbox_runner(),
        interceptors=[workflows.interceptor()],
    )
    assert (await replayer.replay_workflow(history)).replay_failure is None
    scheduled = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    ]
    assert typed_output(compiled, result) == "The Quick Fox: 3 words"
    assert (result.exit, result.activations) == ("merge", 4)
    assert scheduled == [NODE_CALL] * 4
    assert ran[0] == "triage:a1"
    assert sorted(ran[1:3]) == ["report", "title"]
    assert ran[3] == "merge"
    assert "automata.workflow" in PASSED_THROUGH


async def test_an_edge_predicate_chooses_the_exit_and_the_run_ends_there(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP14: edges fire in wiring order when their predicate holds; the first exit to
    finish ends the run with its output (W4)."""
    ran: list[str] = []
    compiled = support_workflow(ran)
    queue = fresh("q")
    async with typed_workflow_worker(
        client, TypedWorkflows({"support": compiled}), task_queue=queue
    ):
        handle = await start_typed_workflow(
            client, "support", compiled, "!fire", id=fresh("wf"), task_queue=queue
        )
        result = await handle.result()
    assert typed_output(compiled, result) == "paged: !fire"
    assert result.exit == "page"


async def test_a_node_that_raises_fails_the_run_without_retry(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP14: a node's exception is not retried: the run fails naming the node."""
    attempts: list[int] = []
    wf = Workflow[str, str]("broken")

    @wf.node
    async def boom(text: str, context: NodeContext) -> str:
        attempts.append(context.attempt)
        raise ValueError(f"cannot handle {text}")

    wf.entry(boom)
    wf.exit(boom)
    compiled = wf.compile()
    queue = fresh("q")
    async with typed_workflow_worker(
        client, TypedWorkflows({"broken": compiled}), task_queue=queue
    ):
        handle = await start_typed_workflow(
            client, "broken", compiled, "x", id=fresh("wf"), task_queue=queue
        )
        with pytest.raises(WorkflowFailureError) as failure:
            await handle.result()
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.message == "node 'boom' failed: ValueError: cannot handle x"
    assert attempts == [1]
