"""Agent cards: what an A2A client reads at `/.well-known/agent-card.json`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from a2a.utils.constants import PROTOCOL_VERSION_1_0, TransportProtocol

from automata.core import Agent, InvalidArgumentError

__all__ = ["agent_card", "tool_skills"]


def tool_skills(agent: Agent[Any]) -> list[AgentSkill]:
    """One skill per tool of `agent`: the tool's name as id and name, its description,
    tagged `tool`."""
    return [
        AgentSkill(id=tool.name, name=tool.name, description=tool.description, tags=["tool"])
        for tool in agent.tools
    ]


def agent_card(
    agent: Agent[Any],
    *,
    url: str,
    name: str | None = None,
    description: str | None = None,
    skills: Sequence[AgentSkill] | None = None,
    version: str = "0.1.0",
) -> AgentCard:
    """The agent card of `agent` served at `url` (the JSON-RPC endpoint a client posts
    to, e.g. `http://127.0.0.1:8000/`).

    `name` defaults to the agent's name; `description` to its system prompt when that
    is a string, else a sentence naming the agent. `skills` default to one per tool
    (`tool_skills`), or, for an agent without tools, one `chat` skill. The card says
    the agent streams, takes and gives text, and speaks A2A 1.0 over JSON-RPC. Raises
    `InvalidArgumentError` for a `url` that is not http(s)."""
    if not url.startswith(("http://", "https://")):
        raise InvalidArgumentError(f"an agent card's url must be http(s), got {url!r}")
    card_name = name or agent.name
    if description is None:
        prompt = agent.system_prompt
        description = prompt if isinstance(prompt, str) and prompt else None
    card_skills = list(skills) if skills is not None else tool_skills(agent)
    if not card_skills:
        card_skills = [
            AgentSkill(id="chat", name="chat", description=f"Talk with {card_name}.", tags=["chat"])
        ]
    return AgentCard(
        name=card_name,
        description=description or f"The automata agent {card_name}.",
        version=version,
        supported_interfaces=[
            AgentInterface(
                url=url,
                protocol_binding=TransportProtocol.JSONRPC.value,
                protocol_version=PROTOCOL_VERSION_1_0,
            )
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=card_skills,
    )
