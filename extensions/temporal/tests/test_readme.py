"""The README's snippet runs as written against the session's dev server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_snippet_runs(temporal_address: str) -> None:
    snippet = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)[0]
    done = subprocess.run(
        [sys.executable, "-c", snippet],
        env={**os.environ, "TEMPORAL_ADDRESS": temporal_address},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "3 left\n"
