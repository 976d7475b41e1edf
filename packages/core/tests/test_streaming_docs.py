"""docs/streaming.md is pinned: every rule is cited by a test, and its example runs and
prints what the page says it prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from automata_docs_testing import RuleBook

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "streaming.md"
BOOK = RuleBook.of("docs/streaming.md", __file__)


def test_the_doc_states_its_rules_in_order_each_pinned_by_a_test() -> None:
    """The page states its rules under each prefix numbered from 1 in order, a test
    cites each of them, no test cites a retired tag, and every citation and reference
    names a rule of the page."""
    BOOK.check(at_least=31)


def code_block(language: str, after: str) -> str:
    """The first fenced block of `language` after the heading `after`."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index(after) :]
    match = re.search(rf"```{language}\n(.*?)```", section, re.DOTALL)
    assert match is not None, f"no {language} block after {after!r}"
    return match.group(1)


def test_the_docs_example_runs_and_prints_what_the_doc_shows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    heading = "## 10. Example: folding a stream into a view"
    code = code_block("python", heading)
    exec(compile(code, str(DOC), "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == code_block("text", heading)
