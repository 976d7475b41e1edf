"""The agent each turn runs: the demo's, or one on a real model."""

from __future__ import annotations

from automata.core import Agent
from automata.threads import (
    AgentFactory,
    AgentRequest,
    ask_user_tool,
    require_approval,
    todo_tool,
)
from chat.demo import demo_factory, email_tool, get_weather

__all__ = ["choose_factory"]

SYSTEM_PROMPT = (
    "You are a helpful assistant in a chat app. Answer briefly. Use get_weather for the "
    "weather, send_email to send mail (the user approves each one), and ask_user when "
    "you need to know something only the user can tell you. For a task with several "
    "steps, keep a to-do list with todo (send the whole list each time it changes)."
)


def choose_factory(model: str, *, pace: float) -> AgentFactory:
    """The agent factory for `model`: `demo` (no key, no network; words streamed
    `pace` seconds apart) or a `provider:model` string such as
    `anthropic:claude-sonnet-4-5`, with the demo's tools and approval rule."""
    if model == "demo":
        return demo_factory(pace=pace)
    agent = Agent(
        model,
        name="chat",
        system_prompt=SYSTEM_PROMPT,
        tools=[get_weather, email_tool(), ask_user_tool(), todo_tool()],
        approver=require_approval("send_email"),
    )

    def choose_agent(request: AgentRequest) -> Agent:
        return agent

    return choose_agent
