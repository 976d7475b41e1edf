"""docs/temporal.md is pinned: every rule (TP1, TP2, ...) is cited by a test of the
extension, and every citation names a rule the page states."""

from __future__ import annotations

from automata_docs_testing import RuleBook

BOOK = RuleBook.of("docs/temporal.md", __file__)


def test_the_doc_states_its_rules_in_order_each_pinned_by_a_test() -> None:
    """The page states its rules numbered from 1 in order, a test here cites each of
    them, and every citation and reference names a rule of the page."""
    BOOK.check(at_least=15)
