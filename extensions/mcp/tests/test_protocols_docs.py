"""docs/protocols.md is pinned: every rule is cited by a test of this folder, every
citation names a rule, and the rules are numbered in order; and its MCP programs run
as printed: the client of section 1 uses the tool the server of section 2 serves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from automata_docs_testing import CodeSample, RuleBook, SampleKind, samples_of

BOOK = RuleBook.of("docs/protocols.md", __file__)
ROOT = Path(__file__).resolve().parents[3]


def test_the_doc_states_its_rules_in_order_each_pinned_by_a_test() -> None:
    """The page states its rules numbered from 1 in order, a test here cites each of
    them, and every citation and reference names a rule of the page."""
    BOOK.check(at_least=14)


def mcp_programs() -> tuple[CodeSample, CodeSample]:
    """The page's client program (section 1) and server program (section 2)."""
    client, server = [
        sample
        for sample in samples_of(ROOT, ROOT / "docs" / "protocols.md")
        if sample.kind is SampleKind.EXECUTED_BY_TEST and Path(__file__).name in str(sample.test)
    ]
    return client, server


def test_the_client_program_calls_the_tool_the_server_program_serves(tmp_path: Path) -> None:
    """Saved as calculator.py (its first line names the file), the server program is
    the MCP server the client program starts; the client prints what the page shows."""
    client, server = mcp_programs()
    assert server.example.source.startswith("# calculator.py\n")
    (tmp_path / "calculator.py").write_text(server.example.source, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-c", client.example.source],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == client.expected_output
