"""The agent run as a Temporal workflow: the core loop itself (`Session.iter`) runs in
the workflow, deterministic and sandboxed, over the registered agent with its provider
and tools replaced by activity-backed ones (TP1, TP12). The transcript is workflow
state; a long run continues as new at a step boundary (TP13)."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from pydantic import ValidationError
    from pydantic_core import to_json

    from automata.core import (
        AutomataError,
        Message,
        StreamEvent,
        ToolStep,
        Usage,
        UsageEvent,
        dump_messages,
        load_messages,
    )
    from automata.temporal._durable import OUTCOME_UNKNOWN, WORKFLOW_NAME, Approvals, durable_agent
    from automata.temporal._events import record_event
    from automata.temporal._registry import AgentRegistry, TemporalAgent
    from automata.temporal._types import (
        AgentRunRequest,
        AgentRunResult,
        Carried,
        Decision,
        RecordedEvent,
    )
    from automata.temporal._wire import load_deps

__all__ = ["OUTCOME_UNKNOWN", "REGISTRY", "WORKFLOW_NAME", "AgentWorkflow"]

REGISTRY = "automata.registry"
"""The name of the worker's extern function giving the workflow the worker's
`AgentRegistry` (set by `agent_worker` and `agent_replayer`)."""


def _registry() -> AgentRegistry:
    found = workflow.extern_functions().get(REGISTRY)
    if found is None:
        raise ApplicationError(
            "this worker has no agent registry: build it with agent_worker()", non_retryable=True
        )
    registry: AgentRegistry = found()
    return registry


def _usage(usage: Usage, carried: Carried | None) -> dict[str, int]:
    total = usage if carried is None else usage + Usage.model_validate(carried.usage)
    return {key: int(value) for key, value in total.model_dump().items()}


def _history_full(entry: TemporalAgent) -> bool:
    """Whether to continue as new: the history holds the entry's
    `continue_as_new_after` events, or Temporal suggests it (TP13)."""
    info = workflow.info()
    limit = entry.continue_as_new_after
    if limit is not None and info.get_current_history_length() >= limit:
        return True
    return info.is_continue_as_new_suggested()


@workflow.defn(name=WORKFLOW_NAME)
class AgentWorkflow:
    """One agent run. Queries: `transcript` (the `dump_messages` document so far),
    `events` (what happened so far, in order) and `pending_approvals`. Signal: `decide`
    (a `Decision` for a call waiting for approval). Cancelling the workflow cancels the
    run."""

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._events: list[RecordedEvent] = []
        self._approvals = Approvals(frozenset(), self._events.append)
        self._usage = Usage()

    @workflow.query(name="transcript")
    def transcript(self) -> str:
        """The transcript as committed so far."""
        return dump_messages(self._messages)

    @workflow.query(name="events")
    def events(self) -> list[RecordedEvent]:
        """The run's events so far (TP7)."""
        return list(self._events)

    @workflow.query(name="pending_approvals")
    def pending_approvals(self) -> list[str]:
        """The ids of the calls waiting for a decision."""
        return sorted(self._approvals.waiting)

    @workflow.signal(name="decide")
    def decide(self, decision: Decision) -> None:
        """Decide a call waiting for approval; the first decision for a call wins."""
        self._approvals.decide(decision)

    @workflow.run
    async def run(self, request: AgentRunRequest) -> AgentRunResult:
        """The core loop over the registered agent, in the workflow (TP1, TP12). A run
        that fails (TP8) fails the workflow, its error's type and message kept."""
        registry = _registry()
        try:
            entry = registry.entry(request.agent)
            agent = registry.agent(request.agent)
        except KeyError as error:
            raise ApplicationError(
                str(error.args[0]), type="UnknownAgent", non_retryable=True
            ) from None
        carried = request.carried
        if carried is not None:
            self._events.extend(carried.events)
        self._approvals.gated = entry.approval_required
        durable = durable_agent(request.agent, agent, entry, self._approvals, request.deps)
        transcript = [] if request.transcript is None else load_messages(request.transcript)
        session = durable.session(transcript)
        done = 0 if carried is None else carried.steps

        def record(event: StreamEvent) -> None:
            if isinstance(event, UsageEvent):
                self._usage = self._usage + event.usage
            found = record_event(event)
            if found is not None:
                self._events.append(found)

        try:
            deps = load_deps(request.deps, agent.deps_type)
        except ValidationError as error:
            raise ApplicationError(
                f"the run's deps are not a {agent.deps_type}: {error}",
                type="InvalidDeps",
                non_retryable=True,
            ) from None
        try:
            steps = session.iter(
                request.task,
                output_type=entry.output_type,
                deps=deps,
                invocation_id=workflow.info().workflow_id,
                on_event=record,
                max_steps=max(agent.max_steps - done, 1),
            )
            async with steps:
                async for step in steps:
                    self._messages = list(step.messages)
                    room = done + step.step < agent.max_steps
                    if isinstance(step, ToolStep) and room and _history_full(entry):
                        await steps.aclose()
                        usage = _usage(self._usage, carried)
                        workflow.continue_as_new(
                            AgentRunRequest(
                                request.agent,
                                None,
                                dump_messages(step.messages),
                                request.deps,
                                Carried(done + step.step, usage, list(self._events)),
                            )
                        )
            result = steps.result
        except AutomataError as error:
            raise ApplicationError(
                str(error), type=type(error).__name__, non_retryable=True
            ) from None
        self._messages = list(result.messages)
        output = result.output
        text = output if isinstance(output, str) and entry.output_type is None else None
        return AgentRunResult(
            output=text if text is not None else to_json(output).decode(),
            transcript=dump_messages(result.messages),
            steps=done + result.steps,
            usage=_usage(result.usage, carried),
        )
