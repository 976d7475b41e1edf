"""docs/protocols.md (its ACP part) is pinned: every rule is cited by a test of this folder and
every citation names a rule."""

from __future__ import annotations

import re
from pathlib import Path

from automata_docs_testing import RuleBook

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "protocols.md"
BOOK = RuleBook.of("docs/protocols.md", __file__)


def test_the_doc_states_its_rules_in_order_each_pinned_by_a_test() -> None:
    """The page states its rules numbered from 1 in order, a test here cites each of
    them, and every citation and reference names a rule of the page."""
    BOOK.check(at_least=9)


def test_the_doc_names_only_files_in_the_repository() -> None:
    text = DOC.read_text(encoding="utf-8")
    paths = re.findall(r"`((?:packages|docs|extensions|examples)/[^`]*)`", text)
    assert [path for path in paths if not (ROOT / path).exists()] == []
