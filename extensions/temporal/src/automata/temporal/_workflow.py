"""The agent loop as a Temporal workflow: deterministic, sandboxed, its state the
transcript. Each provider call and each tool call is an activity (TP1)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError
from temporalio.workflow import ActivityCancellationType

with workflow.unsafe.imports_passed_through():
    from automata.core import (
        Message,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        dump_messages,
        load_messages,
    )
    from automata.temporal._activities import DESCRIBE, MODEL_CALL, TOOL_CALL
    from automata.temporal._mapping import NON_RETRYABLE, temporal_retry, tool_retry
    from automata.temporal._types import (
        AgentPlan,
        AgentRunRequest,
        AgentRunResult,
        Decision,
        ModelCall,
        ModelReply,
        RecordedEvent,
        ToolCall,
        ToolSettings,
    )

__all__ = ["OUTCOME_UNKNOWN", "WORKFLOW_NAME", "AgentWorkflow"]

WORKFLOW_NAME = "automata.agent"

OUTCOME_UNKNOWN = (
    "outcome unknown: the worker running this call was lost or the call timed out, so it "
    "may or may not have run; it was not run again"
)

_DESCRIBE_TIMEOUT = timedelta(seconds=60)


def _event(kind: str, **data: object) -> RecordedEvent:
    return RecordedEvent(kind=kind, data=json.dumps(data, sort_keys=True))


@workflow.defn(name=WORKFLOW_NAME)
class AgentWorkflow:
    """One agent run. Queries: `transcript` (the `dump_messages` document so far) and
    `events` (what happened so far, in order). Signal: `decide` (a `Decision` for a call
    waiting for approval). Cancelling the workflow cancels the run."""

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._events: list[RecordedEvent] = []
        self._decisions: dict[str, Decision] = {}
        self._waiting: set[str] = set()

    @workflow.query(name="transcript")
    def transcript(self) -> str:
        """The transcript as committed so far."""
        return dump_messages(self._messages)

    @workflow.query(name="events")
    def events(self) -> list[RecordedEvent]:
        """The run's events so far: each reply's text, each tool call and its result."""
        return list(self._events)

    @workflow.query(name="pending_approvals")
    def pending_approvals(self) -> list[str]:
        """The ids of the calls waiting for a decision."""
        return sorted(self._waiting)

    @workflow.signal(name="decide")
    def decide(self, decision: Decision) -> None:
        """Approve or deny the call `decision.call_id`; the first decision for a call wins."""
        self._decisions.setdefault(decision.call_id, decision)

    @workflow.run
    async def run(self, request: AgentRunRequest) -> AgentRunResult:
        """Run the loop: call the model, run the calls of its reply as one batch (results
        in the model's order), repeat until a reply calls no tool. More than the agent's
        `max_steps` provider calls fails the workflow."""
        plan: AgentPlan = await workflow.execute_activity(
            DESCRIBE,
            request.agent,
            result_type=AgentPlan,
            start_to_close_timeout=_DESCRIBE_TIMEOUT,
            retry_policy=RetryPolicy(maximum_attempts=5, non_retryable_error_types=[NON_RETRYABLE]),
        )
        if request.transcript is not None:
            self._messages = load_messages(request.transcript)
        elif plan.system_prompt is not None:
            self._messages = [Message.system(plan.system_prompt)]
        self._messages.append(Message.user(request.task))
        for step in range(1, plan.max_steps + 1):
            reply = await self._model(plan)
            self._messages.append(reply)
            if reply.text:
                self._events.append(_event("text", agent=plan.agent, text=reply.text, step=step))
            calls = reply.tool_calls
            if not calls:
                return AgentRunResult(reply.text, dump_messages(self._messages), step)
            results = await asyncio.gather(*(self._tool(plan, call) for call in calls))
            self._messages.append(Message(role="tool", content=tuple(results)))
        raise ApplicationError(
            f"the model still called tools after max_steps={plan.max_steps} calls",
            type="MaxStepsError",
            non_retryable=True,
        )

    async def _model(self, plan: AgentPlan) -> Message:
        reply: ModelReply = await workflow.execute_activity(
            MODEL_CALL,
            ModelCall(plan.agent, dump_messages(self._messages)),
            result_type=ModelReply,
            start_to_close_timeout=timedelta(seconds=plan.model_timeout),
            heartbeat_timeout=timedelta(seconds=plan.heartbeat_timeout),
            retry_policy=temporal_retry(plan.model_retry),
        )
        (message,) = load_messages(reply.message)
        return message

    async def _tool(self, plan: AgentPlan, call: ToolUseBlock) -> ToolResultBlock:
        settings: ToolSettings = plan.tools.get(call.name, plan.default_tool)
        self._events.append(
            _event("tool_call", agent=plan.agent, id=call.id, name=call.name, input=call.input)
        )
        result = await self._decided_result(plan, settings, call)
        self._events.append(
            _event(
                "tool_result",
                agent=plan.agent,
                id=call.id,
                name=call.name,
                result=result.text,
                is_error=result.is_error,
            )
        )
        return result

    async def _decided_result(
        self, plan: AgentPlan, settings: ToolSettings, call: ToolUseBlock
    ) -> ToolResultBlock:
        if settings.needs_approval:
            self._waiting.add(call.id)
            asked = workflow.now()
            await workflow.wait_condition(lambda: call.id in self._decisions)
            self._waiting.discard(call.id)
            decision = self._decisions[call.id]
            waited = (workflow.now() - asked).total_seconds()
            self._events.append(
                _event(
                    "approval",
                    agent=plan.agent,
                    id=call.id,
                    approved=decision.approved,
                    waited=waited,
                )
            )
            if not decision.approved:
                return _error(call, f"denied: {decision.reason or 'denied'}")
        if settings.child_agent is not None:
            return await self._child(settings.child_agent, call)
        try:
            document: str = await workflow.execute_activity(
                TOOL_CALL,
                ToolCall(
                    plan.agent,
                    call.id,
                    dump_messages([Message.assistant([call])]),
                    workflow.info().workflow_id,
                ),
                result_type=str,
                start_to_close_timeout=timedelta(seconds=settings.timeout),
                heartbeat_timeout=timedelta(seconds=plan.heartbeat_timeout),
                retry_policy=tool_retry(settings, plan.tool_retry),
                cancellation_type=ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
            )
        except ActivityError:
            if settings.idempotent:
                return _error(call, f'tool "{call.name}" failed on every attempt')
            return _error(call, OUTCOME_UNKNOWN)
        (message,) = load_messages(document)
        (block,) = [b for b in message.content if isinstance(b, ToolResultBlock)]
        return block

    async def _child(self, agent: str, call: ToolUseBlock) -> ToolResultBlock:
        """Run `agent` as a child workflow, id `<this run's id>/<call id>`, on the task
        `input["task"]` (the arguments as JSON when they are not one `task` string)."""
        task = call.input.get("task")
        text = task if isinstance(task, str) and len(call.input) == 1 else json.dumps(call.input)
        try:
            done: AgentRunResult = await workflow.execute_child_workflow(
                AgentWorkflow.run,
                AgentRunRequest(agent, text),
                id=f"{workflow.info().workflow_id}/{call.id}",
            )
        except ChildWorkflowError as error:
            return _error(call, f'sub-agent "{agent}" failed: {error.cause or error}')
        return ToolResultBlock(tool_use_id=call.id, content=(TextBlock(text=done.output),))


def _error(call: ToolUseBlock, text: str) -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=call.id, content=(TextBlock(text=text),), is_error=True)
