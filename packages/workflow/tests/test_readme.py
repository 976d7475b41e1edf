"""The README's example runs as shown, and a second run answers from the journal."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks() -> list[str]:
    return re.findall(r"```(?:python)?\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def run(script: Path) -> str:
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=script.parent,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_the_readme_example_prints_what_the_readme_says(tmp_path: Path) -> None:
    """W6: the first run runs every node once; the second runs none and answers."""
    code, output = blocks()[0], blocks()[1]
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    first = run(script).splitlines()
    expected = output.splitlines()
    assert first[0] == expected[0]
    assert sorted(first[1:3]) == sorted(expected[1:3])  # concurrent branches
    assert first[3:] == expected[3:]
    assert run(script).splitlines() == expected[-1:]
