"""The root README's two commands stay true."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = text.split("## Two commands", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    return [re.sub(r"\s+#.*$", "", line).strip() for line in block.strip().splitlines()]


def test_the_readme_shows_exactly_two_commands_and_the_second_runs_the_tests() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    assert commands[1] == "uv run pytest"


def test_the_readmes_first_command_runs_an_agent_to_a_report() -> None:
    first = readme_commands()[0]
    assert first.startswith("uv run python -m deep_research --provider demo ")
    arguments = first.removeprefix("uv run python ").split(" ", 2)
    topic = arguments[2].strip('"')
    done = subprocess.run(
        [sys.executable, "-m", "deep_research", "--provider", "demo", "--plain", topic],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=ROOT,
    )
    assert done.stdout.startswith(f"# Research brief: {topic}")
