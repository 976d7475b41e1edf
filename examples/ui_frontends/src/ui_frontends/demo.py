"""The demo agent both front ends talk to: the chat example's scripted model (it
decides each reply from the transcript, needs no key and no network, and streams its
thinking and answer word by word) with its weather, note and email tools.

`send_email` is the tool that needs the person's approval (`APPROVAL_REQUIRED`): a
message mentioning *email* drafts one and calls it, and the front end approves or
denies the call before it runs. *weather* calls `get_weather`, *hostile* answers with
markup a page must never run and reads a note holding the same.
"""

from __future__ import annotations

from chat.demo import DemoModel, email_tool, get_weather, read_note

from automata.core import Agent

__all__ = ["APPROVAL_REQUIRED", "demo_agent"]

APPROVAL_REQUIRED = frozenset({"send_email"})
"""The tools whose calls wait for the front end's approval."""


def demo_agent(*, pace: float = 0.04) -> Agent:
    """The demo agent, streaming a word every `pace` seconds; `send_email` takes 10
    words' time."""
    return Agent(
        DemoModel(pace=pace),
        name="demo",
        system_prompt="You are a helpful assistant. Ask before sending anything.",
        tools=[get_weather, read_note, email_tool(delay=pace * 10)],
    )
