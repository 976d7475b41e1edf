"""A throwaway PostgreSQL server for tests and benches: real, local, and gone after.

`throwaway_postgres()` gives a DSN. When `AUTOMATA_TEST_PG_DSN` is set it is used as is
(a server someone else runs); otherwise the distribution's PostgreSQL binaries
(`pg_ctl` on PATH, or `/usr/lib/postgresql/<version>/bin`) start a new cluster in a
temporary directory on a free loopback port, with trust authentication and durability
settings off (fsync, synchronous commit: a test server need not survive power loss).
It is stopped and its directory removed when the context ends. Run as root, the server
runs as the `postgres` system user (PostgreSQL refuses to run as root).

`local_postgres()` always starts a server of its own and gives a `LocalPostgres`, which
a test can stop, start and restart (to show what survives a server restart) without
disturbing the session's shared server.

When no server can be had, `PostgresUnavailable` says why; `require_postgres` turns
that into a skip outside CI and a failure in CI (`CI` set), where nothing may skip for
want of a server.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "DSN_ENV",
    "Backends",
    "LocalPostgres",
    "PostgresUnavailable",
    "find_postgres_bin",
    "local_postgres",
    "require_postgres",
    "throwaway_postgres",
]

DSN_ENV = "AUTOMATA_TEST_PG_DSN"
_START_TIMEOUT_SECONDS = 60


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be used here; the message says why and what to do."""


def find_postgres_bin() -> Path | None:
    """The folder holding `pg_ctl` and `initdb`: PATH first, then the newest
    `/usr/lib/postgresql/<version>/bin`; None when neither has them."""
    on_path = shutil.which("pg_ctl")
    if on_path is not None and shutil.which("initdb") is not None:
        return Path(on_path).resolve().parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
    )
    return versions[-1].parent if versions else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _server_user() -> str | None:
    """The system user to run the server as: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError as missing:
        raise PostgresUnavailable(
            "running as root and there is no 'postgres' system user to run the server as "
            "(install the distribution's postgresql package)"
        ) from missing
    return "postgres"


def _run(command: list[str], user: str | None, log: Path) -> None:
    with log.open("ab") as sink:
        done = subprocess.run(
            command, user=user, stdout=sink, stderr=subprocess.STDOUT, check=False
        )
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:]
        raise PostgresUnavailable(f"{Path(command[0]).name} failed ({done.returncode}):\n{tail}")


@dataclasses.dataclass(frozen=True)
class LocalPostgres:
    """A PostgreSQL server started here, in its own data directory, which a test may
    stop, start and restart (`pg_ctl`'s shutdown modes: "smart", "fast", "immediate")."""

    dsn: str
    data: Path
    binaries: Path
    user: str | None
    options: str
    log: Path

    def _pg_ctl(self, *arguments: str) -> None:
        _run(
            [str(self.binaries / "pg_ctl"), "-D", str(self.data), *arguments],
            self.user,
            self.log.with_name("pg_ctl.log"),
        )

    def start(self) -> None:
        """Start the server (again); returns once it accepts connections."""
        self._pg_ctl(
            "-l",
            str(self.log),
            "-o",
            self.options,
            "-w",
            "-t",
            str(_START_TIMEOUT_SECONDS),
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server with shutdown `mode`; returns once it is down."""
        self._pg_ctl("-m", mode, "-w", "-t", str(_START_TIMEOUT_SECONDS), "stop")

    def restart(self, mode: str = "fast") -> None:
        """Stop the server with shutdown `mode` and start it again."""
        self.stop(mode)
        self.start()


@contextlib.contextmanager
def local_postgres(*, synchronous_commit: bool = False) -> Iterator[LocalPostgres]:
    """Start a PostgreSQL server of our own (whatever `AUTOMATA_TEST_PG_DSN` says) for
    as long as the context lives. fsync is off (the OS keeps what a killed server
    wrote; only power loss needs fsync); `synchronous_commit` is off unless asked for,
    and must be on when a test kills the server (`stop("immediate")`) and expects every
    acknowledged commit to survive.

    Raises `PostgresUnavailable` when no server can be started (no binaries, or they
    fail: the server's log is in the message)."""
    binaries = find_postgres_bin()
    if binaries is None:
        raise PostgresUnavailable(
            "no PostgreSQL binaries (pg_ctl, initdb) on PATH or in /usr/lib/postgresql; "
            f"install the postgresql package or set {DSN_ENV}"
        )
    user = _server_user()
    root = Path(tempfile.mkdtemp(prefix="automata-pg-"))
    data, log = root / "data", root / "server.log"  # the server writes its own log
    port = _free_port()
    commit = "on" if synchronous_commit else "off"
    options = (
        f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off "
        f"-c synchronous_commit={commit} -c full_page_writes=off -c max_connections=200"
    )
    server = LocalPostgres(
        f"postgresql://automata@127.0.0.1:{port}/postgres", data, binaries, user, options, log
    )
    try:
        if user is not None:
            shutil.chown(root, user=user)
        _run(
            [
                str(binaries / "initdb"),
                "-D",
                str(data),
                "-U",
                "automata",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--locale=C",
            ],
            user,
            root / "initdb.log",
        )
        server.start()
        try:
            yield server
        finally:
            subprocess.run(
                [str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                user=user,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    """Yield the DSN of a PostgreSQL server that lives as long as the context:
    `AUTOMATA_TEST_PG_DSN` when set, else a `local_postgres()` one.

    Raises `PostgresUnavailable` when `AUTOMATA_TEST_PG_DSN` is unset and no server can
    be started (no binaries, or they fail: the server's log is in the message)."""
    given = os.environ.get(DSN_ENV)
    if given:
        yield given
        return
    with local_postgres() as server:
        yield server.dsn


class Backends:
    """A server's backends, seen from an administrator's connection (`dsn`): a store
    given a `named` DSN has connections a test can find and terminate. Needs
    psycopg."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn

    def named(self) -> tuple[str, str]:
        """The server's DSN with an application name of its own, and that name."""
        name = f"automata-{uuid.uuid4().hex[:12]}"
        from psycopg.conninfo import make_conninfo

        return make_conninfo(self.dsn, application_name=name), name

    def terminate(self, application_name: str) -> int:
        """Terminate every backend of `application_name`, waiting until each is gone,
        and say how many there were."""
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as admin:
            rows = admin.execute(
                "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
                "WHERE application_name = %s AND pid <> pg_backend_pid()",
                (application_name,),
            ).fetchall()
        assert all(row[0] for row in rows)
        return len(rows)

    def terminate_when_sleeping(self, application_name: str, within: float = 20.0) -> None:
        """Wait until a backend of `application_name` sleeps in `pg_sleep`, then
        terminate every backend of that name."""
        deadline = time.monotonic() + within
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as admin:
            while True:
                found = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE application_name = %s AND wait_event = 'PgSleep'",
                    (application_name,),
                ).fetchone()
                if found is not None and found[0]:
                    break
                assert time.monotonic() < deadline, f"no backend of {application_name} slept"
                time.sleep(0.02)
        self.terminate(application_name)


def require_postgres(reason: PostgresUnavailable) -> None:
    """Skip the calling test with `reason` outside CI; fail it in CI (`CI` set), where a
    missing server is a broken setup, not a reason to skip. Needs pytest."""
    import pytest

    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL is required in CI: {reason}")
    pytest.skip(f"no PostgreSQL server: {reason}")
