"""read_file and write_file under attack: a directory swapped for a symlink by a racing
thread, symlink loops, and paths built to exhaust the file system."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from automata.core import ToolResult
from automata.tools import Sandbox, ToolError, read_file, write_file

from .conftest import Invoke, shown_lines


def assert_typed_and_contained(result: ToolResult, root: Path) -> None:
    text = result.as_text()
    assert "TOP SECRET" not in text
    assert str(root.parent) not in text


@pytest.mark.usefixtures("swapper")
async def test_racing_symlink_swaps_give_only_typed_results_and_no_escape(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    reader, writer = read_file(root), write_file(root)
    outcomes: set[str] = set()
    for n in range(1500):
        read = await invoke(reader, path="d/secret.txt")
        assert_typed_and_contained(read, root)
        assert read.is_error or shown_lines(read) in ("", "inside")  # "" while being written
        written = await invoke(writer, path=f"d/new{n}.txt", content="x")
        assert_typed_and_contained(written, root)
        outcomes.add(read.as_text().split(" ")[0])
    assert os.listdir(outside) == ["secret.txt"]
    assert len(outcomes) > 1  # the race really happened: more than one outcome


async def test_a_symlink_loop_is_reported_as_a_loop_on_write(root: Path, invoke: Invoke) -> None:
    (root / "loop").symlink_to("loop")
    result = await invoke(write_file(root), path="loop", content="x")
    assert result.as_text() == "'loop' is a symlink loop (too many levels of symbolic links)"


async def test_a_symlink_loop_is_reported_as_a_loop_on_read(root: Path, invoke: Invoke) -> None:
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")
    result = await invoke(read_file(root), path="a/file.txt")
    assert result.as_text() == "'a/file.txt' is a symlink loop (too many levels of symbolic links)"


async def test_write_refuses_a_path_deeper_than_the_limit(root: Path, invoke: Invoke) -> None:
    result = await invoke(write_file(root), path="d/" * 20_000 + "f", content="x")
    assert result.as_text() == "the path is 40001 characters long, over the limit of 1024"
    assert os.listdir(root) == []


async def test_write_refuses_more_folders_than_the_limit(root: Path, invoke: Invoke) -> None:
    path = "d/" * 40 + "f"
    result = await invoke(write_file(root), path=path, content="x")
    assert result.as_text() == f"{path!r} is 40 folders deep, over the limit of 32"
    assert os.listdir(root) == []


async def test_the_limits_are_set_on_the_factory(root: Path, invoke: Invoke) -> None:
    deep = write_file(root, max_depth=50, max_path_chars=200)
    assert not (await invoke(deep, path="d/" * 40 + "f", content="x")).is_error
    assert (root / ("d/" * 40 + "f")).read_text() == "x"
    shallow = read_file(root, max_depth=2)
    result = await invoke(shallow, path="d/d/d/f")
    assert result.as_text() == "'d/d/d/f' is 3 folders deep, over the limit of 2"


def test_sandbox_limits_must_be_positive(root: Path) -> None:
    with pytest.raises(ValueError, match="max_depth must be positive, got 0"):
        Sandbox(root, max_depth=0)
    with pytest.raises(ValueError, match="max_path_chars must be positive, got -1"):
        Sandbox(root, max_path_chars=-1)


async def test_a_vanished_root_is_reported_without_its_path(tmp_path: Path, invoke: Invoke) -> None:
    root = tmp_path / "gone"
    root.mkdir()
    reader = read_file(root)
    os.rmdir(root)
    result = await invoke(reader, path="x.txt")
    assert result.as_text() == "the working folder is no longer available"


def test_a_chain_of_thousands_of_symlinks_is_reported_as_a_loop(root: Path) -> None:
    (root / "f").write_text("end")
    (root / "l1999").symlink_to("f")
    for n in range(1998, -1, -1):
        (root / f"l{n}").symlink_to(f"l{n + 1}")
    with pytest.raises(ToolError) as caught:
        Sandbox(root).resolve("l0")
    assert str(caught.value) == "'l0' is a symlink loop (too many levels of symbolic links)"
