"""automata.a2a: serve automata agents (or durable thread services) over the
Agent2Agent protocol with the official `a2a-sdk`, and call remote A2A agents as tools.

`a2a_app(agent, card=agent_card(agent, url=...))` is an ASGI app answering A2A
JSON-RPC, its agent card at `/.well-known/agent-card.json`; `A2AAgent(url)` is a tool
that sends a task to a remote A2A agent. The app runs behind `automata.web.WebGuard`;
its `policy` is an `automata.web.GuardPolicy`. See docs/protocols.md.
"""

from automata.a2a._app import a2a_app
from automata.a2a._card import agent_card, tool_skills
from automata.a2a._errors import (
    A2AError,
    RemoteAgentUnavailableError,
    RemoteInputRequiredError,
    RemoteProtocolError,
    RemoteTaskError,
)
from automata.a2a._executor import (
    DEFAULT_MAX_CONTEXTS,
    AgentFactory,
    AgentTarget,
    AgentTaskExecutor,
)
from automata.a2a._remote import A2AAgent
from automata.a2a._task_events import (
    ANSWER_ARTIFACT,
    APPROVING_WORDS,
    METADATA_KEY,
    approval_question,
    read_approval,
)
from automata.a2a._thread_executor import ThreadsOpener, ThreadTaskExecutor

__all__ = [
    "ANSWER_ARTIFACT",
    "APPROVING_WORDS",
    "DEFAULT_MAX_CONTEXTS",
    "METADATA_KEY",
    "A2AAgent",
    "A2AError",
    "AgentFactory",
    "AgentTarget",
    "AgentTaskExecutor",
    "RemoteAgentUnavailableError",
    "RemoteInputRequiredError",
    "RemoteProtocolError",
    "RemoteTaskError",
    "ThreadTaskExecutor",
    "ThreadsOpener",
    "a2a_app",
    "agent_card",
    "approval_question",
    "read_approval",
    "tool_skills",
]
