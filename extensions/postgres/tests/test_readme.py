"""The README's snippet runs as written against a real server."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_snippet_runs_twice_on_one_schema(pg_server: str) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    snippet = blocks[0]
    for _ in range(2):  # the second run finds the thread the first created
        done = subprocess.run(
            [sys.executable, "-c", snippet],
            env={"DATABASE_URL": pg_server, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == "['hello']\n"
