"""docs/threads.md is pinned: every rule (T1, T2, ...) is cited by a test of the
thread service, and every citation names a rule the page states."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from automata.core import Usage
from automata.threads import ThreadView

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "threads.md"
TESTS = Path(__file__).resolve().parent
RULE = re.compile(r"\*\*(T\d+)\.\*\*")
CITATION = re.compile(r"\b(T\d+)\b")


def documented_rules() -> list[str]:
    return RULE.findall(DOC.read_text(encoding="utf-8"))


def cited_rules() -> dict[str, list[str]]:
    """Rule tag -> the tests whose docstrings cite it."""
    cited: dict[str, list[str]] = {}
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test_"
            ):
                for tag in CITATION.findall(ast.get_docstring(node) or ""):
                    cited.setdefault(tag, []).append(f"{path.name}::{node.name}")
    return cited


def test_the_doc_states_its_rules_under_unique_tags_numbered_in_order() -> None:
    rules = documented_rules()
    assert rules == [f"T{n}" for n in range(1, len(rules) + 1)]


def test_every_rule_is_pinned_by_a_test() -> None:
    cited = cited_rules()
    missing = [rule for rule in documented_rules() if rule not in cited]
    assert missing == []


def test_every_citation_names_a_rule_of_the_doc() -> None:
    rules = set(documented_rules())
    unknown = {tag: where for tag, where in cited_rules().items() if tag not in rules}
    assert unknown == {}


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
