import asyncio

from automata.acp import AcpServer
from automata.core import Agent, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls


@tool
def write_file(path: str, text: str) -> str:
    """Write a file of the workspace."""
    return f"wrote {len(text)} characters to {path}"


# Scripted replies stand in for a model, e.g. "anthropic:claude-sonnet-4-5".
model = ScriptedProvider(
    [tool_calls(tool_call("c1", "write_file", path="notes.md", text="hi")), "Written."]
)
agent = Agent(model, tools=[write_file])
asyncio.run(AcpServer(agent, ask_permission={"write_file"}).serve_stdio())
