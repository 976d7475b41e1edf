"""The Python code samples of the repository's pages, each executed or marked a fragment.

A sample is a fenced ```python (or ```py) block. The last non-blank line before its
fence says what it is:

- `<!-- fragment -->`: a piece of a program, shown to explain, not run;
- `<!-- executed by path/to/test_x.py -->`: a program that test runs (the test must
  exist and read the page: its text names the page's file);
- nothing: a complete program, which `CodeSamples` users run as pasted (offline).

When the prose right after a sample ends with `prints:` (as in "It prints:"), the next
block must be a ```text block: it is the sample's `expected_output`, exactly what the
program writes to standard output, which the test that runs it compares.

Any other `<!-- ... -->` comment there is an error, so a misspelt marker is never read
as "unmarked". The comments are HTML: invisible on GitHub and on the site.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from pytest_examples import CodeExample, find_examples

FRAGMENT_MARKER = "<!-- fragment -->"
_EXECUTED = re.compile(r"<!-- executed by (?P<test>\S+) -->")
_COMMENT = re.compile(r"<!--.*-->")
_LANGUAGES = frozenset({"python", "py"})
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>.*)$")

# The pages whose samples are checked, as globs from the repository root.
SAMPLE_PAGES = (
    "README.md",
    "docs/*.md",
    "docs/guide/*.md",
    "packages/*/README.md",
    "extensions/*/README.md",
    "examples/*/README.md",
    "testkit/*/README.md",
)


class SampleKind(Enum):
    """What a sample's marker says it is."""

    FRAGMENT = "fragment"
    EXECUTED_BY_TEST = "executed by a test"
    PROGRAM = "complete program"


class SampleMarkerError(ValueError):
    """A sample's marker is malformed, or names a test that does not run it."""


@dataclass(frozen=True)
class CodeSample:
    """One Python block of a page, with what its marker says."""

    page: str
    line: int
    kind: SampleKind
    example: CodeExample
    test: str | None = None
    expected_output: str | None = None

    @property
    def id(self) -> str:
        """`page:line`, the line of the opening fence (1-based)."""
        return f"{self.page}:{self.line}"


def _marker_line(lines: list[str], fence_index: int) -> str:
    for line in reversed(lines[:fence_index]):
        if line.strip():
            return line.strip()
    return ""


def _closing_fence_index(lines: list[str], fence_index: int) -> int:
    opening = _FENCE.match(lines[fence_index].strip())
    fence = opening["fence"] if opening else "```"
    for index in range(fence_index + 1, len(lines)):
        if lines[index].strip() == fence:
            return index
    return len(lines)


def _expected_output(lines: list[str], fence_index: int, where: str) -> str | None:
    """The ```text block the prose after the sample introduces with `prints:`."""
    index = _closing_fence_index(lines, fence_index) + 1
    prose: list[str] = []
    while index < len(lines) and not _FENCE.match(lines[index].strip()):
        if lines[index].strip():
            prose.append(lines[index].strip())
        elif prose:
            break
        index += 1
    if not prose or not prose[-1].endswith("prints:"):
        return None
    while index < len(lines) and not lines[index].strip():
        index += 1
    opening = _FENCE.match(lines[index].strip()) if index < len(lines) else None
    if opening is None or opening["info"].strip() != "text":
        raise SampleMarkerError(
            f"{where}: the prose after it ends with 'prints:' but no ```text block follows"
        )
    closing = _closing_fence_index(lines, index)
    return "".join(line + "\n" for line in lines[index + 1 : closing])


def _classify(root: Path, page: str, lines: list[str], example: CodeExample) -> CodeSample:
    fence_index = example.start_line - 1
    marker = _marker_line(lines, fence_index)
    where = f"{page}:{example.start_line}"
    output = _expected_output(lines, fence_index, where)
    if marker == FRAGMENT_MARKER:
        if output is not None:
            raise SampleMarkerError(
                f"{where}: a fragment is not run, so it cannot be said to print"
            )
        return CodeSample(page, example.start_line, SampleKind.FRAGMENT, example)
    executed = _EXECUTED.fullmatch(marker)
    if executed:
        test = executed["test"]
        test_file = root / test
        if not test_file.is_file():
            raise SampleMarkerError(f"{where}: {test} does not exist")
        if Path(page).name not in test_file.read_text(encoding="utf-8"):
            raise SampleMarkerError(f"{where}: {test} never names {Path(page).name}")
        return CodeSample(
            page, example.start_line, SampleKind.EXECUTED_BY_TEST, example, test, output
        )
    if _COMMENT.search(marker):
        raise SampleMarkerError(
            f"{where}: unknown marker {marker!r}; use {FRAGMENT_MARKER!r} or "
            "'<!-- executed by path/to/test_x.py -->'"
        )
    return CodeSample(page, example.start_line, SampleKind.PROGRAM, example, None, output)


def samples_of(root: Path, page: Path) -> list[CodeSample]:
    """The Python samples of one page, in order."""
    relative = page.relative_to(root).as_posix()
    lines = page.read_text(encoding="utf-8").splitlines()
    return [
        _classify(root, relative, lines, example)
        for example in find_examples(page)
        if example.prefix.split(maxsplit=1)[0] in _LANGUAGES
    ]


def sample_pages(root: Path, patterns: Iterable[str] = SAMPLE_PAGES) -> list[Path]:
    """The pages whose samples are checked, in a stable order."""
    return [page for pattern in patterns for page in sorted(root.glob(pattern))]


def code_samples(root: Path, patterns: Iterable[str] = SAMPLE_PAGES) -> list[CodeSample]:
    """Every Python sample of every checked page."""
    return [sample for page in sample_pages(root, patterns) for sample in samples_of(root, page)]
