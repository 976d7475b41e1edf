"""Servers under test as real processes: `served.py` under uvicorn on a free loopback
port, waited for until its agent card answers, stopped (or killed) by signal."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

SERVED = Path(__file__).with_name("served.py")
CARD_PATH = "/.well-known/agent-card.json"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class ServerProcess:
    process: subprocess.Popen[bytes]
    url: str

    def kill(self) -> None:
        """SIGKILL: the process ends at once, as in a crash."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def start(kind: str, *args: str, port: int | None = None) -> ServerProcess:
    port = port or free_port()
    env = dict(os.environ, PYTHONPATH=str(SERVED.parent))
    process = subprocess.Popen([sys.executable, str(SERVED), kind, str(port), *args], env=env)
    server = ServerProcess(process, f"http://127.0.0.1:{port}/")
    mounted = "echo/" if kind == "agents" else ""  # the agents server mounts its apps
    probe = server.url + mounted + CARD_PATH.removeprefix("/")
    deadline = time.monotonic() + 60
    with httpx.Client(timeout=1) as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the {kind} server exited with {process.returncode}")
            try:
                if http.get(probe).status_code == 200:
                    return server
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
    server.stop()
    raise RuntimeError(f"the {kind} server did not answer within 60 s")


@contextmanager
def running(kind: str, *args: str) -> Iterator[ServerProcess]:
    server = start(kind, *args)
    try:
        yield server
    finally:
        server.stop()
