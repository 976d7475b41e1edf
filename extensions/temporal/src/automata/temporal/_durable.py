"""The agent as the workflow runs it: the registered agent itself (its prompts, hooks,
guardrails, validators, handoffs and limits, so the core loop runs them in the
workflow), with each provider replaced by one whose `complete` is the model-call
activity and each tool by one of the same name and schema whose execution is the
tool-call activity, a child workflow, or (for a handoff) the core's own (TP1, TP12).

Everything here runs in workflow code: it only schedules activities, child workflows
and waits, so the loop around it is as deterministic as the core loop (TP2).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError
from temporalio.workflow import ActivityCancellationType

from automata.core import (
    Agent,
    Approval,
    Handoff,
    InvalidToolArguments,
    Message,
    ModelRequest,
    ModelResponse,
    ModelRetry,
    ProviderError,
    Tool,
    ToolContext,
    ToolResult,
    ToolUseBlock,
    dump_messages,
)
from automata.temporal._activities import APPROVE, MODEL_CALL, TOOL_CALL
from automata.temporal._mapping import (
    retry_settings,
    temporal_retry,
    tool_retry,
    tool_settings,
    workflow_policy,
)
from automata.temporal._registry import TemporalAgent, members
from automata.temporal._types import (
    AgentRunRequest,
    AgentRunResult,
    ApprovalAnswer,
    Decision,
    ModelCall,
    RecordedEvent,
    ToolCall,
    ToolOutcome,
    ToolSettings,
)
from automata.temporal._wire import dump_request, load_response, load_result

__all__ = ["OUTCOME_UNKNOWN", "WORKFLOW_NAME", "Approvals", "durable_agent"]

WORKFLOW_NAME = "automata.agent"

OUTCOME_UNKNOWN = (
    "outcome unknown: the worker running this call was lost or the call timed out, so it "
    "may or may not have run; it was not run again"
)


def _cause(error: BaseException) -> str:
    cause = error.__cause__ or getattr(error, "cause", None) or error
    text = cause.message if isinstance(cause, ApplicationError) else str(cause)
    return text or type(cause).__name__


@dataclass(frozen=True)
class _RunParts:
    agent: str
    run_id: str
    deps: Any
    entry: TemporalAgent

    def call(self, member: str, call: ToolUseBlock, retries: int) -> ToolCall:
        """The activity input naming one call of `member`'s in this run."""
        message = dump_messages([Message.assistant([call])])
        return ToolCall(self.agent, member, call.id, message, self.run_id, self.deps, retries)


@dataclass
class Approvals:
    """The run's approval state: decisions by call id (the first per call wins), the
    calls waiting, and where to record each decision. `own` names the member agents
    whose own approver decides first, in an activity (TP15)."""

    gated: frozenset[str]
    record: Callable[[RecordedEvent], None]
    decisions: dict[str, Decision] = field(default_factory=dict)
    waiting: set[str] = field(default_factory=set)
    own: frozenset[str] = frozenset()
    run: _RunParts | None = None

    def decide(self, decision: Decision) -> None:
        self.decisions.setdefault(decision.call_id, decision)

    async def approver(self, call: ToolUseBlock, context: ToolContext[Any]) -> Approval:
        """The agent's own approver first (an activity, TP15), then, for calls of tools
        in `gated`, a wait in the workflow (no activity, no timeout) for a `decide`
        signal (TP9)."""
        if context.agent in self.own and self.run is not None:
            verdict = await self._own(call, context, self.run)
            if not verdict.allowed:
                return verdict
        if call.name not in self.gated:
            return Approval.allow()
        self.waiting.add(call.id)
        asked = workflow.now()
        await workflow.wait_condition(lambda: call.id in self.decisions)
        self.waiting.discard(call.id)
        decision = self.decisions[call.id]
        waited = (workflow.now() - asked).total_seconds()
        data = {"agent": context.agent, "id": call.id, "approved": decision.approved}
        self.record(RecordedEvent("approval", json.dumps({**data, "waited": waited})))
        if decision.approved:
            return Approval.allow()
        return Approval.deny(decision.reason or "denied")

    async def _own(self, call: ToolUseBlock, context: ToolContext[Any], run: _RunParts) -> Approval:
        try:
            answer: ApprovalAnswer = await workflow.execute_activity(
                APPROVE,
                run.call(context.agent, call, context.retries),
                result_type=ApprovalAnswer,
                start_to_close_timeout=timedelta(seconds=run.entry.default_tool_timeout),
                heartbeat_timeout=timedelta(seconds=run.entry.heartbeat_timeout),
                retry_policy=RetryPolicy(maximum_attempts=1),
            )
        except ActivityError as error:
            raise RuntimeError(f"the approver failed: {_cause(error)}") from None
        return Approval(answer.allowed, answer.reason)


class ActivityProvider:
    """A provider whose every call is the model-call activity of one member agent,
    bounded by the registration's `model_timeout` and retried with its `model_retry`."""

    supports_streaming = False

    def __init__(self, agent: str, member: Agent[Any], entry: TemporalAgent) -> None:
        real = member.provider
        self.provider_name: str = real.provider_name
        self.model: str | None = real.model
        self.supports_native_output: bool = real.supports_native_output
        self._call = (agent, member.name)
        self._entry = entry

    async def complete(self, request: ModelRequest) -> ModelResponse:
        entry = self._entry
        try:
            reply: str = await workflow.execute_activity(
                MODEL_CALL,
                ModelCall(*self._call, dump_request(request)),
                result_type=str,
                start_to_close_timeout=timedelta(seconds=entry.model_timeout),
                heartbeat_timeout=timedelta(seconds=entry.heartbeat_timeout),
                retry_policy=temporal_retry(retry_settings(entry.model_retry)),
            )
        except ActivityError as error:
            raise ProviderError(f"provider failed: {_cause(error)}") from None
        return load_response(reply)


class ActivityTool:
    """A tool of the same name, description and schema as a member agent's, whose
    execution is the tool-call activity (TP3, TP5)."""

    def __init__(self, tool: Tool, member: str, settings: ToolSettings, run: _RunParts) -> None:
        self.name: str = tool.name
        self.description: str = tool.description
        self.input_schema: Mapping[str, Any] = tool.input_schema
        self.retries: int | None = getattr(tool, "retries", None)
        self.idempotent = settings.idempotent
        self._member = member
        self._settings = settings
        self._run = run

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext[Any]) -> ToolResult:
        call, run, settings = context.call, self._run, self._settings
        try:
            outcome: ToolOutcome = await workflow.execute_activity(
                TOOL_CALL,
                run.call(self._member, call, context.retries),
                result_type=ToolOutcome,
                start_to_close_timeout=timedelta(seconds=settings.timeout),
                heartbeat_timeout=timedelta(seconds=run.entry.heartbeat_timeout),
                retry_policy=tool_retry(settings, retry_settings(run.entry.tool_retry)),
                cancellation_type=ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
            )
        except ActivityError:
            if settings.idempotent:
                return ToolResult.error(f'tool "{call.name}" failed on every attempt')
            return ToolResult.error(OUTCOME_UNKNOWN)
        if outcome.kind == "retry":
            raise ModelRetry(outcome.data)
        if outcome.kind == "invalid":
            raise InvalidToolArguments(outcome.data)
        return load_result(outcome.data)


class ChildAgentTool:
    """A tool of the same name and schema whose call runs a registered agent as a child
    workflow, id `<run id>/<call id>`, on the call's `task` (TP11)."""

    def __init__(self, tool: Tool, child: str, run: _RunParts) -> None:
        self.name: str = tool.name
        self.description: str = tool.description
        self.input_schema: Mapping[str, Any] = tool.input_schema
        self._child = child
        self._run = run

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext[Any]) -> ToolResult:
        task = arguments.get("task")
        text = task if isinstance(task, str) and len(arguments) == 1 else json.dumps(arguments)
        try:
            done: AgentRunResult = await workflow.execute_child_workflow(
                WORKFLOW_NAME,
                AgentRunRequest(self._child, text, deps=self._run.deps),
                id=f"{self._run.run_id}/{context.call.id}",
                result_type=AgentRunResult,
            )
        except ChildWorkflowError as error:
            return ToolResult.error(f'sub-agent "{self._child}" failed: {_cause(error)}')
        return ToolResult.text(done.output)


def durable_agent(
    name: str, agent: Agent[Any], entry: TemporalAgent, approvals: Approvals, deps: Any
) -> Agent[Any]:
    """`agent` (registered as `name`) and every agent its handoffs reach, each with its
    provider and tools replaced by the activity-backed ones, its tool policy without
    timeouts and rate limiters, and the run's approvals as its approver."""
    run = _RunParts(name, workflow.info().workflow_id, deps, entry)
    graph = members(agent)
    approvals.run = run
    approvals.own = frozenset(key for key, member in graph.items() if member.approver)
    clones = {
        key: member.replace(
            provider=ActivityProvider(name, member, entry),
            tools=(),
            tool_policy=workflow_policy(member.tool_policy),
            approver=approvals.approver,
        )
        for key, member in graph.items()
    }
    for key, member in graph.items():
        clone = clones[key]
        for tool in member.tools:
            if isinstance(tool, Handoff):
                target = clones[tool.agent.name]
                clone.add_handoff(replace(tool, agent=target))
                continue
            settings = tool_settings(tool, member.tool_policy, entry)
            if settings.child_agent is not None:
                clone.add_tool(ChildAgentTool(tool, settings.child_agent, run))
            else:
                clone.add_tool(ActivityTool(tool, key, settings, run))
    return clones[agent.name]
