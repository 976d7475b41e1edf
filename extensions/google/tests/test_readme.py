"""The package README's agent sample runs as pasted against the local Gemini server:
the model calls the weather tool, then answers, and the program prints the answer,
the steps and the output tokens."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing import gemini as wire

README = Path(__file__).resolve().parents[1] / "README.md"


def agent_sample() -> str:
    """The Python block the README marks as executed here."""
    found = re.search(r"test_readme\.py -->\n```python\n(.*?)```", README.read_text(), re.S)
    assert found is not None, "README.md has no sample executed by test_readme.py"
    return found.group(1)


def test_the_readme_agent_calls_the_tool_and_prints_the_answer_steps_and_tokens(
    server: WireServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.base_url)
    usage = {"promptTokenCount": 20, "candidatesTokenCount": 4}
    call = {"functionCall": {"name": "weather", "args": {"city": "Paris"}}}
    server.enqueue(
        wire.answer(wire.response([call], usage=usage)),
        wire.answer(wire.response([{"text": "Sunny."}], usage=usage)),
    )
    exec(compile(agent_sample(), str(README), "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == "Sunny. 2 8\n"
    answer = server.received[1].body["contents"][-1]["parts"][0]
    assert answer == {
        "functionResponse": {"name": "weather", "response": {"output": "sunny in Paris"}}
    }
