"""automata.workflow: typed workflows, checkpointed through the durable threads store.

Build a `Workflow[In, Out]` from typed async nodes, wire edges, routes, fan-outs and
joins, `compile()` it (wiring errors are raised there, before anything runs) and
`invoke` it. Every activation is checkpointed in the store, so `invoke` with the id of
an interrupted run resumes it. See docs/workflows.md.
"""

from __future__ import annotations

from automata.workflow._agent import Answer, Calls, Turn, WorkflowAgent, workflow_agent
from automata.workflow._compile import Graph
from automata.workflow._compiled import CompiledWorkflow
from automata.workflow._errors import (
    HistoryLimitError,
    InvalidIdError,
    JoinNeverFiresError,
    MissingEntryError,
    MissingExitError,
    NodeFailedError,
    PageBoundError,
    RunBusyError,
    RunCancelledError,
    RunConflictError,
    RunLeaseLostError,
    RunNotFoundError,
    RunStalledError,
    RunStateError,
    RunStoppedError,
    StopReason,
    TypeMismatchError,
    UnreachableNodeError,
    UnroutedOutputError,
    WiringError,
    WorkflowError,
)
from automata.workflow._events import SINK_ATTEMPTS, EventSink, RunEvent
from automata.workflow._graph import JoinBuilder, Workflow
from automata.workflow._history import HistoryPage, RunsPage, RunSummary
from automata.workflow._hooks import (
    Guard,
    Middleware,
    NodeCall,
    log_activations,
    max_activations,
    time_activations,
    trace_activations,
)
from automata.workflow._ids import MAX_ID_BYTES, IdGenerator, IdKind, Ids, validate_id
from automata.workflow._journal import RunStatus
from automata.workflow._nodes import ActivationInfo, Node, NodeContext, current_activation

__all__ = [
    "MAX_ID_BYTES",
    "SINK_ATTEMPTS",
    "ActivationInfo",
    "Answer",
    "Calls",
    "CompiledWorkflow",
    "EventSink",
    "Graph",
    "Guard",
    "HistoryLimitError",
    "HistoryPage",
    "IdGenerator",
    "IdKind",
    "Ids",
    "InvalidIdError",
    "JoinBuilder",
    "JoinNeverFiresError",
    "Middleware",
    "MissingEntryError",
    "MissingExitError",
    "Node",
    "NodeCall",
    "NodeContext",
    "NodeFailedError",
    "PageBoundError",
    "RunBusyError",
    "RunCancelledError",
    "RunConflictError",
    "RunEvent",
    "RunLeaseLostError",
    "RunNotFoundError",
    "RunStalledError",
    "RunStateError",
    "RunStatus",
    "RunStoppedError",
    "RunSummary",
    "RunsPage",
    "StopReason",
    "Turn",
    "TypeMismatchError",
    "UnreachableNodeError",
    "UnroutedOutputError",
    "WiringError",
    "Workflow",
    "WorkflowAgent",
    "WorkflowError",
    "current_activation",
    "log_activations",
    "max_activations",
    "time_activations",
    "trace_activations",
    "validate_id",
    "workflow_agent",
]
