"""A doc's tagged rules, and the tests that pin them.

A rule is stated as `**<prefix><n>.**` (for example `**T3.**`), or with its title as
`**<prefix><n>: <title>.**` (`**SC3: compliance.**`), and referred to as `**T3**`; a
test pins it by citing the tag in its docstring, or in its name (`test_sc3_...`: the tag
in lower case between underscores). A page may state rules
under several prefixes (`ST1`, `O1`, ...); a tag's letters are matched whole, so `ST3`
is never read as `S3`. `RuleBook.check` fails with the exact problem when a prefix's
rules are not numbered 1, 2, 3... in order, when a rule is cited by no test, when a
test cites a rule the doc lacks or a retired tag, or when the doc refers to a rule it
does not state.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from automata_docs_testing._root import repository_root
from automata_docs_testing._rule_pinnings import RULE_PINNINGS, RulePinning


@dataclass(frozen=True)
class RuleBook:
    """The rules of `doc` tagged with `prefixes`, pinned by the docstrings of the
    functions named `citing*` in `tests`; a citation of a `retired` prefix is stale."""

    doc: Path
    prefixes: tuple[str, ...]
    tests: tuple[Path, ...]
    retired: tuple[str, ...] = ()
    citing: tuple[str, ...] = ("test_",)

    def __post_init__(self) -> None:
        letters = (*self.prefixes, *self.retired)
        if not self.prefixes or not all(re.fullmatch(r"[A-Z]+", p) for p in letters):
            raise ValueError(f"prefixes must be capital letters, at least one: {self}")
        if set(self.prefixes) & set(self.retired):
            raise ValueError(f"a prefix cannot be both live and retired: {self}")

    @classmethod
    def of(cls, page: str, test_file: str) -> RuleBook:
        """The book of contract page `page` (a path from the repository root) that
        `test_file` (pass `__file__`) takes part in, as `RULE_PINNINGS` registers it.

        Raises `LookupError` when the page is not registered, or when none (or more
        than one) of its pinnings cites from `test_file`."""
        here = Path(test_file).resolve()
        root = repository_root(here.parent)
        pinnings = [pinning for pinning in RULE_PINNINGS if pinning.page == page]
        if not pinnings:
            raise LookupError(f"{page} is not a registered contract page (see RULE_PINNINGS)")
        books = [cls.pinned_by(pinning, root) for pinning in pinnings]
        taking_part = [book for book in books if here in book.tests]
        if len(taking_part) != 1:
            globs = [pinning.cited_in for pinning in pinnings]
            raise LookupError(
                f"{here.name} takes part in {len(taking_part)} of the pinnings of {page} "
                f"(cited in {globs}); expected exactly one"
            )
        return taking_part[0]

    @classmethod
    def pinned_by(cls, pinning: RulePinning, root: Path) -> RuleBook:
        """The book `pinning` describes, in the repository at `root`."""
        tests = {path for pattern in pinning.cited_in for path in root.glob(pattern)}
        return cls(
            root / pinning.page,
            pinning.prefixes,
            tuple(sorted(tests)),
            pinning.retired,
            pinning.citing,
        )

    def _pattern(self, template: str, prefixes: tuple[str, ...]) -> re.Pattern[str]:
        # Longest first, so that an alternation never stops at a shorter prefix.
        letters = "|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True))
        return re.compile(template.format(tag=rf"(?:{letters})\d+"))

    def rules(self) -> list[str]:
        """The rules the doc states, in the order it states them."""
        text = self.doc.read_text(encoding="utf-8")
        return self._pattern(r"\*\*({tag})(?:\.\*\*|: )", self.prefixes).findall(text)

    def references(self) -> set[str]:
        """The rules the doc refers to (`**T3**`)."""
        text = self.doc.read_text(encoding="utf-8")
        return set(self._pattern(r"\*\*({tag})\*\*", self.prefixes).findall(text))

    def citations(self) -> dict[str, list[str]]:
        """Tag (of the book's prefixes or its retired ones) -> the tests
        (`file::function`) whose docstrings or names cite it."""
        citation = self._pattern(r"\b({tag})\b", (*self.prefixes, *self.retired))
        whole_tag = self._pattern(r"{tag}", (*self.prefixes, *self.retired))
        cited: dict[str, list[str]] = {}
        for path in self.tests:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    node.name.startswith(self.citing)
                ):
                    named = [
                        token.upper()
                        for token in node.name.split("_")[1:]
                        if token.islower() and whole_tag.fullmatch(token.upper())
                    ]
                    tags = {*citation.findall(ast.get_docstring(node) or ""), *named}
                    for tag in sorted(tags):
                        cited.setdefault(tag, []).append(f"{path.name}::{node.name}")
        return cited

    def _is_retired(self, tag: str) -> bool:
        return tag.rstrip("0123456789") in self.retired

    def _misnumbered(self, rules: list[str]) -> dict[str, list[str]]:
        """Prefix -> its rules, for each prefix not numbered 1, 2, 3... in order."""
        found: dict[str, list[str]] = {}
        for prefix in self.prefixes:
            mine = [rule for rule in rules if rule.rstrip("0123456789") == prefix]
            if mine != [f"{prefix}{n}" for n in range(1, len(mine) + 1)]:
                found[prefix] = mine
        return found

    def check(self, *, at_least: int = 1) -> None:
        """Raise `AssertionError` naming every problem found (see the module)."""
        rules = self.rules()
        cited = self.citations()
        problems: list[str] = []
        if len(rules) < at_least:
            problems.append(f"{len(rules)} rules stated, expected at least {at_least}")
        misnumbered = self._misnumbered(rules)
        if misnumbered:
            problems.append(f"rules not numbered 1, 2, 3... in order: {misnumbered}")
        unpinned = [rule for rule in rules if rule not in cited]
        if unpinned:
            problems.append(f"rules no test cites: {unpinned}")
        old = {tag: tests for tag, tests in cited.items() if self._is_retired(tag)}
        if old:
            problems.append(f"citations of retired tags {list(self.retired)}: {old}")
        stale = {
            tag: tests
            for tag, tests in cited.items()
            if tag not in set(rules) and not self._is_retired(tag)
        }
        if stale:
            problems.append(f"citations of rules the doc lacks: {stale}")
        dangling = sorted(self.references() - set(rules))
        if dangling:
            problems.append(f"references to rules the doc lacks: {dangling}")
        if problems:
            raise AssertionError(f"{self.doc.name}: " + "; ".join(problems))
