"""The example's server in a process of its own, for the browser tests and the
screenshot script."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from chat.process import free_port

__all__ = ["running_server"]


@contextlib.contextmanager
def running_server(log: Path, *, pace: float = 0.01, timeout: float = 30.0) -> Iterator[str]:
    """Run `python -m ui_frontends` on a free loopback port (its output appended to
    `log`) and yield its base URL once it answers; it is stopped (SIGTERM) when the
    context ends. `RuntimeError`, with the log's tail, when it exits or does not
    answer within `timeout` seconds."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "ui_frontends", "--port", str(port), "--pace", str(pace)]
    with log.open("ab") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
                raise RuntimeError(f"the server did not start:\n{tail}")
            try:
                with urllib.request.urlopen(url + "/", timeout=1):
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
