"""`read_file` and `write_file`: file access confined to one directory.

Paths come from the model and are always taken relative to the root; see `Sandbox`
for how escapes (`..`, absolute paths, symlinks, symlinks swapped in mid-call) are
refused. Reads are UTF-8 text only and capped; writes are capped, atomic, and create
missing parent folders.

Each tool does its file work on `FILE_THREADS` threads of its own, never on the event
loop's default executor, so hung sync tools elsewhere cannot stall it. A call that is
cancelled while its thread works still finishes that work: a write lands whole or not
at all, never half.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated

from automata.core import Tool, ToolResult, tool
from automata.tools._errors import ToolError
from automata.tools._sandbox import DEFAULT_MAX_DEPTH, DEFAULT_MAX_PATH_CHARS, Sandbox

__all__ = ["read_file", "write_file"]

FILE_THREADS = 4
"""Threads each file tool owns for its file work (more calls wait their turn)."""


def _threads(name: str) -> ThreadPoolExecutor:
    """The tool's own threads: its calls never wait for the loop's default executor,
    which hung sync tools can fill. Threads start on first use and end with the tool."""
    return ThreadPoolExecutor(FILE_THREADS, thread_name_prefix=f"automata-{name}")


def _read_text(sandbox: Sandbox, path: str, max_bytes: int) -> str:
    parts = sandbox.resolve(path)
    fd = sandbox.open(parts, shown=path)
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise ToolError(f"reading {path!r} failed: {exc.strerror or 'I/O error'}") from None
    truncated = len(data) > max_bytes
    data = data[:max_bytes]
    if b"\x00" in data:
        raise ToolError(f"{path!r} is a binary file; read_file reads UTF-8 text only")
    try:
        # An incremental decoder tolerates a character cut in half by the cap.
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=not truncated)
    except UnicodeDecodeError:
        raise ToolError(
            f"{path!r} is not UTF-8 text (a binary file or another encoding); "
            "read_file reads UTF-8 text only"
        ) from None
    if truncated:
        text += f"\n[truncated: showing the first {max_bytes} bytes of {max(size, max_bytes + 1)}]"
    return text


def read_file(
    root: str | os.PathLike[str],
    *,
    max_bytes: int = 100_000,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_path_chars: int = DEFAULT_MAX_PATH_CHARS,
    name: str = "read_file",
) -> Tool:
    """A tool that reads a UTF-8 text file below `root` (the model supplies `path`).

    At most `max_bytes` are returned, followed by a truncation line when the file is
    longer. Binary and non-UTF-8 files are refused with a message saying so. Paths
    longer than `max_path_chars` or more than `max_depth` folders deep are refused.
    """
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    sandbox = Sandbox(root, max_depth=max_depth, max_path_chars=max_path_chars)
    threads = _threads(name)

    def read_now(path: str) -> ToolResult:
        try:
            return ToolResult.text(_read_text(sandbox, path, max_bytes))
        except ToolError as exc:
            return ToolResult.error(str(exc))

    async def read(
        path: Annotated[str, "Path of the file, relative to the working folder."],
    ) -> ToolResult:
        return await asyncio.get_running_loop().run_in_executor(threads, read_now, path)

    return tool(
        read,
        name=name,
        description=(
            "Read a UTF-8 text file from the working folder. Paths are relative to that "
            "folder; long files are truncated."
        ),
    )


def write_file(
    root: str | os.PathLike[str],
    *,
    max_bytes: int = 1_000_000,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_path_chars: int = DEFAULT_MAX_PATH_CHARS,
    name: str = "write_file",
) -> Tool:
    """A tool that writes UTF-8 text to a file below `root` (`path`, `content`).

    The file is created or replaced whole; missing parent folders are created, at most
    `max_depth` deep (paths longer than `max_path_chars` are refused). Content larger
    than `max_bytes` (encoded) is refused. The result reports the bytes written.
    """
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    sandbox = Sandbox(root, max_depth=max_depth, max_path_chars=max_path_chars)
    threads = _threads(name)

    async def write(
        path: Annotated[str, "Path of the file, relative to the working folder."],
        content: Annotated[str, "The complete new content of the file."],
    ) -> ToolResult:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(threads, write_now, path, content)

    def write_now(path: str, content: str) -> ToolResult:
        try:
            data = content.encode("utf-8")
            if len(data) > max_bytes:
                raise ToolError(
                    f"the content is {len(data)} bytes, over the limit of {max_bytes}; "
                    "nothing was written"
                )
            parts = sandbox.resolve(path)
            sandbox.write(parts, data, shown=path)
        except ToolError as exc:
            return ToolResult.error(str(exc))
        except UnicodeEncodeError as exc:
            return ToolResult.error(f"the content cannot be encoded as UTF-8: {exc.reason}")
        return ToolResult.text(f"wrote {len(data)} bytes to {'/'.join(parts)}")

    return tool(
        write,
        name=name,
        description=(
            "Create or overwrite a text file in the working folder with the given content. "
            "Paths are relative to that folder; missing parent folders are created."
        ),
    )
