"""`read_file` and `write_file`: file access confined to one directory.

Paths come from the model and are always taken relative to the root; see `Sandbox`
for how escapes (`..`, absolute paths, symlinks, symlinks swapped in mid-call) are
refused. Reads are UTF-8 text only, by line range, numbered, bounded and versioned
(see `automata.tools._text`); writes are capped, atomic, and create missing parent
folders.

Each tool does its file work on `FILE_THREADS` threads of its own, never on the
event loop's default executor, so hung sync tools elsewhere cannot stall it. A call
that is cancelled while its thread works still finishes that work: a write lands
whole or not at all, never half.
"""

from __future__ import annotations

import asyncio
import os
from typing import Annotated

from automata.core import Tool, ToolResult, tool
from automata.tools._errors import ToolError
from automata.tools._sandbox import DEFAULT_MAX_DEPTH, DEFAULT_MAX_PATH_CHARS, Sandbox
from automata.tools._text import (
    FILE_THREADS,
    decode_text,
    file_threads,
    read_whole,
    split_lines,
    version_of,
)

__all__ = ["FILE_THREADS", "clip_line", "read_file", "write_file"]


def clip_line(line: str, max_chars: int) -> str:
    """`line`, cut to `max_chars` characters with a note of what was left out."""
    if len(line) <= max_chars:
        return line
    return f"{line[:max_chars]} [... {len(line) - max_chars} more characters]"


def _positive(**values: int) -> None:
    for label, value in values.items():
        if value <= 0:
            raise ValueError(f"{label} must be positive, got {value}")


def _render(
    shown: str,
    data: bytes,
    offset: int,
    limit: int,
    *,
    max_bytes: int,
    max_line_chars: int,
) -> str:
    lines = split_lines(decode_text(data, shown, tool="read_file"))
    version = version_of(data)
    if not lines:
        return f"{shown}: empty file (version {version})"
    if offset > len(lines):
        raise ToolError(
            f"offset {offset} is past the end of {shown!r}, which has {len(lines)} lines"
        )
    body: list[str] = []
    used = 0
    last = offset - 1
    for number in range(offset, min(offset + limit, len(lines) + 1)):
        row = f"{number:>6}\t{clip_line(lines[number - 1], max_line_chars)}"
        used += len(row.encode("utf-8")) + 1
        if body and used > max_bytes:
            break
        body.append(row)
        last = number
    header = f"{shown}: lines {offset}-{last} of {len(lines)} (version {version})"
    if last < len(lines):
        rest = f"line {last + 1}" if last + 1 == len(lines) else f"lines {last + 1}-{len(lines)}"
        body.append(f"[{rest} not shown; read on with offset={last + 1}]")
    return "\n".join([header, *body])


def read_file(
    root: str | os.PathLike[str],
    *,
    max_bytes: int = 100_000,
    max_file_bytes: int = 10_000_000,
    default_lines: int = 2000,
    max_line_chars: int = 2000,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_path_chars: int = DEFAULT_MAX_PATH_CHARS,
    name: str = "read_file",
) -> Tool:
    """A tool that reads lines of a UTF-8 text file below `root` (the model supplies
    `path`, and optionally `offset`, the first line, and `limit`, how many lines).

    The result is a header naming the lines shown, the file's line count and its
    version (what `edit_file` takes back), then each line numbered from 1. At most
    `default_lines` lines are shown unless the model asks for another `limit`, at most
    `max_bytes` of them in all (the first always), each cut at `max_line_chars`; a
    last line says where to read on. Files over `max_file_bytes`, binary files and
    non-UTF-8 files are refused with a message saying so. Paths longer than
    `max_path_chars` or more than `max_depth` folders deep are refused.
    """
    _positive(
        max_bytes=max_bytes,
        max_file_bytes=max_file_bytes,
        default_lines=default_lines,
        max_line_chars=max_line_chars,
    )
    sandbox = Sandbox(root, max_depth=max_depth, max_path_chars=max_path_chars)
    threads = file_threads(name)

    def read_now(path: str, offset: int, limit: int | None) -> ToolResult:
        try:
            if offset < 1:
                raise ToolError(f"offset must be 1 or more (lines count from 1), got {offset}")
            if limit is not None and limit < 1:
                raise ToolError(f"limit must be 1 or more, got {limit}")
            _, data = read_whole(sandbox, path, max_file_bytes, tool=name)
            text = _render(
                path,
                data,
                offset,
                default_lines if limit is None else limit,
                max_bytes=max_bytes,
                max_line_chars=max_line_chars,
            )
        except ToolError as exc:
            return ToolResult.error(str(exc))
        return ToolResult.text(text)

    async def read(
        path: Annotated[str, "Path of the file, relative to the working folder."],
        offset: Annotated[int, "Number of the first line to show (lines count from 1)."] = 1,
        limit: Annotated[int | None, "How many lines to show (default: a large page)."] = None,
    ) -> ToolResult:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(threads, read_now, path, offset, limit)

    return tool(
        read,
        name=name,
        description=(
            "Read a UTF-8 text file from the working folder, as numbered lines. Paths are "
            "relative to that folder. The header gives the file's version, which edit_file "
            "needs; use offset and limit to page through long files."
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
    threads = file_threads(name)

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
