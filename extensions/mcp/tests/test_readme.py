"""The README's first snippet runs as written, against the published time server."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.skipif(shutil.which("mcp-server-time") is None, reason="needs mcp-server-time")
def test_the_readme_snippet_runs_and_prints_the_answer() -> None:
    snippet = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)[0]
    done = subprocess.run(
        [sys.executable, "-c", snippet], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Noon UTC is 21:00 in Tokyo."
