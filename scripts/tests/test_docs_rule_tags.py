"""A rule tag (`**T3.**`) names one rule of one page across the whole project, so a test
citing it, or a page referring to it, is never ambiguous."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULE = re.compile(r"\*\*([A-Z]+)\d+\.\*\*")


def pages_by_tag() -> dict[str, list[str]]:
    """Tag letters (`T`, `OR`, ...) -> the docs pages stating rules under them."""
    found: dict[str, list[str]] = {}
    for page in sorted((ROOT / "docs").glob("*.md")):
        for letters in sorted(set(RULE.findall(page.read_text(encoding="utf-8")))):
            found.setdefault(letters, []).append(page.name)
    return found


def test_the_docs_state_tagged_rules() -> None:
    assert len(pages_by_tag()) > 10


def test_each_rule_tag_belongs_to_one_page() -> None:
    shared = {tag: pages for tag, pages in pages_by_tag().items() if len(pages) > 1}
    assert shared == {}
