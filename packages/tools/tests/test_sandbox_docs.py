"""The jail sample of docs/tools.md ("A jail for commands") runs as pasted, in a fresh
folder the jail's user can pass through, and prints what the page says it prints."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from automata_docs_testing import CodeSample, SampleKind, samples_of

from automata.tools import HostBackend

from ._jail import make_root, require_bubblewrap

ROOT = Path(__file__).resolve().parents[3]


def jail_sample() -> CodeSample:
    (sample,) = [
        sample
        for sample in samples_of(ROOT, ROOT / "docs" / "tools.md")
        if sample.kind is SampleKind.EXECUTED_BY_TEST and Path(__file__).name in str(sample.test)
    ]
    return sample


def test_the_jail_sample_prints_what_the_page_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    """SB4: the workspace is written, a write outside it fails on a read-only file
    system, exactly as the page shows."""
    require_bubblewrap()
    sample = jail_sample()
    escaped = Path("/var/tmp/escaped.txt")
    existed = escaped.exists()
    for folder in make_root(HostBackend()):
        folder.chmod(0o755)
        monkeypatch.chdir(folder)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(sample.example.source, sample.id, "exec"), {"__name__": "__main__"})
        assert printed.getvalue() == sample.expected_output
    assert escaped.exists() == existed
