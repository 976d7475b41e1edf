"""The PostgreSQL program of docs/guide/threads-web.md runs as pasted against a real
server, in a database of its own, and prints what the page says it prints."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from automata_docs_testing import CodeSample, SampleKind, code_samples
from psycopg.conninfo import make_conninfo

ROOT = Path(__file__).resolve().parents[3]
PAGE = "docs/guide/threads-web.md"


def the_postgres_sample() -> CodeSample:
    (sample,) = [
        sample
        for sample in code_samples(ROOT)
        if sample.page == PAGE and sample.kind is SampleKind.EXECUTED_BY_TEST
    ]
    return sample


@pytest.fixture
def fresh_database(pg_server: str) -> Iterator[str]:
    """The DSN of a database created for this test (the program uses a fixed schema)."""
    name = f"guide_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_conninfo(pg_server, dbname=name)
    finally:
        with psycopg.connect(pg_server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_the_restart_on_postgresql_resumes_the_turn_on_a_second_host(fresh_database: str) -> None:
    sample = the_postgres_sample()
    done = subprocess.run(
        [sys.executable, "-c", sample.example.source],
        env={"DATABASE_URL": fresh_database, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == sample.expected_output
