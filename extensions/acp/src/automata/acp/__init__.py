"""automata.acp: serve automata agents to editors over the Agent Client Protocol (v1).

`AcpServer(agent_or_factory, ask_permission=...)` serves on stdio with the official
`agent-client-protocol` SDK; `automata-acp module:attribute` does the same from the
command line. See docs/protocols.md.
"""

from automata.acp._cli import load_target, main
from automata.acp._permissions import (
    ALLOW_ALWAYS,
    ALLOW_ONCE,
    REJECT_ONCE,
    ClientApprover,
    PermissionClient,
    PermissionRule,
    permission_rule,
)
from automata.acp._prompt import prompt_message
from automata.acp._server import AcpServer, AgentFactory, AgentTarget, ThreadsOpener
from automata.acp._sessions import DEFAULT_MAX_SESSIONS
from automata.acp._todo import TODO_TOOL, TodoItem, plan_entries, todo_tool
from automata.acp._updates import UpdateMapper

__all__ = [
    "ALLOW_ALWAYS",
    "ALLOW_ONCE",
    "DEFAULT_MAX_SESSIONS",
    "REJECT_ONCE",
    "TODO_TOOL",
    "AcpServer",
    "AgentFactory",
    "AgentTarget",
    "ClientApprover",
    "PermissionClient",
    "PermissionRule",
    "ThreadsOpener",
    "TodoItem",
    "UpdateMapper",
    "load_target",
    "main",
    "permission_rule",
    "plan_entries",
    "prompt_message",
    "todo_tool",
]
