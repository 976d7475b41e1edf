"""The root README's quick start runs as pasted against the local Anthropic server:
the model calls the weather tool, then answers, and the program prints the answer,
the steps and the output tokens."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from automata_wire_testing import WireServer

from . import replies

README = Path(__file__).resolve().parents[3] / "README.md"
CALL = {"type": "tool_use", "id": "toolu_q", "name": "weather", "input": {"city": "Paris"}}


def quick_start() -> str:
    """The first Python block under the README's "Quick start" heading."""
    section = README.read_text(encoding="utf-8").split("## Quick start", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None, "the Quick start section has no Python sample"
    return found.group(1)


def test_the_quick_start_calls_the_tool_and_prints_the_answer_steps_and_tokens(
    server: WireServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    usage = {"input_tokens": 20, "output_tokens": 4}
    server.enqueue(
        replies.reply(replies.message([CALL], stop_reason="tool_use", usage=usage)),
        replies.reply(replies.message([{"type": "text", "text": "Sunny."}], usage=usage)),
    )
    exec(compile(quick_start(), str(README), "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == "Sunny. 2 8\n"
    tool_result = server.received[1].body["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result"
    assert "sunny in Paris" in str(tool_result["content"])
