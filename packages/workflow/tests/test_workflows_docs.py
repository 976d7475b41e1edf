"""docs/workflows.md is pinned: every rule (W1, W2, ...) is cited by a test of the
workflow package, and every citation names a rule the page states."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "workflows.md"
TESTS = Path(__file__).resolve().parent
RULE = re.compile(r"\*\*(W\d+)\.\*\*")
CITATION = re.compile(r"\b(W\d+)\b")


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
    assert rules
    assert rules == [f"W{n}" for n in range(1, len(rules) + 1)]


def test_every_rule_is_pinned_by_a_test() -> None:
    cited = cited_rules()
    missing = [rule for rule in documented_rules() if rule not in cited]
    assert missing == []


def test_every_citation_names_a_rule_of_the_doc() -> None:
    rules = set(documented_rules())
    unknown = {tag: where for tag, where in cited_rules().items() if tag not in rules}
    assert unknown == {}
