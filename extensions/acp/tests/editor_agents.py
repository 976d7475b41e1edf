"""Agents the tests serve with `automata-acp`: a scripted model that answers by the
first word of the prompt, and tools a code editor would recognise."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from automata.acp import AcpServer, todo_tool
from automata.core import (
    Agent,
    Message,
    ModelRequest,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    tool,
)
from automata.core.testing import FunctionProvider, tool_call, tool_calls
from automata.threads import (
    AgentRequest,
    Host,
    SQLiteStore,
    ThreadService,
    require_approval,
)
from automata.threads import todo_tool as thread_todo_tool


@tool
def read_file(path: str) -> str:
    """Read a file of the workspace."""
    return f"contents of {path}"


@tool
def write_file(path: str, text: str) -> str:
    """Write a file of the workspace."""
    return f"wrote {len(text)} bytes to {path}"


@tool
async def wait_forever() -> str:
    """Wait for something that never happens."""
    await asyncio.Event().wait()
    return "unreachable"


@tool
def explode() -> str:
    """Fail."""
    raise RuntimeError("the tool broke")


def _answer(request: ModelRequest) -> Message:
    last = request.messages[-1]
    call_id = f"call_{len(request.messages)}"
    if last.role == "tool":
        results = [b.text for b in last.content if isinstance(b, ToolResultBlock)]
        return Message.assistant("done: " + "; ".join(results))
    words = last.text.split()
    command, rest = (words[0], words[1:]) if words else ("", [])
    if command == "hello":
        return Message.assistant(
            [
                ThinkingBlock(thinking="a greeting"),
                TextBlock(text="Hello"),
                TextBlock(text=", editor"),
            ]
        )
    if command == "read":
        return tool_calls(tool_call(call_id, "read_file", path=rest[0]), text="Reading.")
    if command == "write":
        return tool_calls(tool_call(call_id, "write_file", path=rest[0], text="data"))
    if command == "block":
        return tool_calls(tool_call(call_id, "wait_forever"))
    if command == "explode":
        return tool_calls(tool_call(call_id, "explode"))
    if command == "plan":
        items = [
            {"content": "read the code", "status": "completed"},
            {"content": "fix the bug", "status": "in_progress", "priority": "high"},
        ]
        return tool_calls(tool_call(call_id, "todo", items=items))
    if command == "history":
        results = [
            f"{block.tool_use_id}={block.text}"
            for message in request.messages
            for block in message.content
            if isinstance(block, ToolResultBlock)
        ]
        return Message.assistant("results: " + " | ".join(results))
    return Message.assistant(f"echo: {last.text}")


def make_agent() -> Agent[None]:
    """A fresh editor agent (the CLI calls this once per session)."""
    return Agent(
        FunctionProvider(_answer),
        name="editor",
        tools=[read_file, write_file, wait_forever, explode, todo_tool()],
    )


agent = make_agent()

gated = AcpServer(make_agent, ask_permission={"write_file"}, name="gated-editor")

short = Agent(FunctionProvider(_answer), name="short", tools=[read_file], max_steps=1)
"""Stops after one model turn: a prompt that calls a tool runs out of steps."""


def _thread_agent(request: AgentRequest) -> Agent[None]:
    return Agent(
        FunctionProvider(_answer),
        name="durable",
        tools=[read_file, write_file, wait_forever, thread_todo_tool()],
        approver=require_approval("write_file"),
    )


@asynccontextmanager
async def _threads() -> AsyncIterator[ThreadService]:
    host = await Host.open(SQLiteStore(os.environ["ACP_TEST_THREADS_DB"]))
    try:
        yield host.thread_service(_thread_agent)
    finally:
        await host.shutdown()


durable = AcpServer(threads=_threads, name="durable-editor")
"""Sessions are threads in the SQLite file named by ACP_TEST_THREADS_DB."""

durable_pair = AcpServer(threads=_threads, name="durable-editor", max_sessions=2)
"""As `durable`, keeping at most two sessions live per connection."""
