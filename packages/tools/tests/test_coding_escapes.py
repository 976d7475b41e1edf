"""The file tools' escape cases, rerun on every coding tool: `..`, absolute paths,
symlinks out (to a file, to a folder, relative), FIFOs, folders swapped for symlinks
after the check or while a walk runs, and over-long paths."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from automata.core import ToolResult
from automata.tools import Refused, Sandbox, edit_file, glob, grep, list_dir, read_file

from .conftest import Invoke

Call = Callable[[Path, Invoke, str], Coroutine[Any, Any, ToolResult]]
SECRET_VERSION = hashlib.sha256(b"TOP SECRET").hexdigest()[:16]


async def call_read(root: Path, invoke: Invoke, path: str) -> ToolResult:
    return await invoke(read_file(root), path=path)


async def call_edit(root: Path, invoke: Invoke, path: str) -> ToolResult:
    return await invoke(
        edit_file(root), path=path, version=SECRET_VERSION, old_text="TOP", new_text="NO"
    )


async def call_grep(root: Path, invoke: Invoke, path: str) -> ToolResult:
    return await invoke(grep(root), pattern="SECRET", path=path)


async def call_glob(root: Path, invoke: Invoke, path: str) -> ToolResult:
    return await invoke(glob(root), pattern="**/*", path=path)


async def call_list(root: Path, invoke: Invoke, path: str) -> ToolResult:
    return await invoke(list_dir(root), path=path)


FILE_TOOLS: dict[str, Call] = {"read_file": call_read, "edit_file": call_edit, "grep": call_grep}
FOLDER_TOOLS: dict[str, Call] = {"grep": call_grep, "glob": call_glob, "list_dir": call_list}
EVERY_TOOL: dict[str, Call] = {**FILE_TOOLS, **FOLDER_TOOLS}


def assert_refused(result: ToolResult, fragment: str, outside: Path) -> None:
    """Refused, saying why, without the secret or a server path the model did not give."""
    text = result.as_text()
    assert result.is_error
    assert text.startswith("refused:"), text
    assert fragment in text
    assert "TOP SECRET" not in text
    assert (outside / "secret.txt").read_text() == "TOP SECRET"
    given = text.split("'")[1]
    assert str(outside.parent) not in text.replace(given, "")


def by_name(tools: dict[str, Call]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("call", list(tools.values()), ids=list(tools))


@by_name(EVERY_TOOL)
async def test_dotdot_out_of_the_root_is_refused(
    root: Path, outside: Path, invoke: Invoke, call: Call
) -> None:
    """CT6"""
    result = await call(root, invoke, "../outside/secret.txt")
    assert_refused(result, "climbs out of the root with '..'", outside)


@by_name(EVERY_TOOL)
async def test_absolute_paths_are_refused_even_inside_the_root(
    root: Path, outside: Path, invoke: Invoke, call: Call
) -> None:
    """CT6"""
    (root / "inside.txt").write_text("x")
    assert_refused(await call(root, invoke, str(outside / "secret.txt")), "absolute", outside)
    assert_refused(await call(root, invoke, str(root)), "absolute", outside)


@by_name(FILE_TOOLS)
async def test_a_file_symlink_leading_out_is_refused(
    root: Path, outside: Path, invoke: Invoke, call: Call
) -> None:
    """CT6"""
    (root / "link.txt").symlink_to(outside / "secret.txt")
    assert_refused(await call(root, invoke, "link.txt"), "through a symlink", outside)


@by_name(EVERY_TOOL)
async def test_a_folder_symlink_leading_out_is_refused(
    root: Path, outside: Path, invoke: Invoke, call: Call
) -> None:
    """CT6"""
    (root / "docs").symlink_to(outside)
    assert_refused(await call(root, invoke, "docs"), "through a symlink", outside)


@by_name(EVERY_TOOL)
async def test_a_relative_symlink_climbing_out_is_refused(
    root: Path, outside: Path, invoke: Invoke, call: Call
) -> None:
    """CT6"""
    (root / "sneaky").symlink_to("../outside")
    assert_refused(await call(root, invoke, "sneaky"), "through a symlink", outside)


@by_name(EVERY_TOOL)
async def test_an_over_long_path_is_refused_before_any_file_work(
    root: Path, invoke: Invoke, call: Call
) -> None:
    """CT6"""
    result = await call(root, invoke, "d/" * 600)
    assert result.as_text() == "the path is 1200 characters long, over the limit of 1024"


@by_name(FOLDER_TOOLS)
async def test_a_walk_lists_symlinks_but_never_enters_or_reads_through_them(
    root: Path, outside: Path, invoke: Invoke, call: Call
) -> None:
    """CT6: a symlinked folder out, a symlink to a file out, and a loop, met during a
    walk of the root: nothing of the outside is read, and the walk ends."""
    (root / "docs").symlink_to(outside)
    (root / "secret-link").symlink_to(outside / "secret.txt")
    (root / "loop").symlink_to("loop")
    (root / "self").symlink_to(".")
    (root / "plain.txt").write_text("SECRET is a word here too\n")
    result = await call(root, invoke, ".")
    assert not result.is_error
    assert "TOP SECRET" not in result.as_text()
    assert "docs/" not in result.as_text()  # shown as docs@, never walked into


async def test_glob_and_list_dir_mark_symlinks_that_they_do_not_follow(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    """CT6"""
    (root / "docs").symlink_to(outside)
    assert (await invoke(glob(root), pattern="**/*")).as_text() == "docs@"
    assert (await invoke(list_dir(root))).as_text() == "docs@"
    assert (await invoke(grep(root), pattern="SECRET")).as_text() == (
        "no lines match 'SECRET'\n[0 matching lines in 0 files; 0 files searched]"
    )


@by_name(FILE_TOOLS)
async def test_a_fifo_is_refused_or_skipped_without_blocking(
    root: Path, outside: Path, invoke: Invoke, call: Call
) -> None:
    """CT6"""
    os.mkfifo(root / "pipe")
    assert_refused(await call(root, invoke, "pipe"), "not a regular file", outside)


async def test_a_walk_passes_a_fifo_by_without_opening_it(root: Path, invoke: Invoke) -> None:
    """CT6"""
    os.mkfifo(root / "pipe")
    walked = await invoke(grep(root), pattern="x")
    assert walked.as_text().endswith("[0 matching lines in 0 files; 0 files searched]")


def test_a_folder_swapped_for_a_symlink_after_the_check_is_refused(
    root: Path, outside: Path
) -> None:
    """CT6: the walks open their folder as `open` does, one component at a time."""
    (root / "data").mkdir()
    sandbox = Sandbox(root)
    parts = sandbox.resolve("data")
    (root / "data").rmdir()
    (root / "data").symlink_to(outside)
    with pytest.raises(Refused, match="symlink"):
        sandbox.open_directory(parts, shown="data")


@pytest.mark.usefixtures("swapper")
async def test_racing_symlink_swaps_never_lead_a_walk_or_an_edit_out(
    root: Path, outside: Path, invoke: Invoke
) -> None:
    """CT6: `d` keeps turning into a folder, a symlink out, a dangling symlink and a
    loop while glob, grep, list_dir and edit_file run on it."""
    tools = (glob(root), grep(root), list_dir(root), edit_file(root))
    outcomes: set[str] = set()
    for _ in range(300):
        results = [
            await invoke(tools[0], pattern="**/*"),
            await invoke(tools[0], pattern="*", path="d"),
            await invoke(tools[1], pattern="SECRET|inside"),
            await invoke(tools[1], pattern="SECRET|inside", path="d"),
            await invoke(tools[2], path="d"),
            await invoke(
                tools[3], path="d/secret.txt", version=SECRET_VERSION, old_text="T", new_text="x"
            ),
        ]
        for result in results:
            assert "TOP SECRET" not in result.as_text()
            assert str(root.parent) not in result.as_text()
            outcomes.add(result.as_text().split(" ")[0])
    assert os.listdir(outside) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "TOP SECRET"
    assert len(outcomes) > 3  # the race really happened
