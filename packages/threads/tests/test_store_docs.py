"""docs/threads-storage.md is pinned: its rules S1-S8 and RT1-RT5 are the rules of the store
interface's docstring, and each is cited by conformance checks named after it, which
every backend's suite runs; the backend test module it shows passes under pytest."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from automata_docs_testing import RuleBook, SampleKind, samples_of

from automata.threads import store, testing

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "threads-storage.md"
BOOK = RuleBook.of("docs/threads-storage.md", __file__)
# The interface's docstring titles each rule inside the bold: `**S1. Atomic commits.**`.
INTERFACE_RULE = re.compile(r"\*\*((?:S|RT)\d+)\.")
CHECK = re.compile(r"^check_((?:s|rt)\d+)_")


def interface_rules() -> list[str]:
    return INTERFACE_RULE.findall(store.__doc__ or "")


def checked_rules() -> set[str]:
    return {
        match.group(1).upper()
        for name in testing.__all__
        if (match := CHECK.match(name)) is not None
    }


def test_the_doc_states_its_rules_in_order_each_cited_by_a_conformance_check() -> None:
    """The page states its eight store rules and five retention rules once each in
    order, a conformance check cites each of them, and every citation and reference
    names a rule of the page."""
    BOOK.check(at_least=13)
    assert BOOK.rules() == [f"S{n}" for n in range(1, 9)] + [f"RT{n}" for n in range(1, 6)]


def test_the_doc_and_the_interface_docstring_state_the_same_rules() -> None:
    assert interface_rules() == BOOK.rules()


def test_every_rule_has_a_conformance_check_and_every_check_a_rule() -> None:
    assert checked_rules() == set(BOOK.rules())


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


def test_the_backend_test_module_the_doc_shows_passes_every_check_under_pytest(
    tmp_path: Path,
) -> None:
    """The "Writing a backend" sample, saved as a test module and run by pytest (async
    tests in auto mode, no configuration of this repository), passes one test per check."""
    (sample,) = [s for s in samples_of(ROOT, DOC) if s.kind is SampleKind.EXECUTED_BY_TEST]
    (tmp_path / "test_my_store.py").write_text(sample.example.source, encoding="utf-8")
    options = ["-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *options, "test_my_store.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    checks = [name for name in vars(testing.StoreConformance) if name.startswith("test_")]
    assert f"{len(checks)} passed" in done.stdout
