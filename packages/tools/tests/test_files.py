"""read_file and write_file on real files: what they do, and every way out they refuse."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from automata.core import ToolResult
from automata.tools import Refused, Sandbox, read_file, write_file

from .conftest import Invoke, shown_lines


def assert_refused(result: ToolResult, fragment: str = "") -> None:
    assert result.is_error
    assert result.as_text().startswith("refused:"), result.as_text()
    assert fragment in result.as_text()
    assert "TOP SECRET" not in result.as_text()


# read_file


async def test_read_returns_the_file_as_numbered_lines_under_a_header(
    root: Path, invoke: Invoke
) -> None:
    (root / "notes.md").write_text("# Notes\nline two\n")
    result = await invoke(read_file(root), path="notes.md")
    assert not result.is_error
    assert result.as_text() == (
        "notes.md: lines 1-2 of 2 (version cbf80aac75f87bfd)\n     1\t# Notes\n     2\tline two"
    )


async def test_read_follows_nested_paths(root: Path, invoke: Invoke) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "c.txt").write_text("deep")
    assert shown_lines(await invoke(read_file(root), path="a/b/c.txt")) == "deep"


async def test_read_allows_dotdot_that_stays_inside(root: Path, invoke: Invoke) -> None:
    (root / "a").mkdir()
    (root / "top.txt").write_text("top")
    assert shown_lines(await invoke(read_file(root), path="a/../top.txt")) == "top"


async def test_read_refuses_dotdot_out_of_the_root(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    result = await invoke(read_file(root), path="../outside/secret.txt")
    assert_refused(result, "climbs out of the root")


async def test_read_refuses_absolute_paths(root: Path, outside: Path, invoke: Invoke) -> None:
    result = await invoke(read_file(root), path=str(outside / "secret.txt"))
    assert_refused(result, "absolute path")


async def test_read_refuses_absolute_paths_even_inside_the_root(root: Path, invoke: Invoke) -> None:
    (root / "inside.txt").write_text("inside")
    assert_refused(await invoke(read_file(root), path=str(root / "inside.txt")), "absolute")


async def test_read_refuses_a_file_symlink_leading_out(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    assert_refused(await invoke(read_file(root), path="link.txt"), "through a symlink")


async def test_read_refuses_a_directory_symlink_leading_out(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    (root / "docs").symlink_to(outside)
    assert_refused(await invoke(read_file(root), path="docs/secret.txt"), "through a symlink")


async def test_read_refuses_a_relative_symlink_climbing_out(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    (root / "sneaky").symlink_to("../outside/secret.txt")
    assert_refused(await invoke(read_file(root), path="sneaky"))


async def test_read_follows_a_symlink_that_stays_inside(root: Path, invoke: Invoke) -> None:
    (root / "real.txt").write_text("real content")
    (root / "alias.txt").symlink_to("real.txt")
    assert shown_lines(await invoke(read_file(root), path="alias.txt")) == "real content"


def test_read_refuses_a_directory_swapped_for_a_symlink_after_the_check(
    root: Path, outside: Path
) -> None:
    # Between the check (resolve) and the use (open), "data" becomes a symlink out.
    (root / "data").mkdir()
    (root / "data" / "secret.txt").write_text("harmless")
    sandbox = Sandbox(root)
    parts = sandbox.resolve("data/secret.txt")
    (root / "data" / "secret.txt").unlink()
    (root / "data").rmdir()
    (root / "data").symlink_to(outside)
    with pytest.raises(Refused, match="symlink"):
        sandbox.open(parts, shown="data/secret.txt")


def test_read_refuses_a_file_swapped_for_a_symlink_after_the_check(
    root: Path, outside: Path
) -> None:
    (root / "report.txt").write_text("harmless")
    sandbox = Sandbox(root)
    parts = sandbox.resolve("report.txt")
    (root / "report.txt").unlink()
    (root / "report.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(Refused, match="symlink"):
        sandbox.open(parts, shown="report.txt")


async def test_read_of_a_missing_file_says_so(root: Path, invoke: Invoke) -> None:
    result = await invoke(read_file(root), path="nope.txt")
    assert result.is_error
    assert result.as_text() == "'nope.txt' does not exist"


async def test_read_of_a_directory_says_so(root: Path, invoke: Invoke) -> None:
    (root / "folder").mkdir()
    result = await invoke(read_file(root), path="folder")
    assert result.is_error
    assert "is a directory" in result.as_text()


async def test_read_refuses_a_fifo_without_blocking(root: Path, invoke: Invoke) -> None:
    os.mkfifo(root / "pipe")
    assert_refused(await invoke(read_file(root), path="pipe"), "not a regular file")


async def test_read_refuses_binary_files(root: Path, invoke: Invoke) -> None:
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    result = await invoke(read_file(root), path="image.png")
    assert result.is_error
    assert result.as_text() == "'image.png' is a binary file; read_file reads UTF-8 text only"


async def test_read_refuses_text_that_is_not_utf8(root: Path, invoke: Invoke) -> None:
    (root / "latin.txt").write_bytes("café".encode("latin-1"))
    result = await invoke(read_file(root), path="latin.txt")
    assert result.is_error
    assert "is not UTF-8 text" in result.as_text()


async def test_read_caps_its_output_and_says_where_to_read_on(root: Path, invoke: Invoke) -> None:
    (root / "big.txt").write_text("z" * 50 + "\n" + "y" * 50 + "\n" + "x\n")
    text = (await invoke(read_file(root, max_bytes=100), path="big.txt")).as_text()
    assert text.split("\n")[1:] == [
        "     1\t" + "z" * 50,
        "[lines 2-3 not shown; read on with offset=2]",
    ]


async def test_read_cuts_long_lines_with_a_note(root: Path, invoke: Invoke) -> None:
    (root / "wide.txt").write_text("é" * 30)
    result = await invoke(read_file(root, max_line_chars=25), path="wide.txt")
    assert shown_lines(result) == "é" * 25 + " [... 5 more characters]"


def test_read_root_must_be_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        read_file(tmp_path / "file")


# write_file


async def test_write_creates_the_file_and_reports_bytes(root: Path, invoke: Invoke) -> None:
    result = await invoke(write_file(root), path="hello.txt", content="héllo")
    assert result.as_text() == "wrote 6 bytes to hello.txt"
    assert (root / "hello.txt").read_text() == "héllo"


async def test_write_creates_missing_parent_folders(root: Path, invoke: Invoke) -> None:
    result = await invoke(write_file(root), path="a/b/c/out.txt", content="nested")
    assert not result.is_error
    assert (root / "a" / "b" / "c" / "out.txt").read_text() == "nested"


async def test_write_replaces_the_whole_file(root: Path, invoke: Invoke) -> None:
    (root / "f.txt").write_text("a much longer original text")
    await invoke(write_file(root), path="f.txt", content="short")
    assert (root / "f.txt").read_text() == "short"


async def test_write_keeps_the_permission_bits(root: Path, invoke: Invoke) -> None:
    (root / "run.sh").write_text("old")
    (root / "run.sh").chmod(0o750)
    await invoke(write_file(root), path="run.sh", content="new")
    assert stat.S_IMODE((root / "run.sh").stat().st_mode) == 0o750


async def test_write_leaves_no_temporary_files(root: Path, invoke: Invoke) -> None:
    await invoke(write_file(root), path="one.txt", content="1")
    await invoke(write_file(root), path="one.txt", content="2")
    assert os.listdir(root) == ["one.txt"]


async def test_write_refuses_dotdot_out_of_the_root(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    result = await invoke(write_file(root), path="../outside/planted.txt", content="x")
    assert_refused(result, "climbs out")
    assert not (outside / "planted.txt").exists()


async def test_write_refuses_absolute_paths(root: Path, outside: Path, invoke: Invoke) -> None:
    result = await invoke(write_file(root), path=str(outside / "planted.txt"), content="x")
    assert_refused(result, "absolute")
    assert not (outside / "planted.txt").exists()


async def test_write_refuses_a_directory_symlink_leading_out(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    (root / "out").symlink_to(outside)
    result = await invoke(write_file(root), path="out/planted.txt", content="x")
    assert_refused(result, "symlink")
    assert not (outside / "planted.txt").exists()


async def test_write_refuses_a_file_symlink_leading_out(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    (root / "secret.txt").symlink_to(outside / "secret.txt")
    result = await invoke(write_file(root), path="secret.txt", content="overwritten")
    assert_refused(result, "symlink")
    assert (outside / "secret.txt").read_text() == "TOP SECRET"


async def test_write_refuses_a_dangling_symlink_leading_out(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    (root / "new.txt").symlink_to(outside / "created-by-write.txt")
    result = await invoke(write_file(root), path="new.txt", content="x")
    assert_refused(result)
    assert not (outside / "created-by-write.txt").exists()


def test_write_refuses_a_directory_swapped_for_a_symlink_after_the_check(
    root: Path, outside: Path
) -> None:
    (root / "data").mkdir()
    sandbox = Sandbox(root)
    parts = sandbox.resolve("data/planted.txt")
    (root / "data").rmdir()
    (root / "data").symlink_to(outside)
    with pytest.raises(Refused, match="symlink"):
        sandbox.write(parts, b"x", shown="data/planted.txt")
    assert not (outside / "planted.txt").exists()


def test_write_refuses_a_file_swapped_for_a_symlink_after_the_check(
    root: Path, outside: Path
) -> None:
    (root / "report.txt").write_text("mine")
    sandbox = Sandbox(root)
    parts = sandbox.resolve("report.txt")
    (root / "report.txt").unlink()
    (root / "report.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(Refused, match="symlink"):
        sandbox.write(parts, b"overwritten", shown="report.txt")
    assert (outside / "secret.txt").read_text() == "TOP SECRET"


async def test_write_refuses_content_over_the_cap(root: Path, invoke: Invoke) -> None:
    result = await invoke(write_file(root, max_bytes=10), path="big.txt", content="x" * 11)
    assert result.is_error
    assert "11 bytes, over the limit of 10" in result.as_text()
    assert not (root / "big.txt").exists()


async def test_write_to_a_directory_says_so(root: Path, invoke: Invoke) -> None:
    (root / "folder").mkdir()
    result = await invoke(write_file(root), path="folder", content="x")
    assert result.is_error
    assert "is a directory" in result.as_text()


async def test_write_through_a_file_used_as_a_folder_says_so(root: Path, invoke: Invoke) -> None:
    (root / "plain").write_text("x")
    result = await invoke(write_file(root), path="plain/child.txt", content="x")
    assert result.is_error
    assert "not a directory" in result.as_text()


async def test_write_of_an_empty_path_is_an_error(root: Path, invoke: Invoke) -> None:
    result = await invoke(write_file(root), path="", content="x")
    assert result.is_error
    assert "empty" in result.as_text()
