"""`list_dir` and `glob`: what a folder below a `Sandbox` root holds, bounded.

Both walk with `TreeWalk` (never following a symlink, so never leaving the root) and
print paths relative to the root, ready to pass to `read_file`. Entries are sorted by
name; folders end with `/`, symlinks with `@`.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from typing import Annotated

from automata.core import Tool, ToolResult, tool
from automata.tools._errors import ToolError
from automata.tools._sandbox import DEFAULT_MAX_DEPTH, DEFAULT_MAX_PATH_CHARS, Sandbox
from automata.tools._text import file_threads
from automata.tools._tree import (
    DEFAULT_IGNORED,
    Entry,
    GlobPattern,
    TreeWalk,
    list_entries,
    open_folder,
)

__all__ = ["glob", "list_dir"]


def _positive(**values: float) -> None:
    for label, value in values.items():
        if value <= 0:
            raise ValueError(f"{label} must be positive, got {value}")


def _shown(entry: Entry, *, size: bool) -> str:
    if entry.kind == "folder":
        return f"{entry.path}/"
    if entry.kind == "symlink":
        return f"{entry.path}@"
    if entry.kind == "file" and size:
        return f"{entry.path} ({entry.size} bytes)"
    return entry.path


def list_dir(
    root: str | os.PathLike[str],
    *,
    max_entries: int = 500,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_path_chars: int = DEFAULT_MAX_PATH_CHARS,
    name: str = "list_dir",
) -> Tool:
    """A tool that lists one folder below `root` (the model supplies `path`, default
    the root): one line per entry in name order, folders with `/`, symlinks with `@`,
    files with their size; at most `max_entries` lines, then a line saying how many
    more there are."""
    _positive(max_entries=max_entries)
    sandbox = Sandbox(root, max_depth=max_depth, max_path_chars=max_path_chars)
    threads = file_threads(name)

    def list_now(path: str) -> ToolResult:
        try:
            parts, folder = open_folder(sandbox, path)
            try:
                entries = list_entries(folder, parts)
            finally:
                os.close(folder)
        except ToolError as exc:
            return ToolResult.error(str(exc))
        where = "/".join(parts) or "."
        if not entries:
            return ToolResult.text(f"{where}: empty folder")
        lines = [_shown(entry, size=True) for entry in entries[:max_entries]]
        if len(entries) > max_entries:
            lines.append(f"[{len(entries) - max_entries} more entries not shown]")
        return ToolResult.text("\n".join(lines))

    async def list_folder(
        path: Annotated[str, "Folder to list, relative to the working folder."] = ".",
    ) -> ToolResult:
        return await asyncio.get_running_loop().run_in_executor(threads, list_now, path)

    return tool(
        list_folder,
        name=name,
        description=(
            "List the entries of a folder in the working folder (folders end with /, "
            "symlinks with @, files show their size)."
        ),
    )


def glob(
    root: str | os.PathLike[str],
    *,
    max_matches: int = 200,
    max_entries: int = 20_000,
    timeout: float = 10.0,
    ignore: Sequence[str] = DEFAULT_IGNORED,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_path_chars: int = DEFAULT_MAX_PATH_CHARS,
    name: str = "glob",
) -> Tool:
    """A tool that finds paths below `root` matching a glob (the model supplies
    `pattern`, such as `**/*.py`, and optionally `path`, the folder it is relative to).

    Matches come one per line in name order, relative to the root, at most
    `max_matches` of them; the walk visits at most `max_entries` entries within
    `timeout` seconds and never enters a symlinked folder or a folder named in
    `ignore`. A last line says when matches were left out or the walk stopped early.
    """
    _positive(max_matches=max_matches, max_entries=max_entries, timeout=timeout)
    sandbox = Sandbox(root, max_depth=max_depth, max_path_chars=max_path_chars)
    threads = file_threads(name)
    ignored = tuple(ignore)

    def glob_now(pattern: str, path: str) -> ToolResult:
        try:
            matcher = GlobPattern(pattern)
            walk = TreeWalk(
                sandbox,
                path,
                max_entries=max_entries,
                deadline=time.monotonic() + timeout,
                ignore=ignored,
            )
            found = [entry for entry in walk if matcher.matches(entry.parts[len(walk.parts) :])]
        except ToolError as exc:
            return ToolResult.error(str(exc))
        lines = [_shown(entry, size=False) for entry in found[:max_matches]]
        if not found:
            lines.append(f"no paths match {pattern!r}")
        if len(found) > max_matches:
            lines.append(f"[{len(found) - max_matches} more matches not shown; narrow the pattern]")
        if walk.stopped is not None:
            lines.append(f"[{walk.stopped}; there may be more matches: narrow the path]")
        return ToolResult.text("\n".join(lines))

    async def find(
        pattern: Annotated[str, "Glob such as '**/*.py' or 'src/*.md' ('**' spans folders)."],
        path: Annotated[str, "Folder the pattern is relative to (default: the root)."] = ".",
    ) -> ToolResult:
        return await asyncio.get_running_loop().run_in_executor(threads, glob_now, pattern, path)

    return tool(
        find,
        name=name,
        description=(
            "Find files and folders in the working folder whose path matches a glob "
            "pattern ('**' matches any number of folders). Paths are relative to the "
            "working folder."
        ),
    )
