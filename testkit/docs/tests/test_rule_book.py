"""A rule book finds a doc's rules and their citations, and names each problem."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from automata_docs_testing import RULE_PINNINGS, RuleBook, RulePinning

REPOSITORY = Path(__file__).resolve().parents[3]


def book(
    tmp_path: Path,
    doc: str,
    tests: str,
    prefixes: tuple[str, ...] = ("G",),
    **options: tuple[str, ...],
) -> RuleBook:
    (tmp_path / "guide.md").write_text(doc, encoding="utf-8")
    (tmp_path / "test_guide.py").write_text(tests, encoding="utf-8")
    return RuleBook(tmp_path / "guide.md", prefixes, (tmp_path / "test_guide.py",), **options)


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
    ("doc", "tests", "named"),
    [
        ("- **G1.** one\n- **G3.** three\n", PINNED, "not numbered"),
        ("- **G1.** one\n- **G2.** two\n- **G3.** three\n", PINNED, "no test cites: ['G3']"),
        ("- **G1.** one\n", PINNED, "citations of rules the doc lacks"),
        ("- **G1.** one\n- **G2.** two, see **G7**\n", PINNED, "references to rules"),
    ],
)
def test_each_problem_is_named(tmp_path: Path, doc: str, tests: str, named: str) -> None:
    with pytest.raises(AssertionError, match=re.escape(named)):
        book(tmp_path, doc, tests).check()


def test_too_few_rules_fail(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="expected at least 5"):
        book(tmp_path, "- **G1.** one\n- **G2.** two\n", PINNED).check(at_least=5)


TWO_PREFIXES_DOC = "- **G1.** one\n- **HX1.** x\n- **G2.** two\n- **HX2.** y, see **G2**\n"


def test_a_page_may_state_rules_under_several_prefixes_each_numbered_from_one(
    tmp_path: Path,
) -> None:
    tests = PINNED + 'def test_two() -> None:\n    """HX1, HX2."""\n'
    rules = book(tmp_path, TWO_PREFIXES_DOC, tests, ("G", "HX"))
    rules.check(at_least=4)
    assert rules.rules() == ["G1", "HX1", "G2", "HX2"]


def test_a_prefix_out_of_order_is_named_with_its_rules(tmp_path: Path) -> None:
    doc = TWO_PREFIXES_DOC.replace("**HX2.**", "**HX3.**")
    tests = PINNED + 'def test_two() -> None:\n    """HX1, HX3."""\n'
    with pytest.raises(AssertionError, match=re.escape("in order: {'HX': ['HX1', 'HX3']}")):
        book(tmp_path, doc, tests, ("G", "HX")).check()


def test_a_tags_letters_are_matched_whole(tmp_path: Path) -> None:
    """A citation of GX1 is no citation of G1, and **GX1.** states no rule G1."""
    tests = 'def test_one() -> None:\n    """GX1 and GX2."""\n'
    rules = book(tmp_path, "- **G1.** one\n- **GX1.** other page's\n", tests)
    assert rules.rules() == ["G1"]
    assert rules.citations() == {}
    with pytest.raises(AssertionError, match=re.escape("no test cites: ['G1']")):
        rules.check()


def test_a_citation_of_a_retired_tag_is_named_stale(tmp_path: Path) -> None:
    tests = PINNED + 'def test_old() -> None:\n    """K4, the old name of G2."""\n'
    rules = book(tmp_path, "- **G1.** one\n- **G2.** two\n", tests, retired=("K",))
    with pytest.raises(
        AssertionError, match=re.escape("retired tags ['K']: {'K4': ['test_guide.py::test_old']}")
    ):
        rules.check()


def test_only_the_functions_named_as_citing_pin_rules(tmp_path: Path) -> None:
    checks = 'def check_one() -> None:\n    """G1."""\n\ndef helper() -> None:\n    """G1."""\n'
    by_tests = book(tmp_path, "- **G1.** one\n", checks)
    assert by_tests.citations() == {}
    by_checks = book(tmp_path, "- **G1.** one\n", checks, citing=("check_",))
    assert by_checks.citations() == {"G1": ["test_guide.py::check_one"]}
    by_checks.check()


@pytest.mark.parametrize(
    ("prefixes", "retired"), [((), ()), (("g",), ()), (("G",), ("G",)), (("G1",), ())]
)
def test_a_book_needs_capital_letter_prefixes_none_of_them_retired(
    tmp_path: Path, prefixes: tuple[str, ...], retired: tuple[str, ...]
) -> None:
    with pytest.raises(ValueError, match="prefix"):
        RuleBook(tmp_path / "guide.md", prefixes, (), retired=retired)


def test_a_pinning_gathers_its_tests_from_every_glob(tmp_path: Path) -> None:
    for folder in ("a/tests", "b/tests"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "test_x.py").write_text("", encoding="utf-8")
        (tmp_path / folder / "helper.py").write_text("", encoding="utf-8")
    pinning = RulePinning("guide.md", ("G",), ("a/tests/test_*.py", "b/tests/test_*.py"))
    found = RuleBook.pinned_by(pinning, tmp_path)
    assert found.doc == tmp_path / "guide.md"
    assert found.tests == (tmp_path / "a/tests/test_x.py", tmp_path / "b/tests/test_x.py")


def test_a_registered_book_is_found_from_a_test_file_taking_part_in_it() -> None:
    acp = str(REPOSITORY / "extensions/acp/tests/test_protocols_acp_docs.py")
    mcp = str(REPOSITORY / "extensions/mcp/tests/test_protocols_docs.py")
    assert RuleBook.of("docs/protocols.md", acp).prefixes == ("A",)
    assert RuleBook.of("docs/protocols.md", mcp).prefixes == ("P",)
    anthropic = REPOSITORY / "extensions/anthropic/tests/test_tool_arguments.py"
    streaming = RuleBook.of("docs/streaming.md", str(anthropic))
    assert streaming.retired == ("S", "A", "P")
    assert REPOSITORY / "examples/sse_server/tests/test_sse_server.py" in streaming.tests
    assert REPOSITORY / "packages/core/tests/test_streaming_docs.py" in streaming.tests


def test_an_unregistered_page_or_a_file_of_no_pinning_is_refused() -> None:
    with pytest.raises(LookupError, match=re.escape("docs/nowhere.md is not a registered")):
        RuleBook.of("docs/nowhere.md", __file__)
    with pytest.raises(
        LookupError, match=re.escape("test_rule_book.py takes part in 0 of the pinnings")
    ):
        RuleBook.of("docs/threads.md", __file__)


def test_the_registry_names_pages_that_exist() -> None:
    assert all((REPOSITORY / pinning.page).exists() for pinning in RULE_PINNINGS)
