"""The throwaway server is a real PostgreSQL that answers on its DSN and is gone after."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from automata_pg_testing import (
    DSN_ENV,
    PostgresUnavailable,
    find_postgres_bin,
    local_postgres,
    require_postgres,
    throwaway_postgres,
)


def _psql(dsn: str, sql: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["psql", dsn, "-tA", "-c", sql], capture_output=True, text=True, check=False, timeout=30
    )


def test_a_started_server_answers_sql_and_is_stopped_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DSN_ENV, raising=False)
    try:
        with throwaway_postgres() as dsn:
            answer = _psql(dsn, "select 40 + 2")
            assert answer.returncode == 0, answer.stderr
            assert answer.stdout.strip() == "42"
    except PostgresUnavailable as error:
        require_postgres(error)
    assert _psql(dsn, "select 1").returncode != 0


def test_a_dsn_in_the_environment_is_used_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DSN_ENV, "postgresql://someone@db.example:5433/app")
    with throwaway_postgres() as dsn:
        assert dsn == "postgresql://someone@db.example:5433/app"


def test_binaries_are_found_where_the_distribution_puts_them() -> None:
    found = find_postgres_bin()
    if found is None:
        require_postgres(PostgresUnavailable("no binaries"))
    assert found is not None
    assert (found / "pg_ctl").exists()
    assert isinstance(found, Path)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_a_local_server_restarted_keeps_what_was_committed(mode: str) -> None:
    try:
        with local_postgres(synchronous_commit=True) as server:
            made = _psql(server.dsn, "create table kept (n int); insert into kept values (7)")
            assert made.returncode == 0, made.stderr
            server.restart(mode)
            answer = _psql(server.dsn, "select n from kept")
            assert answer.returncode == 0, answer.stderr
            assert answer.stdout.strip() == "7"
    except PostgresUnavailable as error:
        require_postgres(error)


def test_a_local_server_stopped_refuses_connections_until_started() -> None:
    try:
        with local_postgres() as server:
            server.stop("fast")
            assert _psql(server.dsn, "select 1").returncode != 0
            server.start()
            assert _psql(server.dsn, "select 1").returncode == 0
    except PostgresUnavailable as error:
        require_postgres(error)
