"""A rule tag (`**T3.**`) names one rule of one page across the whole project, so a test
citing it, or a page referring to it, is never ambiguous; and every page stating tagged
rules is registered in `RULE_PINNINGS`, so no contract page goes unpinned."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from automata_docs_testing import RULE_PINNINGS, RuleBook, RulePinning

ROOT = Path(__file__).resolve().parents[2]
RULE = re.compile(r"\*\*([A-Z]+)\d+(?:\.\*\*|: )")  # `**T3.**` or `**SC3: title.**`
REFERENCE = re.compile(r"\*\*([A-Z]+\d+)\*\*")
# Where a page may refer to another page's rules.
REFERRING_PAGES = sorted(
    {*ROOT.glob("*.md"), *ROOT.glob("docs/**/*.md"), *ROOT.glob("*/*/README.md")}
)


def pages_by_tag() -> dict[str, list[str]]:
    """Tag letters (`T`, `OR`, ...) -> the docs pages stating rules under them."""
    found: dict[str, list[str]] = {}
    for page in sorted((ROOT / "docs").glob("*.md")):
        for letters in sorted(set(RULE.findall(page.read_text(encoding="utf-8")))):
            found.setdefault(letters, []).append(page.name)
    return found


def prefixes_stated() -> dict[str, set[str]]:
    """Docs page (`docs/loop.md`) -> the tag letters of the rules it states."""
    found: dict[str, set[str]] = {}
    for letters, pages in pages_by_tag().items():
        for page in pages:
            found.setdefault(f"docs/{page}", set()).add(letters)
    return found


def prefixes_registered() -> dict[str, set[str]]:
    """Docs page -> the tag letters `RULE_PINNINGS` has a pinning for."""
    found: dict[str, set[str]] = {}
    for pinning in RULE_PINNINGS:
        found.setdefault(pinning.page, set()).update(pinning.prefixes)
    return found


def test_the_docs_state_tagged_rules() -> None:
    assert len(pages_by_tag()) > 10


def test_each_rule_tag_belongs_to_one_page() -> None:
    shared = {tag: pages for tag, pages in pages_by_tag().items() if len(pages) > 1}
    assert shared == {}


def test_every_page_stating_tagged_rules_is_pinned_under_exactly_its_prefixes() -> None:
    """A new contract page, or a new prefix on one, fails here until `RULE_PINNINGS`
    says which tests pin it; a registered prefix the page no longer states fails too."""
    stated, registered = prefixes_stated(), prefixes_registered()
    mismatched = {
        page: {"stated": sorted(stated.get(page, ())), "pinned": sorted(registered.get(page, ()))}
        for page in {*stated, *registered}
        if stated.get(page) != registered.get(page)
    }
    assert mismatched == {}


def test_each_prefix_is_registered_once() -> None:
    registered = [prefix for pinning in RULE_PINNINGS for prefix in pinning.prefixes]
    assert sorted(registered) == sorted(set(registered))


@pytest.mark.parametrize(
    "pinning", RULE_PINNINGS, ids=[f"{p.page}:{','.join(p.prefixes)}" for p in RULE_PINNINGS]
)
def test_every_registered_book_holds(pinning: RulePinning) -> None:
    """Each page's rules are numbered in order and cited by a test, and each citation
    and reference names one of them, whichever package's tests run."""
    book = RuleBook.pinned_by(pinning, ROOT)
    assert book.tests, f"no file matches {pinning.cited_in}"
    book.check()


def test_a_reference_to_another_pages_rule_names_a_rule_that_page_states() -> None:
    """`**L12**` on any page or README resolves, for every registered prefix."""
    stated = {
        rule for pinning in RULE_PINNINGS for rule in RuleBook.pinned_by(pinning, ROOT).rules()
    }
    registered = {prefix for pinning in RULE_PINNINGS for prefix in pinning.prefixes}
    dangling = {
        f"{page.relative_to(ROOT)}: {tag}"
        for page in REFERRING_PAGES
        for tag in REFERENCE.findall(page.read_text(encoding="utf-8"))
        if tag.rstrip("0123456789") in registered and tag not in stated
    }
    assert sorted(dangling) == []
