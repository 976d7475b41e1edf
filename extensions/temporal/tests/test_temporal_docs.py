"""docs/temporal.md is pinned: every rule (TP1, TP2, ...) is cited by a test of the
extension, and every citation names a rule the page states; and each of the page's
programs runs as printed against the session's dev server, writing exactly what the
page says it prints."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from automata_docs_testing import CodeSample, RuleBook, SampleKind, samples_of

BOOK = RuleBook.of("docs/temporal.md", __file__)
ROOT = Path(__file__).resolve().parents[3]
PROGRAMS = [
    sample
    for sample in samples_of(ROOT, ROOT / "docs" / "temporal.md")
    if sample.kind is SampleKind.EXECUTED_BY_TEST
]


def test_the_doc_states_its_rules_in_order_each_pinned_by_a_test() -> None:
    """The page states its rules numbered from 1 in order, a test here cites each of
    them, and every citation and reference names a rule of the page."""
    BOOK.check(at_least=15)


def test_the_page_has_programs_each_showing_what_it_prints() -> None:
    assert len(PROGRAMS) >= 3
    assert all(sample.expected_output for sample in PROGRAMS)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("sample", PROGRAMS, ids=lambda sample: sample.id)
def test_each_program_of_the_page_prints_what_the_page_shows(
    sample: CodeSample, temporal_address: str, tmp_path: Path
) -> None:
    run = subprocess.run(
        [sys.executable, "-c", sample.example.source],
        env={**os.environ, "TEMPORAL_ADDRESS": temporal_address},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == sample.expected_output
