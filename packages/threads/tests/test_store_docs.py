"""docs/threads-storage.md is pinned: its rules S1-S8 are the rules of the store
interface's docstring, and each has conformance checks named after it."""

from __future__ import annotations

import re
from pathlib import Path

from automata.threads import store, testing

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "threads-storage.md"
RULE = re.compile(r"\*\*(S\d+)\.")
CHECK = re.compile(r"^check_(s\d+)_")


def documented_rules() -> list[str]:
    return RULE.findall(DOC.read_text(encoding="utf-8"))


def interface_rules() -> list[str]:
    return RULE.findall(store.__doc__ or "")


def checked_rules() -> set[str]:
    return {
        match.group(1).upper()
        for name in testing.__all__
        if (match := CHECK.match(name)) is not None
    }


def test_the_doc_states_rules_s1_to_s8_once_each_in_order() -> None:
    assert documented_rules() == [f"S{n}" for n in range(1, 9)]


def test_the_doc_and_the_interface_docstring_state_the_same_rules() -> None:
    assert interface_rules() == documented_rules()


def test_every_rule_has_a_conformance_check_and_every_check_a_rule() -> None:
    assert checked_rules() == set(documented_rules())


def test_every_check_runs_in_the_suite_and_as_a_test_method() -> None:
    checks = {name for name in testing.__all__ if CHECK.match(name)}
    in_suite = {check.__name__ for check in testing.ALL_CHECKS}
    methods = {name.replace("test_", "check_", 1) for name in vars(testing.StoreConformance)}
    assert checks - in_suite == {"check_s8_incompatible_schema_fails_closed"}
    assert checks <= methods


def test_the_doc_links_only_to_files_in_the_repository() -> None:
    links = re.findall(r"\]\(([^)#]+)\)", DOC.read_text(encoding="utf-8"))
    assert links
    assert [link for link in links if not (DOC.parent / link).resolve().exists()] == []
