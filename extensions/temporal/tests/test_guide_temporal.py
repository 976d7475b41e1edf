"""The programs of the Temporal guide page (docs/guide/temporal.md) run as pasted, each
in an interpreter of its own against the session's dev server, exit cleanly and print
exactly what the page says they print."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from automata_docs_testing import CodeSample, SampleKind, samples_of

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "guide" / "temporal.md"
PROGRAMS = [
    sample
    for sample in samples_of(ROOT, PAGE)
    if sample.kind is SampleKind.EXECUTED_BY_TEST
    and sample.test == Path(__file__).relative_to(ROOT).as_posix()
]


def test_the_page_has_its_programs_and_shows_what_each_prints() -> None:
    assert len(PROGRAMS) == 2
    assert all(sample.expected_output for sample in PROGRAMS)


@pytest.mark.parametrize("sample", PROGRAMS, ids=lambda sample: sample.id)
def test_each_program_of_the_page_prints_what_the_page_shows(
    sample: CodeSample, temporal_address: str, tmp_path: Path
) -> None:
    """TP1, TP9, TP16: the run's answer (and, for the approval, the wait and the
    events) as the page shows them, and exit code 0."""
    done = subprocess.run(
        [sys.executable, "-c", sample.example.source],
        env={**os.environ, "TEMPORAL_ADDRESS": temporal_address},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == sample.expected_output
