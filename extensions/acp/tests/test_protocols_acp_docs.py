"""docs/protocols.md (its ACP part) is pinned: every rule is cited by a test of this folder and
every citation names a rule."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "protocols.md"
TESTS = Path(__file__).resolve().parent
RULE = re.compile(r"\*\*(A\d+)\.\*\*")
REFERENCE = re.compile(r"\*\*(A\d+)\*\*")
CITATION = re.compile(r"\b(A\d+)\b")


def documented_rules() -> list[str]:
    return RULE.findall(DOC.read_text(encoding="utf-8"))


def cited_rules() -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    for path in sorted(TESTS.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test_"
            ):
                for tag in CITATION.findall(ast.get_docstring(node) or ""):
                    cited.setdefault(tag, []).append(f"{path.name}::{node.name}")
    return cited


def test_the_doc_states_its_rules_under_unique_tags_numbered_in_order() -> None:
    rules = documented_rules()
    assert len(rules) >= 9
    assert rules == [f"A{n}" for n in range(1, len(rules) + 1)]


def test_every_rule_of_the_doc_is_pinned_by_a_test() -> None:
    cited = cited_rules()
    assert [rule for rule in documented_rules() if rule not in cited] == []


def test_every_rule_a_test_cites_exists_in_the_doc() -> None:
    documented = set(documented_rules())
    assert {tag: t for tag, t in cited_rules().items() if tag not in documented} == {}


def test_every_rule_the_doc_refers_to_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert set(REFERENCE.findall(text)) <= set(documented_rules())


def test_the_doc_names_only_files_in_the_repository() -> None:
    text = DOC.read_text(encoding="utf-8")
    paths = re.findall(r"`((?:packages|docs|extensions|examples)/[^`]*)`", text)
    assert [path for path in paths if not (ROOT / path).exists()] == []
