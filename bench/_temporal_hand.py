"""The floor for `temporal_runs.py`: a hand-written Temporal workflow that runs the same
task on the same activities (`automata.model_call`, `automata.tool_call`) with the same
timeouts and retry policies as the agent workflow, and nothing else: no core loop, no
events, no queries. It builds each request and each call the way the activities read
them, and loops until the model answers without a tool call.

Kept in a module of its own: the workflow sandbox imports a workflow's module, which a
script run as `__main__` cannot be.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from temporalio import workflow
from temporalio.workflow import ActivityCancellationType

with workflow.unsafe.imports_passed_through():
    from automata.core import (
        Message,
        ModelRequest,
        RetryPolicy,
        ToolResultBlock,
        ToolSpec,
        dump_messages,
    )
    from automata.temporal import TemporalAgent, retry_settings, temporal_retry, tool_retry
    from automata.temporal._activities import MODEL_CALL, TOOL_CALL
    from automata.temporal._types import ModelCall, ToolCall, ToolOutcome, ToolSettings
    from automata.temporal._wire import dump_request, load_response, load_result

AGENT = "adder"
"""The registered agent whose provider and tool the activities run."""

SYSTEM = "Add."
ADD = ToolSpec(
    "add",
    "Add two numbers.",
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)
DEFAULTS: dict[str, float] = {
    field.name: field.default
    for field in dataclasses.fields(TemporalAgent)
    if isinstance(field.default, float)
}
MODEL_TIMEOUT = timedelta(seconds=DEFAULTS["model_timeout"])
TOOL_TIMEOUT = timedelta(seconds=DEFAULTS["default_tool_timeout"])
HEARTBEAT = timedelta(seconds=DEFAULTS["heartbeat_timeout"])
"""The activity bounds the agent workflow uses for an agent registered as it is here."""
MODEL_RETRY = temporal_retry(retry_settings(RetryPolicy()))
TOOL_RETRY = tool_retry(
    ToolSettings(TOOL_TIMEOUT.total_seconds(), idempotent=False), retry_settings(RetryPolicy())
)


@workflow.defn(name="bench.hand_written")
class HandWritten:
    """The task answered by the model and tool activities, called one after another."""

    @workflow.run
    async def run(self, task: str) -> str:
        run_id = workflow.info().workflow_id
        messages = [Message.system(SYSTEM), Message.user(task)]
        while True:
            reply: str = await workflow.execute_activity(
                MODEL_CALL,
                ModelCall(AGENT, AGENT, dump_request(ModelRequest(tuple(messages), (ADD,)))),
                result_type=str,
                start_to_close_timeout=MODEL_TIMEOUT,
                heartbeat_timeout=HEARTBEAT,
                retry_policy=MODEL_RETRY,
            )
            answer = load_response(reply).message
            messages.append(answer)
            if not answer.tool_calls:
                return answer.text
            results = []
            for call in answer.tool_calls:
                outcome: ToolOutcome = await workflow.execute_activity(
                    TOOL_CALL,
                    ToolCall(
                        AGENT, AGENT, call.id, dump_messages([Message.assistant([call])]), run_id
                    ),
                    result_type=ToolOutcome,
                    start_to_close_timeout=TOOL_TIMEOUT,
                    heartbeat_timeout=HEARTBEAT,
                    retry_policy=TOOL_RETRY,
                    cancellation_type=ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
                )
                result = load_result(outcome.data)
                results.append(
                    ToolResultBlock(
                        tool_use_id=call.id, content=result.content, is_error=result.is_error
                    )
                )
            messages.append(Message(role="tool", content=tuple(results)))
