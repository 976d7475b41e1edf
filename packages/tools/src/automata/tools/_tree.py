"""Walking a folder below a `Sandbox` root, bounded, without ever leaving it; and the
glob patterns `glob` and `grep` match paths with.

The walk starts from a descriptor `Sandbox.open_directory` opened and descends by
opening each child folder relative to its parent's descriptor with `O_NOFOLLOW`, so
it never follows a symlink: a symlinked folder is reported as a symlink and never
entered, whether it was there from the start or swapped in during the walk. It is
depth first, in name order, at most the sandbox's `max_depth` folders deep, and
stops at `max_entries` entries or at its deadline, saying which (`TreeWalk.stopped`).
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from automata.tools._errors import Refused, ToolError
from automata.tools._sandbox import Sandbox

__all__ = ["DEFAULT_IGNORED", "Entry", "GlobPattern", "TreeWalk", "open_folder"]

DEFAULT_IGNORED = (".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv")
"""Folder names the walking tools never enter unless told otherwise (`ignore=`)."""

_FOLDER_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_DIRECTORY", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)

Kind = Literal["folder", "file", "symlink", "other"]


@dataclass(frozen=True)
class Entry:
    """One entry met by a walk: its components below the root, its kind (a symlink
    is never followed, so it is a `symlink` whatever it points at) and, for a file,
    its size in bytes."""

    parts: tuple[str, ...]
    kind: Kind
    size: int = 0

    @property
    def path(self) -> str:
        return "/".join(self.parts)


def _kind(mode: int) -> Kind:
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "other"


def open_folder(sandbox: Sandbox, path: str) -> tuple[tuple[str, ...], int]:
    """The components of the folder `path` and a descriptor of it, or a `ToolError`
    (a `Refused` for a way out of the root) naming `path`."""
    parts = sandbox.resolve(path)
    target = sandbox.root.joinpath(*parts)
    if target.is_file():
        raise ToolError(f"{path!r} is a file, not a folder")
    if target.exists() and not target.is_dir():
        raise ToolError(f"{path!r} is not a folder")
    return parts, sandbox.open_directory(parts, shown=path)


def list_entries(folder: int, parts: tuple[str, ...]) -> list[Entry]:
    """The entries of the folder open as `folder`, in name order (none if it vanished)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    entries = []
    for name in names:
        try:
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except OSError:
            continue  # removed since it was listed
        kind = _kind(info.st_mode)
        entries.append(Entry((*parts, name), kind, info.st_size if kind == "file" else 0))
    return entries


class TreeWalk:
    """One bounded walk of the folder `path` below `sandbox`'s root.

    Iterate for the entries (folders before what they hold). Folders named in
    `ignore` are reported but not entered. After the iteration, `stopped` is None
    when the whole tree was seen, else why the walk ended early.
    """

    def __init__(
        self,
        sandbox: Sandbox,
        path: str,
        *,
        max_entries: int,
        deadline: float,
        ignore: Sequence[str] = DEFAULT_IGNORED,
    ) -> None:
        self.parts, self._start = open_folder(sandbox, path)
        self._max_depth = sandbox.max_depth
        self._max_entries = max_entries
        self._deadline = deadline
        self._ignore = frozenset(ignore)
        self.seen = 0
        self.stopped: str | None = None

    def __iter__(self) -> Iterator[Entry]:
        try:
            yield from self._folder(self._start, self.parts)
        finally:
            os.close(self._start)

    def _folder(self, folder: int, parts: tuple[str, ...]) -> Iterator[Entry]:
        for entry in list_entries(folder, parts):
            if self.stopped is not None:
                return
            if self.seen >= self._max_entries:
                self.stopped = f"the walk stopped after {self._max_entries} entries"
                return
            if time.monotonic() > self._deadline:
                self.stopped = "the walk stopped at its time limit"
                return
            self.seen += 1
            yield entry
            if entry.kind != "folder" or entry.parts[-1] in self._ignore:
                continue
            if len(entry.parts) > self._max_depth:
                continue
            try:
                child = os.open(entry.parts[-1], _FOLDER_FLAGS, dir_fd=folder)
            except OSError:
                continue  # removed, or swapped for a symlink, since it was listed
            try:
                yield from self._folder(child, entry.parts)
            finally:
                os.close(child)


@dataclass(frozen=True)
class GlobPattern:
    """A glob over `/`-separated relative paths: `*`, `?` and `[...]` match within one
    component (a leading dot included), `**` matches any number of components.

    `anywhere=True` (for a pattern without `/`, as `grep`'s file filter reads it)
    matches the last component of a path wherever it is. Matching is linear in the
    path's components times the pattern's.
    """

    pattern: str
    anywhere: bool = False

    MAX_CHARS = 500

    def __post_init__(self) -> None:
        if not self.pattern.strip():
            raise ToolError("the glob pattern is empty")
        if len(self.pattern) > self.MAX_CHARS:
            raise ToolError(
                f"the glob pattern is {len(self.pattern)} characters long, "
                f"over the limit of {self.MAX_CHARS}"
            )
        if self.pattern.startswith("/"):
            raise Refused(f"{self.pattern!r} is an absolute pattern; give one relative to the root")
        if ".." in self.pattern.split("/"):
            raise Refused(f"{self.pattern!r} climbs out with '..'; patterns stay below the folder")

    @functools.cached_property
    def _components(self) -> tuple[re.Pattern[str] | None, ...]:
        """A compiled matcher per component; None stands for `**`."""
        pieces = [piece for piece in self.pattern.split("/") if piece not in ("", ".")]
        return tuple(
            None if piece == "**" else re.compile(fnmatch.translate(piece)) for piece in pieces
        )

    def matches(self, parts: Sequence[str]) -> bool:
        components = self._components
        if self.anywhere:
            return len(components) == 1 and _matches(components, parts[-1:])
        return _matches(components, parts)


def _matches(components: tuple[re.Pattern[str] | None, ...], parts: Sequence[str]) -> bool:
    """Whether the components match the parts, by dynamic programming (no backtracking
    however many `**` the pattern has)."""
    # reachable[j]: the first i components can match the first j parts.
    reachable = [True] + [False] * len(parts)
    for component in components:
        following = [False] * (len(parts) + 1)
        if component is None:
            seen = False
            for j in range(len(parts) + 1):
                seen = seen or reachable[j]
                following[j] = seen
        else:
            for j in range(1, len(parts) + 1):
                following[j] = reachable[j - 1] and component.match(parts[j - 1]) is not None
        reachable = following
    return reachable[-1]
