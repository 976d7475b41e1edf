"""Helpers for the sandbox tests: a root folder the jail's user can use, a Python it can
run, and a look at the host's process table for anything a call left behind.

The bubblewrap tests never skip in CI (env CI=true) for want of `bwrap`: `.ci/run`
installs it, and its absence there fails the test. Elsewhere they skip, saying why.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from automata.tools import CommandBackend


def require_bubblewrap() -> None:
    """Fail in CI, skip elsewhere, when bubblewrap or prlimit is missing."""
    missing = [name for name in ("bwrap", "prlimit") if shutil.which(name, path=os.defpath) is None]
    if not missing:
        return
    reason = f"{' and '.join(missing)} not installed (Debian packages bubblewrap, util-linux)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}: .ci/run installs it, CI may not skip these tests")
    pytest.skip(reason)


def jail_python() -> str:
    """A Python interpreter the jail's user can execute: the test's own, unless the tests
    run as root (programs then run as `nobody`, who cannot reach a Python under /root)."""
    if os.geteuid() != 0:
        return sys.executable
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.access(candidate, os.X_OK):
            return candidate
    pytest.fail("no system python3 for the jail's user (nobody) to run")


def make_root(backend: CommandBackend, *, under: str | None = None) -> Iterator[Path]:
    """A fresh folder below `under` (default: the system's temporary folder; every user
    may pass through either), handed to the jail's user, removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="automata-jail-", dir=under))
    backend.make_writable(root)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def marker() -> str:
    """A word to put on a test program's command line, to find its processes by."""
    return f"automata-jail-{uuid.uuid4().hex}"


def survivors(word: str, *, settle: float = 1.0) -> list[int]:
    """Pids of the host's live processes whose command line holds `word`, once those
    being killed have had `settle` seconds to go."""
    deadline = time.monotonic() + settle
    while True:
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                command = Path(f"/proc/{name}/cmdline").read_bytes()
                state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if word.encode() in command and state != "Z":
                found.append(int(name))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
