"""docs/threads.md is pinned: every rule (T1, T2, ...) is cited by a test of the
thread service, and every citation names a rule the page states."""

from __future__ import annotations

import json

from automata_docs_testing import RuleBook

from automata.core import Usage
from automata.threads import ThreadView

BOOK = RuleBook.of("docs/threads.md", __file__)


def test_the_doc_states_its_rules_in_order_each_pinned_by_a_test() -> None:
    """The page states its rules numbered from 1 in order, a test here cites each of
    them, and every citation and reference names a rule of the page."""
    BOOK.check(at_least=20)


def test_a_view_serializes_to_json_ready_data() -> None:
    """T14: `to_dict` gives what an HTTP response or an event carries."""
    view = ThreadView(
        thread_id="th_1",
        parent_id=None,
        title="t",
        status="idle",
        items=(),
        queue=(),
        usage=Usage(input_tokens=3),
        version=1,
        current_turn=None,
    )
    data = json.loads(json.dumps(view.to_dict()))
    assert data["usage"]["input_tokens"] == 3
    assert data["items"] == []
