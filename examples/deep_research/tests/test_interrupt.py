"""Ctrl+C ends `python -m deep_research` quietly, with exit status 130 and no
traceback, whether it comes while the modules load or while the team works. Each test
runs the real command in a subprocess and sends it SIGINT at a known moment."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import IO

import pytest

from .test_cli import clean_environment

pytestmark = pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")

INTERRUPTED = "deep_research: interrupted\n"
DEMO = [sys.executable, "-m", "deep_research", "--provider", "demo"]


def read_until(stream: IO[str], seen: Callable[[str], bool], timeout: float = 30) -> str:
    """Lines from `stream` up to and including the first one `seen` accepts."""
    deadline = time.monotonic() + timeout
    lines: list[str] = []
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        lines.append(line)
        if seen(line):
            return "".join(lines)
    raise AssertionError(f"never saw the line waited for; got:\n{''.join(lines)}")


def test_ctrl_c_while_the_modules_load_exits_quietly() -> None:
    # -X importtime writes a line to stderr as each module finishes loading, so the
    # signal is sent once automata.core has loaded and the tools, rich and httpx have not.
    process = subprocess.Popen(
        [sys.executable, "-X", "importtime", *DEMO[1:], "x"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_environment(),
    )
    assert process.stderr is not None
    loading = read_until(process.stderr, lambda line: line.rstrip().endswith(" automata.core"))
    process.send_signal(signal.SIGINT)
    stdout, rest = process.communicate(timeout=30)
    assert process.returncode == 130, loading + rest
    assert stdout == ""
    assert rest.endswith(INTERRUPTED)
    assert "Traceback" not in rest
    assert "researching" not in rest  # the run never started


def test_ctrl_c_during_the_run_exits_quietly() -> None:
    process = subprocess.Popen(
        [*DEMO, "--pace", "30", "x"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_environment(),
    )
    assert process.stderr is not None
    started = read_until(process.stderr, lambda line: line.startswith("researching"))
    process.send_signal(signal.SIGINT)
    stdout, rest = process.communicate(timeout=30)
    assert process.returncode == 130
    assert stdout == ""
    assert started + rest == "researching 'x' with demo\n" + INTERRUPTED


def test_ctrl_c_during_the_live_view_exits_quietly() -> None:
    # stderr is a terminal here, so the live view draws; the signal comes once it has.
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [*DEMO, "--pace", "30", "x"],
        stdout=subprocess.PIPE,
        stderr=terminal,
        env={**clean_environment(), "TERM": "xterm", "COLUMNS": "120"},
    )
    os.close(terminal)
    screen = b""
    deadline = time.monotonic() + 30
    while b"Deep research:" not in screen and time.monotonic() < deadline:
        screen += os.read(controller, 4096)
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal closes with the process
            break
        if not chunk:
            break
        screen += chunk
    os.close(controller)
    assert process.stdout is not None
    assert process.stdout.read() == b""
    process.stdout.close()
    text = screen.decode(errors="replace")
    assert process.returncode == 130
    assert "Deep research:" in text
    assert text.replace("\r\n", "\n").endswith(INTERRUPTED)
    assert "Traceback" not in text
