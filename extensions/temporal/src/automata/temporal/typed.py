"""Typed workflows (`automata.workflow`) run as Temporal workflows, each node activation
an activity (TP14).

Register compiled workflows by name with `TypedWorkflows`, serve them with
`typed_workflow_worker` (or pass `TypedWorkflows.worker_parts()` to `agent_worker`), and
start runs with `start_typed_workflow`. The Temporal workflow walks the checked graph as
`CompiledWorkflow.invoke` does (W4, W5): it starts the entry on the input, and after
each activation fires the edges whose predicate holds and the routes whose type matches,
in wiring order, and feeds joins, which fire when each source has an output; the run
ends when an exit finishes, cancelling what is still running. Temporal's history takes
the place of the store's journal. Needs the `workflow` extra (`automata-ai-workflow`).
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from types import MappingProxyType
from typing import Any, TypeVar

from temporalio import activity, workflow
from temporalio.client import Client, WorkflowHandle
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import Interceptor, Worker, WorkflowInterceptorClassInput

from automata.core import RetryPolicy
from automata.temporal._heartbeat import error_message, heartbeating
from automata.temporal._mapping import NON_RETRYABLE, retry_settings, temporal_retry
from automata.temporal._worker import sandbox_runner
from automata.workflow import ActivationInfo, CompiledWorkflow, NodeContext

__all__ = [
    "NODE_CALL",
    "TYPED_WORKFLOW_NAME",
    "NodeCall",
    "TemporalTypedWorkflow",
    "TypedRunRequest",
    "TypedRunResult",
    "TypedWorkflowRun",
    "TypedWorkflows",
    "start_typed_workflow",
    "typed_output",
    "typed_workflow_worker",
]

TYPED_WORKFLOW_NAME = "automata.typed_workflow"
NODE_CALL = "automata.node_call"
_WORKFLOWS = "automata.typed_workflows"

Out = TypeVar("Out")


@dataclass(frozen=True)
class TemporalTypedWorkflow:
    """A compiled workflow and how its activations run as activities: each within
    `node_timeout` seconds, heartbeating so a lost worker is noticed within
    `heartbeat_timeout`, and run again (same activation id, next attempt) after a lost
    worker or a timeout up to `node_retry.max_attempts` in all. A node that raises is
    not retried: the run fails, as `invoke` does. `max_concurrency` bounds a run's
    activations at once (W5)."""

    compiled: CompiledWorkflow[Any, Any]
    node_timeout: float = 300.0
    heartbeat_timeout: float = 30.0
    node_retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_concurrency: int = 16


@dataclass(frozen=True)
class TypedRunRequest:
    """Run workflow `workflow` on `input` (the entry node's input as JSON text)."""

    workflow: str
    input: str


@dataclass(frozen=True)
class TypedRunResult:
    """A finished run: the exit node that ended it and its output as JSON text (see
    `typed_output`), and the number of activations run."""

    exit: str
    output: str
    activations: int


@dataclass(frozen=True)
class NodeCall:
    """One activation: the workflow, the node, the activation's id and run, and its
    input as JSON text."""

    workflow: str
    node: str
    activation_id: str
    run_id: str
    input: str
    activations: int


class TypedWorkflows:
    """Compiled workflows by name, on a worker."""

    def __init__(
        self,
        workflows: Mapping[str, TemporalTypedWorkflow | CompiledWorkflow[Any, Any]] = (
            MappingProxyType({})
        ),
    ) -> None:
        self._entries: dict[str, TemporalTypedWorkflow] = {
            name: w if isinstance(w, TemporalTypedWorkflow) else TemporalTypedWorkflow(w)
            for name, w in workflows.items()
        }

    def entry(self, name: str) -> TemporalTypedWorkflow:
        """The registration of `name`; `KeyError` naming the known ones otherwise."""
        if name not in self._entries:
            known = ", ".join(sorted(self._entries)) or "none"
            raise KeyError(f"no workflow registered as {name!r} (registered: {known})")
        return self._entries[name]

    @activity.defn(name=NODE_CALL)
    async def node_call(self, call: NodeCall) -> str:
        """Run one activation: the node on its input (validated as the node's input
        type), with a `NodeContext` whose `attempt` is the activity's; its output as
        JSON. A node that raises fails without retry."""
        node = self.entry(call.workflow).compiled.graph.nodes[call.node]
        info = ActivationInfo(
            call.workflow,
            call.run_id,
            call.run_id,
            node.name,
            call.activation_id,
            activity.info().attempt,
            call.activations,
        )

        async def log(activation_id: str, message: str, data: Mapping[str, Any]) -> int:
            activity.logger.info("%s %s", message, json.dumps(dict(data)))
            return 0

        try:
            value = node.input_adapter.validate_json(call.input)
            work = node.fn(value, NodeContext(info, log)) if node.takes_context else node.fn(value)
            output = await heartbeating(work)
            return node.output_adapter.dump_json(output).decode()
        except Exception as error:
            raise ApplicationError(
                f"{type(error).__name__}: {error_message(error)}", type=NON_RETRYABLE
            ) from error

    def interceptor(self) -> Interceptor:
        """Hands these workflows to the typed workflow in the sandbox."""
        return _WorkflowsInterceptor(self)

    def worker_parts(self) -> dict[str, Any]:
        """`workflows`, `activities` and `interceptors` for `agent_worker`."""
        return {
            "workflows": [TypedWorkflowRun],
            "activities": [self.node_call],
            "interceptors": [self.interceptor()],
        }


class _WorkflowsInterceptor(Interceptor):
    def __init__(self, workflows: TypedWorkflows) -> None:
        self._workflows = workflows

    def workflow_interceptor_class(self, input: WorkflowInterceptorClassInput) -> None:
        workflows = self._workflows
        input.unsafe_extern_functions[_WORKFLOWS] = lambda: workflows
        return


@workflow.defn(name=TYPED_WORKFLOW_NAME)
class TypedWorkflowRun:
    """One run of a registered typed workflow, each activation an activity (TP14)."""

    def __init__(self) -> None:
        self._count = 0
        self._running: dict[asyncio.Task[None], str] = {}
        self._done: asyncio.Future[TypedRunResult] | None = None

    @workflow.run
    async def run(self, request: TypedRunRequest) -> TypedRunResult:
        """Walk the graph from the entry until an exit finishes; a run left with nothing
        to run fails as stalled, a node that fails fails the run."""
        found: Callable[[], TypedWorkflows] | None = workflow.extern_functions().get(_WORKFLOWS)
        if found is None:
            raise ApplicationError("this worker serves no typed workflows", non_retryable=True)
        try:
            entry = found().entry(request.workflow)
        except KeyError as error:
            raise ApplicationError(str(error.args[0]), non_retryable=True) from None
        graph = entry.compiled.graph
        gate = asyncio.Semaphore(entry.max_concurrency)
        waiting: dict[str, list[deque[Any]]] = {
            join: [deque() for _ in sources] for join, sources in graph.joins.items()
        }
        done: asyncio.Future[TypedRunResult] = asyncio.get_running_loop().create_future()
        run_id = workflow.info().workflow_id

        def start(node: str, data: str) -> None:
            self._count += 1
            activation = f"a{self._count}"
            task = asyncio.ensure_future(activate(node, activation, data, self._count))
            self._running[task] = node
            task.add_done_callback(finished)

        def finished(task: asyncio.Task[None]) -> None:
            self._running.pop(task, None)
            if done.done():
                return
            if not task.cancelled() and task.exception() is not None:
                done.set_exception(task.exception())  # type: ignore[arg-type]
            elif not self._running:
                done.set_exception(
                    ApplicationError(
                        "the run stalled: nothing left to run and no exit reached",
                        type="RunStalledError",
                        non_retryable=True,
                    )
                )

        async def activate(node: str, activation: str, data: str, count: int) -> None:
            async with gate:
                try:
                    output: str = await workflow.execute_activity(
                        NODE_CALL,
                        NodeCall(request.workflow, node, activation, run_id, data, count),
                        result_type=str,
                        start_to_close_timeout=timedelta(seconds=entry.node_timeout),
                        heartbeat_timeout=timedelta(seconds=entry.heartbeat_timeout),
                        retry_policy=temporal_retry(retry_settings(entry.node_retry)),
                    )
                except ActivityError as error:
                    cause = error.cause
                    text = cause.message if isinstance(cause, ApplicationError) else str(error)
                    raise ApplicationError(
                        f"node {node!r} failed: {text}", type="NodeFailedError", non_retryable=True
                    ) from None
            if done.done():
                return
            if node in graph.exits:
                done.set_result(TypedRunResult(node, output, self._count))
                return
            value = graph.nodes[node].output_adapter.validate_json(output)
            for target in graph.targets(node, value):
                start(target, output)
            for join, slot in graph.feeds.get(node, ()):
                slots = waiting[join]
                slots[slot].append(json.loads(output))
                if all(slots):
                    start(join, json.dumps([held.popleft() for held in slots]))

        start(graph.entry, request.input)
        try:
            return await done
        finally:
            for task in list(self._running):
                task.cancel()


def typed_workflow_worker(
    client: Client, workflows: TypedWorkflows, *, task_queue: str, **options: Any
) -> Worker:
    """A worker on `task_queue` running the typed workflow (sandboxed) and the node
    activities of `workflows`. `options` go to `Worker` as they are."""
    parts = workflows.worker_parts()
    return Worker(
        client,
        task_queue=task_queue,
        workflows=parts["workflows"],
        activities=parts["activities"],
        interceptors=parts["interceptors"],
        workflow_runner=sandbox_runner(),
        **options,
    )


async def start_typed_workflow(
    client: Client,
    name: str,
    compiled: CompiledWorkflow[Any, Any],
    input: object,
    *,
    id: str,
    task_queue: str,
) -> WorkflowHandle[TypedWorkflowRun, TypedRunResult]:
    """Start a run of the workflow registered as `name` (`compiled`, whose entry
    checks and encodes `input`), as Temporal workflow `id`."""
    entry = compiled.graph.nodes[compiled.graph.entry]
    data = entry.input_adapter.dump_json(entry.input_adapter.validate_python(input)).decode()
    return await client.start_workflow(
        TypedWorkflowRun.run, TypedRunRequest(name, data), id=id, task_queue=task_queue
    )


def typed_output(compiled: CompiledWorkflow[Any, Out], result: TypedRunResult) -> Out:
    """The run's output, validated as the output type of the exit that ended it."""
    value: Out = compiled.graph.nodes[result.exit].output_adapter.validate_json(result.output)
    return value
