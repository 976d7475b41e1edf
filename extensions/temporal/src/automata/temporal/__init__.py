"""automata.temporal: run automata agents as Temporal workflows.

Each provider call and each tool call is an activity, the transcript is workflow state,
and the workflow runs in the SDK's sandbox. Agents are registered by name on a worker
(`AgentRegistry`); a client starts a run with `start_agent_run`. A non-idempotent
tool's call is never retried once it may have run: a lost call's result is an
`outcome unknown` error the model sees. See docs/temporal.md.
"""

from automata.temporal._activities import AgentActivities
from automata.temporal._events import query_events, stream_events
from automata.temporal._keys import idempotency_key
from automata.temporal._mapping import retry_settings, temporal_retry, tool_retry
from automata.temporal._registry import AgentRegistry, TemporalAgent
from automata.temporal._types import (
    AgentPlan,
    AgentRunRequest,
    AgentRunResult,
    Decision,
    RecordedEvent,
    RetrySettings,
    ToolSettings,
)
from automata.temporal._worker import PASSED_THROUGH, agent_worker, sandbox_runner, start_agent_run
from automata.temporal._workflow import OUTCOME_UNKNOWN, WORKFLOW_NAME, AgentWorkflow

__all__ = [
    "OUTCOME_UNKNOWN",
    "PASSED_THROUGH",
    "WORKFLOW_NAME",
    "AgentActivities",
    "AgentPlan",
    "AgentRegistry",
    "AgentRunRequest",
    "AgentRunResult",
    "AgentWorkflow",
    "Decision",
    "RecordedEvent",
    "RetrySettings",
    "TemporalAgent",
    "ToolSettings",
    "agent_worker",
    "idempotency_key",
    "query_events",
    "retry_settings",
    "sandbox_runner",
    "start_agent_run",
    "stream_events",
    "temporal_retry",
    "tool_retry",
]
