"""read_file by line range and edit_file on real files: the version handshake, exact
matches, multi-edits that land whole or not at all, and CRLF files that stay CRLF."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from automata.core import ToolResult
from automata.tools import edit_file, read_file

from .conftest import Invoke, shown_lines


def version_in(result: ToolResult) -> str:
    """The version a read_file or edit_file result reports."""
    return result.as_text().split("(version ", 1)[1].split(")", 1)[0]


async def read_version(root: Path, path: str, invoke: Invoke) -> str:
    return version_in(await invoke(read_file(root), path=path))


async def edit(root: Path, invoke: Invoke, path: str, **arguments: Any) -> ToolResult:
    version = await read_version(root, path, invoke)
    return await invoke(edit_file(root), path=path, version=version, **arguments)


# read_file by line range


async def test_read_shows_the_lines_asked_for_numbered_from_the_offset(
    root: Path, invoke: Invoke
) -> None:
    """CT1: offset and limit pick the lines; numbers count from 1; a note says where
    to read on."""
    (root / "ten.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    result = await invoke(read_file(root), path="ten.txt", offset=4, limit=2)
    assert result.as_text().split("\n")[1:] == [
        "     4\tline 4",
        "     5\tline 5",
        "[lines 6-10 not shown; read on with offset=6]",
    ]
    assert result.as_text().startswith("ten.txt: lines 4-5 of 10 (version ")


async def test_read_shows_at_most_default_lines_unless_asked(root: Path, invoke: Invoke) -> None:
    """CT1"""
    (root / "long.txt").write_text("x\n" * 50)
    result = await invoke(read_file(root, default_lines=20), path="long.txt")
    assert result.as_text().split("\n")[-1] == "[lines 21-50 not shown; read on with offset=21]"
    longer = await invoke(read_file(root, default_lines=20), path="long.txt", limit=50)
    assert shown_lines(longer) == "\n".join(["x"] * 50)


async def test_read_past_the_end_or_before_line_one_is_an_error(root: Path, invoke: Invoke) -> None:
    """CT1"""
    (root / "two.txt").write_text("a\nb\n")
    past = await invoke(read_file(root), path="two.txt", offset=3)
    assert past.is_error
    assert past.as_text() == "offset 3 is past the end of 'two.txt', which has 2 lines"
    zero = await invoke(read_file(root), path="two.txt", offset=0)
    assert zero.as_text() == "offset must be 1 or more (lines count from 1), got 0"
    assert (await invoke(read_file(root), path="two.txt", limit=0)).is_error


async def test_read_reports_the_version_as_the_sha256_of_the_bytes(
    root: Path, invoke: Invoke
) -> None:
    """CT2"""
    (root / "v.txt").write_bytes(b"same\r\n")
    expected = hashlib.sha256(b"same\r\n").hexdigest()[:16]
    assert await read_version(root, "v.txt", invoke) == expected
    assert shown_lines(await invoke(read_file(root), path="v.txt")) == "same"


async def test_read_of_an_empty_file_says_so(root: Path, invoke: Invoke) -> None:
    """CT1"""
    (root / "empty.txt").write_text("")
    result = await invoke(read_file(root), path="empty.txt")
    assert result.as_text() == "empty.txt: empty file (version e3b0c44298fc1c14)"


async def test_read_refuses_a_file_over_max_file_bytes(root: Path, invoke: Invoke) -> None:
    """CT1"""
    (root / "huge.log").write_text("y" * 101)
    result = await invoke(read_file(root, max_file_bytes=100), path="huge.log")
    assert result.is_error
    assert result.as_text() == "'huge.log' is 101 bytes, over the limit of 100 for read_file"


# edit_file: exact matches


async def test_an_edit_replaces_text_that_occurs_once_and_reports_the_new_version(
    root: Path, invoke: Invoke
) -> None:
    """CT3"""
    (root / "app.py").write_text("def main():\n    return 1\n")
    result = await edit(root, invoke, "app.py", old_text="return 1", new_text="return 2")
    assert not result.is_error
    assert (root / "app.py").read_text() == "def main():\n    return 2\n"
    assert result.as_text() == (
        f"edited app.py: 1 replacement (version {await read_version(root, 'app.py', invoke)})"
    )


async def test_an_edit_whose_text_is_absent_fails_and_writes_nothing(
    root: Path, invoke: Invoke
) -> None:
    """CT3"""
    (root / "app.py").write_text("    return 1\n")
    result = await edit(root, invoke, "app.py", old_text="  return 1\n  ", new_text="x")
    assert result.is_error
    assert result.as_text().startswith("old_text was not found in 'app.py'; it must match")
    assert (root / "app.py").read_text() == "    return 1\n"


async def test_an_edit_whose_text_occurs_twice_fails_unless_replace_all(
    root: Path, invoke: Invoke
) -> None:
    """CT3"""
    (root / "app.py").write_text("x = 1\ny = 1\n")
    ambiguous = await edit(root, invoke, "app.py", old_text="= 1", new_text="= 2")
    assert ambiguous.is_error
    assert ambiguous.as_text() == (
        "old_text occurs 2 times in 'app.py'; add surrounding lines to make it unique, "
        "or set replace_all"
    )
    assert (root / "app.py").read_text() == "x = 1\ny = 1\n"
    every = await edit(root, invoke, "app.py", old_text="= 1", new_text="= 2", replace_all=True)
    assert every.as_text().startswith("edited app.py: 2 replacements")
    assert (root / "app.py").read_text() == "x = 2\ny = 2\n"


async def test_overlapping_occurrences_count_as_ambiguous(root: Path, invoke: Invoke) -> None:
    """CT3: `aba` occurs twice in `ababa`, though not side by side."""
    (root / "s.txt").write_text("ababa")
    result = await edit(root, invoke, "s.txt", old_text="aba", new_text="c")
    assert result.as_text().startswith("old_text occurs 2 times")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"old_text": "", "new_text": "x"}, "old_text is empty; to create or overwrite"),
        ({"old_text": "a", "new_text": "a"}, "old_text and new_text are the same"),
        ({"old_text": "a"}, "give old_text and new_text (or a list of edits)"),
        ({"edits": []}, "edits is empty; give at least one edit"),
        (
            {"old_text": "a", "new_text": "b", "edits": [{"old_text": "a", "new_text": "b"}]},
            "give either old_text and new_text, or edits, not both",
        ),
    ],
)
async def test_malformed_edits_are_errors_that_write_nothing(
    root: Path, invoke: Invoke, arguments: dict[str, Any], message: str
) -> None:
    """CT3"""
    (root / "f.txt").write_text("abc\n")
    result = await edit(root, invoke, "f.txt", **arguments)
    assert result.is_error
    assert result.as_text().startswith(message)
    assert (root / "f.txt").read_text() == "abc\n"


# edit_file: multi-edit, all or none


async def test_edits_apply_in_order_each_to_the_result_of_the_last(
    root: Path, invoke: Invoke
) -> None:
    """CT4"""
    (root / "f.py").write_text("alpha\nbeta\n")
    result = await edit(
        root,
        invoke,
        "f.py",
        edits=[
            {"old_text": "alpha", "new_text": "gamma"},
            {"old_text": "gamma\nbeta", "new_text": "gamma\ndelta"},
        ],
    )
    assert result.as_text().startswith("edited f.py: 2 edits, 2 replacements (version ")
    assert (root / "f.py").read_text() == "gamma\ndelta\n"


async def test_one_failing_edit_leaves_the_file_untouched(root: Path, invoke: Invoke) -> None:
    """CT4: the first edit would apply, the second finds nothing: neither lands."""
    (root / "f.py").write_text("alpha\nbeta\n")
    before = os.stat(root / "f.py").st_ino
    result = await edit(
        root,
        invoke,
        "f.py",
        edits=[{"old_text": "alpha", "new_text": "gamma"}, {"old_text": "zeta", "new_text": "x"}],
    )
    assert result.is_error
    assert result.as_text().startswith("edit 2: old_text was not found in 'f.py'")
    assert (root / "f.py").read_text() == "alpha\nbeta\n"
    assert os.stat(root / "f.py").st_ino == before  # not even rewritten with the same bytes


async def test_an_edit_replaces_the_file_atomically_keeping_its_mode(
    root: Path, invoke: Invoke
) -> None:
    """CT4"""
    (root / "run.sh").write_text("echo old\n")
    (root / "run.sh").chmod(0o751)
    before = os.stat(root / "run.sh").st_ino
    await edit(root, invoke, "run.sh", old_text="old", new_text="new")
    assert (root / "run.sh").read_text() == "echo new\n"
    assert stat.S_IMODE((root / "run.sh").stat().st_mode) == 0o751
    assert os.stat(root / "run.sh").st_ino != before  # a new file renamed over the old
    assert sorted(os.listdir(root)) == ["run.sh"]


async def test_too_many_edits_in_one_call_are_refused(root: Path, invoke: Invoke) -> None:
    """CT4"""
    (root / "f.txt").write_text("a\n")
    version = await read_version(root, "f.txt", invoke)
    edits = [{"old_text": "a", "new_text": "b"}] * 3
    result = await invoke(edit_file(root, max_edits=2), path="f.txt", version=version, edits=edits)
    assert result.as_text() == "3 edits in one call, over the limit of 2; nothing was changed"


async def test_an_edit_growing_the_file_past_the_limit_is_refused(
    root: Path, invoke: Invoke
) -> None:
    """CT4"""
    (root / "f.txt").write_text("a")
    version = await read_version(root, "f.txt", invoke)
    tool = edit_file(root, max_file_bytes=10)
    result = await invoke(tool, path="f.txt", version=version, old_text="a", new_text="b" * 11)
    assert result.as_text() == (
        "the edited file would be 11 bytes, over the limit of 10; nothing was changed"
    )
    assert (root / "f.txt").read_text() == "a"


# edit_file: the version handshake


async def test_a_file_changed_between_read_and_edit_is_not_edited(
    root: Path, invoke: Invoke
) -> None:
    """CT2: someone else writes the file after the model read it; the edit, whose
    text still matches, is refused and their change is kept."""
    (root / "f.txt").write_text("count = 1\n")
    version = await read_version(root, "f.txt", invoke)
    (root / "f.txt").write_text("count = 1\n# their change\n")
    result = await invoke(
        edit_file(root), path="f.txt", version=version, old_text="1", new_text="2"
    )
    assert result.is_error
    now = await read_version(root, "f.txt", invoke)
    assert result.as_text() == (
        f"'f.txt' changed since version {version} was read (it is now version {now}); "
        "read it again, then edit. Nothing was changed"
    )
    assert (root / "f.txt").read_text() == "count = 1\n# their change\n"


async def test_the_version_an_edit_reports_is_good_for_the_next_edit(
    root: Path, invoke: Invoke
) -> None:
    """CT2"""
    (root / "f.txt").write_text("one two\n")
    tool = edit_file(root)
    first = await invoke(
        tool,
        path="f.txt",
        version=await read_version(root, "f.txt", invoke),
        old_text="one",
        new_text="1",
    )
    second = await invoke(
        tool, path="f.txt", version=version_in(first), old_text="two", new_text="2"
    )
    assert not second.is_error
    assert (root / "f.txt").read_text() == "1 2\n"
    stale = await invoke(tool, path="f.txt", version=version_in(first), old_text="1", new_text="x")
    assert stale.as_text().startswith("'f.txt' changed since version")


# edit_file: line endings


async def test_a_crlf_file_stays_crlf_when_the_model_writes_lf(root: Path, invoke: Invoke) -> None:
    """CT5: the model sees lines without endings and sends LF; the file keeps CRLF."""
    (root / "win.txt").write_bytes(b"first\r\nsecond\r\nthird\r\n")
    result = await edit(
        root, invoke, "win.txt", old_text="first\nsecond", new_text="one\ntwo\nmore"
    )
    assert not result.is_error
    assert (root / "win.txt").read_bytes() == b"one\r\ntwo\r\nmore\r\nthird\r\n"


async def test_a_crlf_edit_sent_with_crlf_matches_too(root: Path, invoke: Invoke) -> None:
    """CT5"""
    (root / "win.txt").write_bytes(b"a\r\nb\r\n")
    await edit(root, invoke, "win.txt", old_text="a\r\nb", new_text="c\r\nd")
    assert (root / "win.txt").read_bytes() == b"c\r\nd\r\n"


async def test_lf_and_mixed_files_are_matched_exactly_as_given(root: Path, invoke: Invoke) -> None:
    """CT5"""
    (root / "mixed.txt").write_bytes(b"a\r\nb\nc\n")
    await edit(root, invoke, "mixed.txt", old_text="b\nc", new_text="x\ny")
    assert (root / "mixed.txt").read_bytes() == b"a\r\nx\ny\n"
    crlf_text = await edit(root, invoke, "mixed.txt", old_text="a\nx", new_text="z")
    assert crlf_text.as_text().startswith("old_text was not found")


async def test_edit_refuses_binary_files(root: Path, invoke: Invoke) -> None:
    """CT3"""
    (root / "blob.bin").write_bytes(b"\x00\x01abc")
    version = hashlib.sha256(b"\x00\x01abc").hexdigest()[:16]
    result = await invoke(
        edit_file(root), path="blob.bin", version=version, old_text="abc", new_text="x"
    )
    assert result.as_text() == "'blob.bin' is a binary file; edit_file reads UTF-8 text only"
    assert (root / "blob.bin").read_bytes() == b"\x00\x01abc"
