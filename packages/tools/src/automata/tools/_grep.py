"""`grep`: search the text files below a `Sandbox` root with a regular expression.

The engine is the `regex` package (a maintained superset of Python's `re` syntax),
chosen for its `timeout=`: a backtracking engine can take exponential time on a
pattern such as `(a|aa)+$`, and `re` cannot be stopped. Every search gets what is
left of the call's `timeout`, so a catastrophic pattern ends the call at its deadline
with the matches found so far, never a stuck thread.

Bounds: the walk is `TreeWalk`'s (no symlink followed, at most `max_entries`
entries); files over `max_file_bytes`, binary files (a NUL byte) and files that are
not UTF-8 are skipped and counted; the pattern has at most `MAX_PATTERN_CHARS`
characters; at most `max_matches` matching lines are reported, each shown cut at
`max_line_chars`, with at most `max_context` lines of context either side, and the
whole result stays under `max_output_chars`.

Output is ripgrep's: `path:line:text` for a match, `path-line-text` for context, `--`
between groups that are not adjacent, then a summary line.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated

import regex

from automata.core import Tool, ToolResult, tool
from automata.tools._errors import ToolError
from automata.tools._files import clip_line
from automata.tools._sandbox import DEFAULT_MAX_DEPTH, DEFAULT_MAX_PATH_CHARS, Sandbox
from automata.tools._text import decode_text, file_threads, read_whole, split_lines
from automata.tools._tree import DEFAULT_IGNORED, Entry, GlobPattern, TreeWalk

__all__ = ["MAX_PATTERN_CHARS", "grep"]

MAX_PATTERN_CHARS = 1000
"""Characters a `grep` pattern may have."""


@dataclass
class _Search:
    """One call's bounds and what it has found so far."""

    pattern: regex.Pattern[str]
    context: int
    max_matches: int
    max_line_chars: int
    max_output_chars: int
    deadline: float
    lines: list[str] = field(default_factory=list)
    chars: int = 0
    matches: int = 0
    files: int = 0
    skipped: int = 0
    stopped: str | None = None

    def emit(self, line: str) -> bool:
        """Add an output line; False (and `stopped` set) once the output is full."""
        if self.chars + len(line) + 1 > self.max_output_chars:
            self.stopped = f"the output reached its limit of {self.max_output_chars} characters"
            return False
        self.lines.append(line)
        self.chars += len(line) + 1
        return True

    def search_file(self, shown: str, text: str) -> None:
        lines = split_lines(text)
        hits: list[int] = []
        for index, line in enumerate(lines):
            if len(hits) + self.matches >= self.max_matches:
                break
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                self.stopped = "the search stopped at its time limit"
                break
            try:
                found = self.pattern.search(line, timeout=remaining)
            except TimeoutError:
                self.stopped = (
                    "the search stopped at its time limit (a pattern that backtracks "
                    "this much may need rewriting)"
                )
                break
            if found is not None:
                hits.append(index)
        if hits:
            self.files += 1
            self._report(shown, lines, hits)
        if self.stopped is None and self.matches >= self.max_matches:
            self.stopped = f"the search stopped at {self.max_matches} matching lines"

    def _report(self, shown: str, lines: list[str], hits: list[int]) -> None:
        matched = set(hits)
        last = -2
        for hit in hits:
            start = max(hit - self.context, last + 1)
            if self.context and self.lines and start > last + 1 and not self.emit("--"):
                return
            for index in range(start, min(hit + self.context, len(lines) - 1) + 1):
                if index <= last:
                    continue
                mark = ":" if index in matched else "-"
                text = clip_line(lines[index], self.max_line_chars)
                if not self.emit(f"{shown}{mark}{index + 1}{mark}{text}"):
                    return
                if index in matched:
                    self.matches += 1
                last = index


def _summary(search: _Search, pattern: str, searched: int, walk_stopped: str | None) -> ToolResult:
    """The result: the lines found, then a line summing up the search."""
    stopped = search.stopped or walk_stopped
    lines = search.lines or [f"no lines match {pattern!r}"]
    summary = (
        f"[{_count(search.matches, 'matching line')} in {_count(search.files, 'file')}; "
        f"{_count(searched, 'file')} searched"
    )
    if search.skipped:
        summary += f", {search.skipped} skipped (binary, not UTF-8 or too large)"
    if stopped is not None:
        summary += f"; {stopped}, there may be more: narrow the pattern or path"
    return ToolResult.text("\n".join([*lines, summary + "]"]))


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _compile(pattern: str, ignore_case: bool) -> regex.Pattern[str]:
    if not pattern:
        raise ToolError("the pattern is empty")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ToolError(
            f"the pattern is {len(pattern)} characters long, over the limit of {MAX_PATTERN_CHARS}"
        )
    flags = regex.V0 | (regex.IGNORECASE if ignore_case else 0)
    try:
        return regex.compile(pattern, flags)
    except regex.error as exc:
        raise ToolError(f"the pattern is not a valid regular expression: {exc}") from None
    except (OverflowError, RecursionError, MemoryError):
        raise ToolError("the pattern is too complex to compile") from None


def grep(
    root: str | os.PathLike[str],
    *,
    max_matches: int = 100,
    max_context: int = 5,
    max_line_chars: int = 500,
    max_output_chars: int = 50_000,
    max_file_bytes: int = 5_000_000,
    max_entries: int = 20_000,
    timeout: float = 10.0,
    ignore: Sequence[str] = DEFAULT_IGNORED,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_path_chars: int = DEFAULT_MAX_PATH_CHARS,
    name: str = "grep",
) -> Tool:
    """A tool that searches the text files below `root` for lines matching a regular
    expression (the model supplies `pattern`, and optionally `path`, a file or folder
    to search, `include`, a glob the file paths must match, `ignore_case`, and
    `context`, lines to show around each match, at most `max_context`).

    See the module for the output format and the bounds; a last line sums up what
    was searched and says when the search stopped early.
    """
    for label, value in (
        ("max_matches", max_matches),
        ("max_line_chars", max_line_chars),
        ("max_output_chars", max_output_chars),
        ("max_file_bytes", max_file_bytes),
        ("max_entries", max_entries),
        ("timeout", timeout),
    ):
        if value <= 0:
            raise ValueError(f"{label} must be positive, got {value}")
    if max_context < 0:
        raise ValueError(f"max_context must be 0 or more, got {max_context}")
    sandbox = Sandbox(root, max_depth=max_depth, max_path_chars=max_path_chars)
    threads = file_threads(name)
    ignored = tuple(ignore)

    def read(entry: Entry, search: _Search) -> str | None:
        if entry.size > max_file_bytes:
            search.skipped += 1
            return None
        try:
            fd = sandbox.open(entry.parts, shown=entry.path)
            with os.fdopen(fd, "rb") as handle:
                data = handle.read(max_file_bytes + 1)
            if len(data) > max_file_bytes:
                raise ToolError(f"{entry.path!r} grew past the limit")
            return decode_text(data, entry.path, tool=name)
        except (ToolError, OSError):
            search.skipped += 1  # binary, not UTF-8, or changed since it was listed
            return None

    def grep_now(
        pattern: str, path: str, include: str | None, ignore_case: bool, context: int
    ) -> ToolResult:
        try:
            if not 0 <= context <= max_context:
                raise ToolError(f"context must be from 0 to {max_context}, got {context}")
            search = _Search(
                _compile(pattern, ignore_case),
                context,
                max_matches,
                max_line_chars,
                max_output_chars,
                time.monotonic() + timeout,
            )
            wanted = None if include is None else GlobPattern(include, anywhere="/" not in include)
            parts = sandbox.resolve(path)
            if not sandbox.root.joinpath(*parts).is_dir():
                # One file named by the model: its refusals and errors are reported.
                _, data = read_whole(sandbox, path, max_file_bytes, tool=name)
                search.search_file("/".join(parts), decode_text(data, path, tool=name))
                return _summary(search, pattern, 1, None)
            walk = TreeWalk(
                sandbox, path, max_entries=max_entries, deadline=search.deadline, ignore=ignored
            )
            searched = 0
            for entry in walk:
                if entry.kind != "file":
                    continue
                if wanted is not None and not wanted.matches(entry.parts[len(parts) :]):
                    continue
                text = read(entry, search)
                if text is None:
                    continue
                searched += 1
                search.search_file(entry.path, text)
                if search.stopped is not None:
                    break
        except ToolError as exc:
            return ToolResult.error(str(exc))
        return _summary(search, pattern, searched, walk.stopped)

    async def search(
        pattern: Annotated[str, "Regular expression (Python syntax) to look for in each line."],
        path: Annotated[str, "File or folder to search, relative to the working folder."] = ".",
        include: Annotated[
            str | None, "Only files matching this glob, such as '*.py' or 'src/**/*.md'."
        ] = None,
        ignore_case: Annotated[bool, "Match regardless of case."] = False,
        context: Annotated[int, "Lines to show before and after each match."] = 0,
    ) -> ToolResult:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            threads, grep_now, pattern, path, include, ignore_case, context
        )

    return tool(
        search,
        name=name,
        description=(
            "Search the text files of the working folder for lines matching a regular "
            "expression. Results are 'path:line:text'; use include to pick files and "
            "context to see lines around each match."
        ),
    )
