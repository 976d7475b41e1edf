"""The README's example runs as shown, and a second run answers from the journal."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks() -> list[str]:
    return re.findall(r"```(?:python)?\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_example_prints_what_the_readme_says(tmp_path: Path) -> None:
    """T4: send, then the view after the turn; T3: run twice, one model run."""
    code, output = blocks()[0], blocks()[1]
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert done.stdout == output
