"""The README's first command keeps working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_quickstart_example_runs_an_agent_to_its_answer() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.splitlines() == [
        "It is sunny and 21°C in Paris.",
        "(2 steps, 1 tool call, stop: end_turn)",
    ]
