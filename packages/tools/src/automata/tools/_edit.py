"""`edit_file`: exact-match replacements in a text file below a `Sandbox` root.

An edit names text that must occur in the file exactly as given, exactly once (or
with `replace_all`, at least once), and the text to put there instead. An edit that
finds its text nowhere, or more than once, fails with a message saying which.

Guarantees:

- **The model edits what it read.** The call carries the file's version, as
  `read_file` (or the previous `edit_file`) reported it; when the file's content no
  longer has that version, nothing is written and the model is told to read again.
  The check is made against the content the edit is applied to, and the file is
  replaced straight after; a writer outside the tools that replaces the file in that
  instant is not detected.
- **All or nothing.** The edits of one call are applied in order, each to the result
  of the ones before, in memory; the file is replaced only when every edit applies,
  atomically and keeping its permission bits (`Sandbox.write`).
- **Line endings are kept.** In a file whose lines all end with CRLF, the line breaks
  of `old_text` and `new_text` are read as CRLF, so the model (which sees lines
  without their endings) matches and writes CRLF lines. Other files are matched
  exactly as given.
- **Bounded.** Files over `max_file_bytes`, and results over it, are refused; so are
  more than `max_edits` edits in one call.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Annotated

from automata.core import Tool, ToolResult, tool
from automata.tools._errors import ToolError
from automata.tools._sandbox import DEFAULT_MAX_DEPTH, DEFAULT_MAX_PATH_CHARS, Sandbox
from automata.tools._text import decode_text, file_threads, newline_of, read_whole, version_of

__all__ = ["TextEdit", "edit_file"]


@dataclass(frozen=True)
class TextEdit:
    """One replacement: `old_text` (which must occur exactly once, or with
    `replace_all` at least once) becomes `new_text`."""

    old_text: Annotated[str, "Text to find, exactly as it is in the file (whole lines help)."]
    new_text: Annotated[str, "Text to put in its place."]
    replace_all: Annotated[bool, "Replace every occurrence rather than exactly one."] = False


def _apply(text: str, edits: list[TextEdit], shown: str) -> tuple[str, int]:
    """`text` with every edit applied in order, and the number of replacements made."""
    newline = newline_of(text)
    replaced = 0
    for number, edit in enumerate(edits, start=1):
        label = f"edit {number}: " if len(edits) > 1 else ""
        old, new = edit.old_text, edit.new_text
        if newline == "\r\n":
            old = old.replace("\r\n", "\n").replace("\n", "\r\n")
            new = new.replace("\r\n", "\n").replace("\n", "\r\n")
        if not old:
            raise ToolError(
                f"{label}old_text is empty; to create or overwrite a file use write_file"
            )
        if old == new:
            raise ToolError(f"{label}old_text and new_text are the same; nothing would change")
        first = text.find(old)
        if first == -1:
            raise ToolError(
                f"{label}old_text was not found in {shown!r}; it must match the file exactly, "
                "whitespace and indentation included (read the file again to check)"
            )
        if not edit.replace_all and text.find(old, first + 1) != -1:
            raise ToolError(
                f"{label}old_text occurs {_occurrences(text, old)} times in {shown!r}; add "
                "surrounding lines to make it unique, or set replace_all"
            )
        replaced += text.count(old)
        text = text.replace(old, new)
    return text, replaced


def _occurrences(text: str, old: str, *, most: int = 1000) -> str:
    """How often `old` occurs in `text`, overlapping occurrences included, counted up
    to `most` (`"1000 or more"`)."""
    count, at = 0, text.find(old)
    while at != -1 and count < most:
        count, at = count + 1, text.find(old, at + 1)
    return f"{count} or more" if at != -1 else str(count)


def edit_file(
    root: str | os.PathLike[str],
    *,
    max_file_bytes: int = 10_000_000,
    max_edits: int = 100,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_path_chars: int = DEFAULT_MAX_PATH_CHARS,
    name: str = "edit_file",
) -> Tool:
    """A tool that replaces exact text in a UTF-8 file below `root`.

    The model supplies `path`, the `version` it read, and either one edit
    (`old_text`, `new_text`, optionally `replace_all`) or a list of them (`edits`),
    applied all or none. The result names the replacements made and the file's new
    version, so further edits need no new read. Escapes and bounds are those of
    `read_file`; see the module for the guarantees.
    """
    for label, value in (("max_file_bytes", max_file_bytes), ("max_edits", max_edits)):
        if value <= 0:
            raise ValueError(f"{label} must be positive, got {value}")
    sandbox = Sandbox(root, max_depth=max_depth, max_path_chars=max_path_chars)
    threads = file_threads(name)

    def edit_now(path: str, version: str, edits: list[TextEdit]) -> ToolResult:
        try:
            if len(edits) > max_edits:
                raise ToolError(
                    f"{len(edits)} edits in one call, over the limit of {max_edits}; "
                    "nothing was changed"
                )
            parts, data = read_whole(sandbox, path, max_file_bytes, tool=name)
            current = version_of(data)
            if version.strip().lower() != current:
                raise ToolError(
                    f"{path!r} changed since version {version} was read (it is now version "
                    f"{current}); read it again, then edit. Nothing was changed"
                )
            text, replaced = _apply(decode_text(data, path, tool=name), edits, path)
            result = text.encode("utf-8")
            if len(result) > max_file_bytes:
                raise ToolError(
                    f"the edited file would be {len(result)} bytes, over the limit of "
                    f"{max_file_bytes}; nothing was changed"
                )
            sandbox.write(parts, result, shown=path)
        except ToolError as exc:
            return ToolResult.error(str(exc))
        made = f"{len(edits)} edits, " if len(edits) > 1 else ""
        noun = "replacement" if replaced == 1 else "replacements"
        return ToolResult.text(
            f"edited {'/'.join(parts)}: {made}{replaced} {noun} (version {version_of(result)})"
        )

    async def edit(
        path: Annotated[str, "Path of the file, relative to the working folder."],
        version: Annotated[str, "The file's version, as read_file or edit_file last reported."],
        old_text: Annotated[str | None, "Text to replace, exactly as in the file."] = None,
        new_text: Annotated[str | None, "Text to put in its place."] = None,
        replace_all: Annotated[bool, "Replace every occurrence of old_text."] = False,
        edits: Annotated[
            list[TextEdit] | None,
            "Several edits, applied in order, all or none (instead of old_text/new_text).",
        ] = None,
    ) -> ToolResult:
        single = old_text is not None or new_text is not None
        if edits is not None and single:
            return ToolResult.error("give either old_text and new_text, or edits, not both")
        if edits is None:
            if old_text is None or new_text is None:
                return ToolResult.error("give old_text and new_text (or a list of edits)")
            edits = [TextEdit(old_text, new_text, replace_all)]
        elif not edits:
            return ToolResult.error("edits is empty; give at least one edit")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(threads, edit_now, path, version, edits)

    return tool(
        edit,
        name=name,
        description=(
            "Replace exact text in a file of the working folder. old_text must occur in "
            "the file exactly once (or set replace_all); pass the version read_file gave. "
            "Several edits in one call (edits) are applied in order, all or none."
        ),
    )
