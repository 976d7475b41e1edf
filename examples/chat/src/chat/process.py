"""The app in a process of its own, for tests and the screenshot script: start it on a
free loopback port, stop it with a signal, start it again on the same database."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

__all__ = ["ChatProcess", "free_port"]


def free_port() -> int:
    """A TCP port of 127.0.0.1 nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ChatProcess:
    """`python -m chat` on `database`, serving http://127.0.0.1:<port>. Its output goes
    to `log` (appended across restarts). `start()` returns once the page answers."""

    def __init__(
        self,
        database: Path | str,
        log: Path,
        *,
        pace: float = 0.02,
        lease_ttl: float = 2.0,
        port: int | None = None,
        schema: str | None = None,
    ) -> None:
        self.database = str(database)
        self.log = log
        self.pace = pace
        self.lease_ttl = lease_ttl
        self.schema = schema
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, *, timeout: float = 30.0) -> None:
        """Start the server and wait until it serves the page; `RuntimeError` (with
        the log's tail) when it exits or does not answer within `timeout` seconds."""
        command = [
            sys.executable,
            "-m",
            "chat",
            "--database",
            self.database,
            "--port",
            str(self.port),
            "--pace",
            str(self.pace),
            "--lease-ttl",
            str(self.lease_ttl),
            *(["--schema", self.schema] if self.schema else []),
        ]
        with self.log.open("ab") as out:
            self._process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ}
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the chat server exited:\n{self.tail()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=1):
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        self.stop(signal.SIGKILL)
        raise RuntimeError(f"the chat server did not answer in {timeout}s:\n{self.tail()}")

    @property
    def pid(self) -> int:
        """The running server's process id; `RuntimeError` when it is not running."""
        if self._process is None:
            raise RuntimeError("the chat server is not running")
        return self._process.pid

    def stop(self, how: signal.Signals = signal.SIGTERM, *, timeout: float = 15.0) -> int:
        """Send `how` to the server and wait for it to exit; its exit status."""
        process, self._process = self._process, None
        if process is None:
            return 0
        process.send_signal(how)
        try:
            return process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait()

    def tail(self, lines: int = 40) -> str:
        """The last lines of the server's output."""
        if not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
