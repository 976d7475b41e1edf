"""Building a worker (and a replayer) that runs agents, and starting runs from a client."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Interceptor, Replayer, Worker, WorkflowInterceptorClassInput
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from automata.temporal._activities import AgentActivities
from automata.temporal._registry import AgentRegistry
from automata.temporal._types import AgentRunRequest, AgentRunResult
from automata.temporal._wire import dump_deps
from automata.temporal._workflow import REGISTRY, AgentWorkflow

__all__ = [
    "PASSED_THROUGH",
    "RegistryInterceptor",
    "agent_replayer",
    "agent_worker",
    "sandbox_runner",
    "start_agent_run",
]

PASSED_THROUGH = (
    "automata.core",
    "automata.temporal",
    "automata.workflow",
    "pydantic",
    "pydantic_core",
)
"""Modules the workflow sandbox shares with the worker instead of re-importing: the
core loop and this package, whose workflow-side code is deterministic (TP2)."""


def sandbox_runner() -> SandboxedWorkflowRunner:
    """The SDK's sandbox with its default restrictions, passing through only the
    modules in `PASSED_THROUGH`."""
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSED_THROUGH)
    return SandboxedWorkflowRunner(restrictions=restrictions)


class RegistryInterceptor(Interceptor):
    """Hands the worker's `AgentRegistry` to its workflows (an extern function of the
    sandbox), so the workflow runs the registered agents' own loops."""

    def __init__(self, registry: AgentRegistry) -> None:
        self._registry = registry

    def workflow_interceptor_class(self, input: WorkflowInterceptorClassInput) -> None:
        registry = self._registry
        input.unsafe_extern_functions[REGISTRY] = lambda: registry
        return


def agent_worker(
    client: Client,
    registry: AgentRegistry,
    *,
    task_queue: str,
    workflows: Sequence[type] = (),
    activities: Sequence[Callable[..., Any]] = (),
    **options: Any,
) -> Worker:
    """A worker on `task_queue` running the agent workflow (sandboxed) and the activities
    of `registry`'s agents, plus any other `workflows` and `activities`. `options` go
    to `Worker` as they are (its `interceptors` after the registry's)."""
    interceptors = [RegistryInterceptor(registry), *options.pop("interceptors", ())]
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[AgentWorkflow, *workflows],
        activities=[*AgentActivities(registry).activities, *activities],
        workflow_runner=sandbox_runner(),
        interceptors=interceptors,
        **options,
    )


def agent_replayer(registry: AgentRegistry, *workflows: type) -> Replayer:
    """A `Replayer` of recorded agent runs (and of `workflows`): the agent workflow in
    the sandbox, with `registry` as a worker would have it (TP2)."""
    return Replayer(
        workflows=[AgentWorkflow, *workflows],
        workflow_runner=sandbox_runner(),
        interceptors=[RegistryInterceptor(registry)],
    )


async def start_agent_run(
    client: Client,
    agent: str,
    task: str,
    *,
    id: str,
    task_queue: str,
    transcript: str | None = None,
    deps: object = None,
) -> WorkflowHandle[AgentWorkflow, AgentRunResult]:
    """Start a run of the agent registered as `agent` on `task`, as workflow `id`; the
    handle's `result()` is the `AgentRunResult`. `deps` travel as plain JSON values
    (`dump_deps`) and are validated as the agent's `deps_type` where they are used."""
    return await client.start_workflow(
        AgentWorkflow.run,
        AgentRunRequest(agent, task, transcript, dump_deps(deps)),
        id=id,
        task_queue=task_queue,
    )
