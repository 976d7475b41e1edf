"""A rule book finds a doc's rules and their citations, and names each problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from automata_docs_testing import RuleBook


def book(tmp_path: Path, doc: str, tests: str) -> RuleBook:
    (tmp_path / "guide.md").write_text(doc, encoding="utf-8")
    (tmp_path / "test_guide.py").write_text(tests, encoding="utf-8")
    return RuleBook(tmp_path / "guide.md", "G", (tmp_path / "test_guide.py",))


PINNED = '''
def test_one() -> None:
    """G1 and G2."""
'''


def test_a_doc_whose_rules_are_all_pinned_passes(tmp_path: Path) -> None:
    rules = book(tmp_path, "- **G1.** one\n- **G2.** two, see **G1**\n", PINNED)
    rules.check(at_least=2)
    assert rules.rules() == ["G1", "G2"]
    assert rules.citations() == {
        "G1": ["test_guide.py::test_one"],
        "G2": ["test_guide.py::test_one"],
    }


@pytest.mark.parametrize(
    ("doc", "tests", "problem"),
    [
        ("- **G1.** one\n- **G3.** three\n", PINNED, "not numbered"),
        ("- **G1.** one\n- **G2.** two\n- **G3.** three\n", PINNED, "no test cites: ['G3']"),
        ("- **G1.** one\n", PINNED, "citations of rules the doc lacks"),
        ("- **G1.** one\n- **G2.** two, see **G7**\n", PINNED, "references to rules"),
    ],
)
def test_each_problem_is_named(tmp_path: Path, doc: str, tests: str, problem: str) -> None:
    with pytest.raises(AssertionError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        book(tmp_path, doc, tests).check()


def test_too_few_rules_fail(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="expected at least 5"):
        book(tmp_path, "- **G1.** one\n- **G2.** two\n", PINNED).check(at_least=5)


def test_a_book_is_found_from_a_test_file() -> None:
    found = RuleBook.of("docs/threads.md", "T", __file__)
    assert found.doc.name == "threads.md"
    assert found.doc.exists()
    assert all(path.name.startswith("test_") for path in found.tests)
