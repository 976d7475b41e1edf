"""Building a worker that runs agents, and starting runs from a client."""

from __future__ import annotations

from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from automata.temporal._activities import AgentActivities
from automata.temporal._registry import AgentRegistry
from automata.temporal._types import AgentRunRequest, AgentRunResult
from automata.temporal._workflow import AgentWorkflow

__all__ = ["agent_worker", "sandbox_runner", "start_agent_run"]

PASSED_THROUGH = ("automata.core", "automata.temporal", "pydantic", "pydantic_core")
"""Modules the workflow sandbox shares with the worker instead of re-importing: the
transcript types and this package's own plain values (TP2)."""


def sandbox_runner() -> SandboxedWorkflowRunner:
    """The SDK's sandbox with its default restrictions, passing through only the
    modules in `PASSED_THROUGH`."""
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSED_THROUGH)
    return SandboxedWorkflowRunner(restrictions=restrictions)


def agent_worker(
    client: Client, registry: AgentRegistry, *, task_queue: str, **options: Any
) -> Worker:
    """A worker on `task_queue` running the agent workflow (sandboxed) and the activities
    of `registry`'s agents. `options` go to `Worker` as they are."""
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[AgentWorkflow],
        activities=AgentActivities(registry).activities,
        workflow_runner=sandbox_runner(),
        **options,
    )


async def start_agent_run(
    client: Client,
    agent: str,
    task: str,
    *,
    id: str,
    task_queue: str,
    transcript: str | None = None,
) -> WorkflowHandle[AgentWorkflow, AgentRunResult]:
    """Start a run of the agent registered as `agent` on `task`, as workflow `id`; the
    handle's `result()` is the `AgentRunResult`."""
    return await client.start_workflow(
        AgentWorkflow.run,
        AgentRunRequest(agent, task, transcript),
        id=id,
        task_queue=task_queue,
    )
