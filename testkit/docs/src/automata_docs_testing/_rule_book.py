"""A doc's tagged rules, and the tests that pin them.

A rule is stated as `**<prefix><n>.**` (for example `**T3.**`) and referred to as
`**T3**`; a test pins it by citing the tag in its docstring. `RuleBook.check` fails
with the exact problem when the rules are not numbered 1, 2, 3... in order, when a rule
is cited by no test, when a test cites a rule the doc lacks, or when the doc refers to a
rule it does not state.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from automata_docs_testing._root import repository_root


@dataclass(frozen=True)
class RuleBook:
    """The rules of `doc` tagged with `prefix`, pinned by the `test_*` functions of
    the files in `tests`."""

    doc: Path
    prefix: str
    tests: tuple[Path, ...]

    @classmethod
    def of(cls, doc: str, prefix: str, test_file: str) -> RuleBook:
        """The book of `doc` (a path from the repository root) pinned by the test files
        next to `test_file` (pass `__file__`)."""
        here = Path(test_file).resolve().parent
        root = repository_root(here)
        return cls(root / doc, prefix, tuple(sorted(here.glob("test_*.py"))))

    def _pattern(self, template: str) -> re.Pattern[str]:
        return re.compile(template.format(tag=rf"{re.escape(self.prefix)}\d+"))

    def rules(self) -> list[str]:
        """The rules the doc states, in the order it states them."""
        text = self.doc.read_text(encoding="utf-8")
        return self._pattern(r"\*\*({tag})\.\*\*").findall(text)

    def references(self) -> set[str]:
        """The rules the doc refers to (`**T3**`)."""
        text = self.doc.read_text(encoding="utf-8")
        return set(self._pattern(r"\*\*({tag})\*\*").findall(text))

    def citations(self) -> dict[str, list[str]]:
        """Rule tag -> the tests (`file::function`) whose docstrings cite it."""
        citation = self._pattern(r"\b({tag})\b")
        cited: dict[str, list[str]] = {}
        for path in self.tests:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    node.name.startswith("test_")
                ):
                    for tag in citation.findall(ast.get_docstring(node) or ""):
                        cited.setdefault(tag, []).append(f"{path.name}::{node.name}")
        return cited

    def check(self, *, at_least: int = 1) -> None:
        """Raise `AssertionError` naming every problem found (see the module)."""
        rules = self.rules()
        cited = self.citations()
        problems: list[str] = []
        if len(rules) < at_least:
            problems.append(f"{len(rules)} rules stated, expected at least {at_least}")
        expected = [f"{self.prefix}{n}" for n in range(1, len(rules) + 1)]
        if rules != expected:
            problems.append(f"rules not numbered 1, 2, 3... in order: {rules}")
        unpinned = [rule for rule in rules if rule not in cited]
        if unpinned:
            problems.append(f"rules no test cites: {unpinned}")
        stale = {tag: tests for tag, tests in cited.items() if tag not in set(rules)}
        if stale:
            problems.append(f"citations of rules the doc lacks: {stale}")
        dangling = sorted(self.references() - set(rules))
        if dangling:
            problems.append(f"references to rules the doc lacks: {dangling}")
        if problems:
            raise AssertionError(f"{self.doc.name}: " + "; ".join(problems))
