"""docs/streaming.md is pinned: every rule is cited by a test, and its example runs and
prints what the page says it prints."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "streaming.md"
TESTS = Path(__file__).resolve().parent
PINNING_FILES = sorted(
    {
        *TESTS.glob("test_streaming*.py"),
        *TESTS.glob("test_subagents*.py"),
        *TESTS.glob("test_accumulator*.py"),
        *(ROOT / "examples" / "sse_server" / "tests").glob("test_*.py"),
    }
)
RULE = re.compile(r"\*\*([A-Z]{1,2}\d+)\.\*\*")
# S, A and P are the old tags of ST, SA and NS: a test still citing one is stale.
CITATION = re.compile(r"\b((?:ST|SA|NS|[SOFBRCAPM])\d+)\b")


def documented_rules() -> list[str]:
    return RULE.findall(DOC.read_text(encoding="utf-8"))


def cited_rules() -> dict[str, list[str]]:
    """Rule tag -> the tests whose docstrings cite it."""
    cited: dict[str, list[str]] = {}
    for path in PINNING_FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test_"
            ):
                for tag in CITATION.findall(ast.get_docstring(node) or ""):
                    cited.setdefault(tag, []).append(f"{path.name}::{node.name}")
    return cited


def test_the_doc_states_its_rules_under_unique_tags() -> None:
    rules = documented_rules()
    assert len(rules) > 30
    assert len(rules) == len(set(rules))


def test_every_rule_of_the_doc_is_pinned_by_a_test() -> None:
    cited = cited_rules()
    assert [rule for rule in documented_rules() if rule not in cited] == []


def test_every_rule_a_test_cites_exists_in_the_doc() -> None:
    documented = set(documented_rules())
    stale = {tag: tests for tag, tests in cited_rules().items() if tag not in documented}
    assert stale == {}


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
