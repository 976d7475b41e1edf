"""The programs of the README (extensions/postgres/README.md) run as written against a
real server, and print what the README shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from automata_docs_testing import CodeSample, SampleKind, samples_of

README = Path(__file__).resolve().parents[1] / "README.md"
ROOT = README.parents[2]


def readme_programs() -> list[CodeSample]:
    """The README's samples marked as executed by this file, in page order."""
    return [
        sample
        for sample in samples_of(ROOT, README)
        if sample.kind is SampleKind.EXECUTED_BY_TEST
        and sample.test is not None
        and Path(sample.test).name == Path(__file__).name
    ]


def run_twice(sample: CodeSample, dsn: str) -> None:
    """Run `sample` in two fresh interpreters on one database; each prints what the
    README shows (the second finds what the first committed)."""
    assert sample.expected_output is not None, f"{sample.id} shows no output"
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", sample.example.source],
            env={"DATABASE_URL": dsn, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == sample.expected_output


def test_the_readme_marks_its_two_programs_as_run_here() -> None:
    assert len(readme_programs()) == 2


def test_the_store_program_runs_twice_on_one_schema(pg_server: str) -> None:
    run_twice(readme_programs()[0], pg_server)


def test_the_host_program_answers_a_thread_and_a_second_host_finds_it_answered(
    pg_server: str,
) -> None:
    run_twice(readme_programs()[1], pg_server)
