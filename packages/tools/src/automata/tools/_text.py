"""Whole text files under a `Sandbox`: read bounded, decoded strictly, versioned.

The file tools that need a file's whole content (`read_file` with line ranges,
`edit_file`, `grep`) read it here, through `Sandbox.resolve` and `Sandbox.open`, so
they share the file tools' confinement. A file's *version* is the first 16 hex digits
of the SHA-256 of its bytes: `read_file` reports it, `edit_file` takes it back and
refuses to edit a file whose content no longer has it.
"""

from __future__ import annotations

import codecs
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor

from automata.tools._errors import ToolError
from automata.tools._sandbox import Sandbox

__all__ = [
    "FILE_THREADS",
    "decode_text",
    "file_threads",
    "newline_of",
    "read_whole",
    "split_lines",
    "version_of",
]

FILE_THREADS = 4
"""Threads each file tool owns for its file work (more calls wait their turn)."""


def file_threads(name: str) -> ThreadPoolExecutor:
    """The tool's own threads: its calls never wait for the loop's default executor,
    which hung sync tools can fill. Threads start on first use and end with the tool."""
    return ThreadPoolExecutor(FILE_THREADS, thread_name_prefix=f"automata-{name}")


def version_of(data: bytes) -> str:
    """The version of a file whose bytes are `data`: 16 hex digits of their SHA-256."""
    return hashlib.sha256(data).hexdigest()[:16]


def read_whole(
    sandbox: Sandbox, path: str, max_bytes: int, *, tool: str
) -> tuple[tuple[str, ...], bytes]:
    """The resolved components of `path` and the file's bytes, all of them.

    A file over `max_bytes` is refused whole (`tool` names the tool in the message)
    rather than read in part: a version or an edit of part of a file means nothing.
    """
    parts = sandbox.resolve(path)
    fd = sandbox.open(parts, shown=path)
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise ToolError(f"{path!r} is {size} bytes, over the limit of {max_bytes} for {tool}")
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise ToolError(f"reading {path!r} failed: {exc.strerror or 'I/O error'}") from None
    if len(data) > max_bytes:  # it grew while it was read
        raise ToolError(f"{path!r} is over the limit of {max_bytes} bytes for {tool}")
    return parts, data


def decode_text(data: bytes, shown: str, *, tool: str, final: bool = True) -> str:
    """`data` as UTF-8 text, or a `ToolError` saying the file is binary or not UTF-8.

    With `final=False` a multi-byte character cut off at the end is dropped rather than
    refused (for a read capped mid-character)."""
    if b"\x00" in data:
        raise ToolError(f"{shown!r} is a binary file; {tool} reads UTF-8 text only")
    try:
        if final:
            return data.decode("utf-8")
        return codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        raise ToolError(
            f"{shown!r} is not UTF-8 text (a binary file or another encoding); "
            f"{tool} reads UTF-8 text only"
        ) from None


def newline_of(text: str) -> str:
    """`"\\r\\n"` when every line of `text` ends with CRLF (at least one does), else
    `"\\n"`: files with mixed endings count as LF files."""
    lf = text.count("\n")
    return "\r\n" if lf and text.count("\r\n") == lf else "\n"


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their endings (LF, or CRLF); a final line ending
    does not start another line. Only `\\n` ends a line, as for `grep` and editors."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]
