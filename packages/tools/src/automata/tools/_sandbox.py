"""A directory that file paths from a model are confined to.

A path is checked, then used, in two steps that each hold on their own:

1. `Sandbox.resolve` follows the path as the kernel would (symlinks included) and
   refuses absolute paths and anything that ends up outside the root.
2. `Sandbox.open` and `Sandbox.write` then walk the resolved components from an open
   descriptor of the root, one directory at a time, refusing to follow any symlink
   (`O_NOFOLLOW`). A symlink swapped in after step 1 therefore makes the operation
   fail instead of leading out of the root.

Bounds: a path longer than `max_path_chars` characters (default 1024) or more than
`max_depth` folders deep once resolved (default 32) is refused before any file system
work, so a path cannot make a write create thousands of nested folders. A symlink
loop is reported as one. Every message names the path as the model gave it, never
the root's absolute path.

Limits: POSIX only (needs `O_NOFOLLOW` and `dir_fd`). Hard links cannot be told from
ordinary files, so a hard link placed inside the root by someone else is readable and
writable; a model using these tools cannot create one.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from automata.tools._errors import Refused, ToolError

__all__ = ["DEFAULT_MAX_DEPTH", "DEFAULT_MAX_PATH_CHARS", "Sandbox"]

DEFAULT_MAX_DEPTH = 32
"""Folders a resolved path may pass through below the root."""
DEFAULT_MAX_PATH_CHARS = 1024
"""Characters a path from the model may have."""

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class Sandbox:
    """Path confinement below `root`, which must be an existing directory.

    `max_depth` bounds the folders a resolved path passes through, `max_path_chars`
    the length of the path as given.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        max_depth: int = DEFAULT_MAX_DEPTH,
        max_path_chars: int = DEFAULT_MAX_PATH_CHARS,
    ) -> None:
        for label, value in (("max_depth", max_depth), ("max_path_chars", max_path_chars)):
            if value <= 0:
                raise ValueError(f"{label} must be positive, got {value}")
        self.max_depth = max_depth
        self.max_path_chars = max_path_chars
        real = os.path.realpath(root)
        if not os.path.isdir(real):
            raise ValueError(f"sandbox root {os.fspath(root)!r} is not a directory")
        if not _O_NOFOLLOW or os.open not in os.supports_dir_fd:
            raise OSError("Sandbox needs O_NOFOLLOW and dir_fd support (POSIX)")
        self.root = Path(real)

    def __repr__(self) -> str:
        return f"Sandbox({str(self.root)!r})"

    def resolve(self, path: str) -> tuple[str, ...]:
        """The components of `path` below the root after following symlinks.

        Raises `Refused` for an absolute path, a path that climbs out with `..`, or a
        symlink that leads out; `ToolError` for an empty, malformed, too long or too
        deep path, a symlink loop, or a path that changed while it was resolved.
        """
        if not path or not path.strip():
            raise ToolError("the path is empty; give a path relative to the root")
        if len(path) > self.max_path_chars:
            raise ToolError(
                f"the path is {len(path)} characters long, over the limit of {self.max_path_chars}"
            )
        if "\x00" in path:
            raise ToolError("the path contains a NUL character")
        if os.path.isabs(path):
            raise Refused(f"{path!r} is an absolute path; give a path relative to the root")
        joined = os.path.join(self.root, path)
        if not _inside(self.root, os.path.normpath(joined)):
            raise Refused(f"{path!r} climbs out of the root with '..'")
        try:
            real = os.path.realpath(joined)
        except OSError:
            # A symlink on the way vanished or changed between two looks at it.
            raise ToolError(f"{path!r} changed while it was being checked; try again") from None
        except RecursionError:
            # `realpath` recurses once per symlink in a chain; the kernel stops at 40.
            raise ToolError(_loop(path)) from None
        if not _inside(self.root, real):
            raise Refused(f"{path!r} leads outside the root through a symlink")
        try:
            os.stat(real)
        except OSError as exc:
            # `realpath` leaves a looping symlink in place; `stat` names the loop.
            if exc.errno == errno.ELOOP:
                raise ToolError(_loop(path)) from None
        relative = os.path.relpath(real, self.root)
        parts = () if relative == "." else tuple(relative.split(os.sep))
        if len(parts) - 1 > self.max_depth:
            raise ToolError(
                f"{path!r} is {len(parts) - 1} folders deep, over the limit of {self.max_depth}"
            )
        return parts

    def open(self, parts: tuple[str, ...], *, shown: str) -> int:
        """Open the regular file at `parts` for reading; returns a descriptor.

        `shown` is the path as the caller named it, for messages.
        """
        if not parts:
            raise ToolError(f"{shown!r} is a directory, not a file")
        directory = self._walk(parts[:-1], shown, create=False)
        flags = os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC | os.O_NONBLOCK
        try:
            with _reported(shown):
                fd = os.open(parts[-1], flags, dir_fd=directory)
        finally:
            os.close(directory)
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                raise ToolError(f"{shown!r} is a directory, not a file")
            if not stat.S_ISREG(mode):
                raise Refused(f"{shown!r} is not a regular file")
        except BaseException:
            os.close(fd)
            raise
        return fd

    def open_directory(self, parts: tuple[str, ...], *, shown: str) -> int:
        """Open the directory at `parts` (the root for `()`); returns a descriptor.

        Reached like `open`, one component at a time without following a symlink, so a
        folder swapped for a symlink after `resolve` is refused. Walks below it that
        open children relative to this descriptor with `O_NOFOLLOW` stay in the root.
        """
        return self._walk(parts, shown, create=False)

    def write(self, parts: tuple[str, ...], data: bytes, *, shown: str) -> None:
        """Replace the file at `parts` with `data` atomically, creating parent folders.

        The new content is written to a temporary file beside the target and renamed
        over it, so readers see the old or the new file, never a partial one; an
        existing file keeps its permission bits.
        """
        if not parts:
            raise ToolError(f"{shown!r} is a directory, not a file")
        directory = self._walk(parts[:-1], shown, create=True)
        try:
            _replace(directory, parts[-1], data, shown)
        finally:
            os.close(directory)

    def _walk(self, parts: tuple[str, ...], shown: str, *, create: bool) -> int:
        """A descriptor of the directory at `parts`, reached without following symlinks."""
        try:
            fd = os.open(self.root, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
        except OSError:
            raise ToolError("the working folder is no longer available") from None
        try:
            for part in parts:
                if create:
                    try:
                        os.mkdir(part, dir_fd=fd)
                    except FileExistsError:
                        pass
                    except OSError as exc:
                        raise _error(shown, exc) from None
                flags = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
                try:
                    child = os.open(part, flags, dir_fd=fd)
                except OSError as exc:
                    # O_DIRECTORY reports a symlink as "not a directory": say what it is.
                    if _is_symlink(part, fd):
                        raise Refused(
                            f"{shown!r} passes through a symlink that changed "
                            "after the path was checked"
                        ) from None
                    raise _error(shown, exc) from None
                os.close(fd)
                fd = child
        except BaseException:
            os.close(fd)
            raise
        return fd


def _replace(directory: int, name: str, data: bytes, shown: str) -> None:
    try:
        existing = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise _error(shown, exc) from None
    if existing is not None:
        if stat.S_ISDIR(existing.st_mode):
            raise ToolError(f"{shown!r} is a directory, not a file")
        if stat.S_ISLNK(existing.st_mode):
            raise Refused(f"{shown!r} became a symlink after it was checked")
        if not stat.S_ISREG(existing.st_mode):
            raise Refused(f"{shown!r} is not a regular file")
    temporary = f".automata-write-{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC
    with _reported(shown):
        fd = os.open(temporary, flags, 0o666, dir_fd=directory)
    try:
        try:
            with _reported(shown):
                if existing is not None:
                    os.fchmod(fd, stat.S_IMODE(existing.st_mode))
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        # rename replaces the directory entry itself: a symlink placed there in the
        # meantime is replaced, never followed.
        with _reported(shown):
            os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary, dir_fd=directory)
        raise


def _loop(shown: str) -> str:
    return f"{shown!r} is a symlink loop (too many levels of symbolic links)"


def _inside(root: Path, path: str) -> bool:
    return path == str(root) or path.startswith(str(root).rstrip(os.sep) + os.sep)


def _is_symlink(name: str, directory: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode)
    except OSError:
        return False


@contextmanager
def _reported(shown: str) -> Iterator[None]:
    """Turn an OSError into a message the model can act on."""
    try:
        yield
    except OSError as exc:
        raise _error(shown, exc) from None


def _error(shown: str, exc: OSError) -> ToolError:
    code = exc.errno
    if code == errno.ELOOP:
        return Refused(f"{shown!r} passes through a symlink that cannot be followed safely")
    if code == errno.ENOENT:
        return ToolError(f"{shown!r} does not exist")
    if code == errno.ENOTDIR:
        return ToolError(f"a parent of {shown!r} is not a directory")
    if code == errno.EISDIR:
        return ToolError(f"{shown!r} is a directory, not a file")
    if code in (errno.EACCES, errno.EPERM):
        return ToolError(f"permission denied for {shown!r}")
    if code == errno.ENAMETOOLONG:
        return ToolError(f"{shown!r} is too long a path")
    return ToolError(f"{shown!r}: {exc.strerror or exc}")
