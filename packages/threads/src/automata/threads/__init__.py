"""automata.threads: durable threads for automata agents.

A conversation's journal is the only durable truth; it survives crashes, restarts and
a second process. Depends only on automata-ai-core and the standard library. Open a
`Host` on a store, get its `ThreadService`, and send: see docs/threads.md.
"""

from __future__ import annotations

from automata.threads._agents import (
    AgentFactory,
    AgentRequest,
    idempotency_key,
    thread_of,
    turn_invocation_id,
)
from automata.threads._artifact_tool import read_artifact_tool
from automata.threads._artifacts import ARTIFACT_PAGE, ArtifactInfo, ArtifactPage
from automata.threads._call_questions import CallAnswer, CallQuestions, QuestionUnanswerableError
from automata.threads._context import (
    CompactionOperation,
    CompactionPolicy,
    CompactionState,
    ContextPolicy,
    ThreadContext,
    UsageTotals,
)
from automata.threads._errors import (
    HostClosedError,
    ItemNotFoundError,
    LeaseLostError,
    PageBoundError,
    PurgeRefusedError,
    RequestConflictError,
    SchemaError,
    StoreClosedError,
    StoreError,
    StoreUnavailableError,
    ThreadExistsError,
    ThreadNotFoundError,
    ThreadsError,
    ThreadStateError,
)
from automata.threads._host import Host
from automata.threads._interactions import ApprovalGate, ask_user_tool, require_approval
from automata.threads._maintenance import (
    MaintenanceReport,
    StoreInUseError,
    maintain_sqlite,
    maintain_sqlite_sync,
)
from automata.threads._memory import MemoryStore
from automata.threads._retention import ArchiveSink, PurgeReport
from automata.threads._service import ThreadService
from automata.threads._sqlite import SQLiteStore
from automata.threads._subagent_control import (
    start_child_tool,
    stop_children_tool,
    wait_children_tool,
)
from automata.threads._subthreads import child_thread_tool
from automata.threads._todos import TodoItem, TodoList, TodoTool, todo_tool
from automata.threads._view import (
    HistoryEntry,
    HistoryPage,
    QueuedInput,
    ThreadPage,
    ThreadSummary,
    ThreadView,
    ViewItem,
)

__all__ = [
    "ARTIFACT_PAGE",
    "AgentFactory",
    "AgentRequest",
    "ApprovalGate",
    "ArchiveSink",
    "ArtifactInfo",
    "ArtifactPage",
    "CallAnswer",
    "CallQuestions",
    "CompactionOperation",
    "CompactionPolicy",
    "CompactionState",
    "ContextPolicy",
    "HistoryEntry",
    "HistoryPage",
    "Host",
    "HostClosedError",
    "ItemNotFoundError",
    "LeaseLostError",
    "MaintenanceReport",
    "MemoryStore",
    "PageBoundError",
    "PurgeRefusedError",
    "PurgeReport",
    "QuestionUnanswerableError",
    "QueuedInput",
    "RequestConflictError",
    "SQLiteStore",
    "SchemaError",
    "StoreClosedError",
    "StoreError",
    "StoreInUseError",
    "StoreUnavailableError",
    "ThreadContext",
    "ThreadExistsError",
    "ThreadNotFoundError",
    "ThreadPage",
    "ThreadService",
    "ThreadStateError",
    "ThreadSummary",
    "ThreadView",
    "ThreadsError",
    "TodoItem",
    "TodoList",
    "TodoTool",
    "UsageTotals",
    "ViewItem",
    "ask_user_tool",
    "child_thread_tool",
    "idempotency_key",
    "maintain_sqlite",
    "maintain_sqlite_sync",
    "read_artifact_tool",
    "require_approval",
    "start_child_tool",
    "stop_children_tool",
    "thread_of",
    "todo_tool",
    "turn_invocation_id",
    "wait_children_tool",
]
