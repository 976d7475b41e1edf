"""docs/eval.md is pinned: its rules are tagged E1, E2, ... in order, every rule is cited
by a test of this package, and every citation names a rule."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "eval.md"
TESTS = Path(__file__).resolve().parent
RULE = re.compile(r"\*\*(E\d+)\.\*\*")
CITATION = re.compile(r"\b(E\d+)\b")


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
    assert rules == [f"E{n}" for n in range(1, len(rules) + 1)]
    assert len(rules) >= 20


def test_every_rule_is_pinned_by_a_test() -> None:
    cited = cited_rules()
    unpinned = [rule for rule in documented_rules() if rule not in cited]
    assert unpinned == []


def test_every_citation_names_a_documented_rule() -> None:
    rules = set(documented_rules())
    stray = {tag: tests for tag, tests in cited_rules().items() if tag not in rules}
    assert stray == {}


def test_the_case_file_shown_in_the_doc_loads(tmp_path: Path) -> None:
    """The doc's YAML example is a valid case file, defaults applied."""
    from automata.eval import Difficulty, load_cases

    [block] = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    path = tmp_path / "eval_weather.yaml"
    path.write_text(block, encoding="utf-8")
    paris, report = load_cases(path)
    assert (paris.agent, paris.tier, paris.smoke) == ("forecaster", "regression", True)
    assert paris.expect.required_args == {"weather": {"city": "Paris"}}
    assert report.difficulty is Difficulty.HARD
    assert report.expect.files["forecast.md"].matches == r"\d+ ?°C"
