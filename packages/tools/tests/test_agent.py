"""Each tool driven by a real Agent: the model's call goes through the loop and the
result (or the refusal) comes back to the model as a tool result block."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from automata.core import Agent, Message, TextBlock, Tool, ToolResultBlock, ToolUseBlock
from automata.core.testing import ScriptedProvider
from automata.tools import (
    SearchResult,
    http_fetch,
    read_file,
    shell,
    web_search,
    write_file,
)

from .conftest import LocalServer


async def run_one_call(tool: Tool, arguments: dict[str, Any]) -> ToolResultBlock:
    """Run an agent whose model calls `tool` once and then answers; return the
    result block the model was sent."""
    provider = ScriptedProvider(
        [
            Message(
                role="assistant",
                content=[ToolUseBlock(id="call-1", name=tool.name, input=arguments)],
            ),
            Message(role="assistant", content=[TextBlock(text="done")]),
        ]
    )
    result = await Agent(provider, tools=[tool]).run("go")
    assert result.output == "done"
    (block,) = [b for m in result.messages for b in m.content if isinstance(b, ToolResultBlock)]
    assert block.tool_use_id == "call-1"
    return block


def text_of(block: ToolResultBlock) -> str:
    return "\n".join(b.text for b in block.content if isinstance(b, TextBlock))


async def test_agent_fetches_a_page(server: LocalServer) -> None:
    server.respond("/", "<h1>Hello</h1>", content_type="text/html")
    block = await run_one_call(http_fetch(allow_private=True), {"url": server.url("/")})
    assert not block.is_error
    assert "# Hello" in text_of(block)


async def test_agent_sees_the_fetch_refusal_as_an_error_result(server: LocalServer) -> None:
    block = await run_one_call(http_fetch(), {"url": server.url("/")})
    assert block.is_error
    assert text_of(block).startswith("refused: 127.0.0.1 is not a public address")
    assert server.requests == []


async def test_agent_reads_a_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("file body")
    block = await run_one_call(read_file(tmp_path), {"path": "a.txt"})
    assert text_of(block).endswith("\n     1\tfile body")


async def test_agent_writes_a_file(tmp_path: Path) -> None:
    block = await run_one_call(write_file(tmp_path), {"path": "out/b.txt", "content": "hi"})
    assert text_of(block) == "wrote 2 bytes to out/b.txt"
    assert (tmp_path / "out" / "b.txt").read_text() == "hi"


async def test_agent_runs_an_allowed_program(tmp_path: Path) -> None:
    block = await run_one_call(shell(["echo"], cwd=tmp_path), {"command": "echo", "args": ["x"]})
    assert text_of(block) == "x\n"


async def test_agent_gets_invalid_args_for_a_malformed_shell_call(tmp_path: Path) -> None:
    block = await run_one_call(shell(["echo"], cwd=tmp_path), {"command": "echo", "args": "x"})
    assert block.is_error
    assert text_of(block).startswith("invalid args:")


async def test_agent_searches_the_web() -> None:
    class OneResult:
        async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
            return [SearchResult(title=query.title(), url="https://example.com", snippet="s")]

    block = await run_one_call(web_search(OneResult()), {"query": "agents"})
    assert text_of(block) == "1. Agents\n   https://example.com\n   s"
