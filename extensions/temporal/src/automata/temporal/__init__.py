"""automata.temporal: run automata agents as Temporal workflows.

The core loop runs in the workflow, deterministic and sandboxed, so the agent's
prompts, hooks, guardrails, validators, handoffs and limits all apply; each provider
call and each tool call is an activity, and the transcript is workflow state. Agents
are registered by name on a worker (`AgentRegistry`); a client starts a run with
`start_agent_run`. A non-idempotent tool's call is never retried once it may have run:
a lost call's result is an `outcome unknown` error the model sees. See
docs/temporal.md.
"""

from automata.temporal._activities import AgentActivities
from automata.temporal._durable import OUTCOME_UNKNOWN, WORKFLOW_NAME
from automata.temporal._events import follow_events, query_events, stream_events
from automata.temporal._exit import collect_before_finalization as _collect_before_finalization
from automata.temporal._keys import idempotency_key
from automata.temporal._mapping import (
    retry_settings,
    temporal_retry,
    tool_retry,
    tool_settings,
    workflow_policy,
)
from automata.temporal._registry import AgentRegistry, TemporalAgent
from automata.temporal._types import (
    AgentRunRequest,
    AgentRunResult,
    Decision,
    RecordedEvent,
    RetrySettings,
    ToolSettings,
)
from automata.temporal._wire import dump_deps
from automata.temporal._worker import (
    PASSED_THROUGH,
    RegistryInterceptor,
    agent_replayer,
    agent_worker,
    sandbox_runner,
    start_agent_run,
)
from automata.temporal._workflow import AgentWorkflow

_collect_before_finalization()  # the SDK's clients and workers are freed before exit

__all__ = [
    "OUTCOME_UNKNOWN",
    "PASSED_THROUGH",
    "WORKFLOW_NAME",
    "AgentActivities",
    "AgentRegistry",
    "AgentRunRequest",
    "AgentRunResult",
    "AgentWorkflow",
    "Decision",
    "RecordedEvent",
    "RegistryInterceptor",
    "RetrySettings",
    "TemporalAgent",
    "ToolSettings",
    "agent_replayer",
    "agent_worker",
    "dump_deps",
    "follow_events",
    "idempotency_key",
    "query_events",
    "retry_settings",
    "sandbox_runner",
    "start_agent_run",
    "stream_events",
    "temporal_retry",
    "tool_retry",
    "tool_settings",
    "workflow_policy",
]
