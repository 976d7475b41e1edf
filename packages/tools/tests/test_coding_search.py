"""grep, glob and list_dir on real trees: their output, and every bound they keep."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from automata.tools import glob, grep, list_dir

from .conftest import Invoke


@pytest.fixture
def tree(root: Path) -> Path:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "core.py").write_text("import os\n\ndef run():\n    return os.sep\n")
    (root / "src" / "main.py").write_text("from pkg import core\n\ncore.run()\n")
    (root / "README.md").write_text("# Demo\nRun it.\n")
    return root


# grep


async def test_grep_prints_matching_lines_as_path_line_text(tree: Path, invoke: Invoke) -> None:
    """CT7"""
    result = await invoke(grep(tree), pattern=r"\brun\b")
    assert result.as_text().split("\n") == [
        "src/main.py:3:core.run()",
        "src/pkg/core.py:3:def run():",
        "[2 matching lines in 2 files; 3 files searched]",
    ]


async def test_grep_shows_context_lines_and_separates_groups(root: Path, invoke: Invoke) -> None:
    """CT7"""
    (root / "f.txt").write_text("".join(f"{n}\n" for n in range(1, 11)))
    result = await invoke(grep(root), pattern="^(2|3|8)$", context=1)
    assert result.as_text().split("\n") == [
        "f.txt-1-1",
        "f.txt:2:2",
        "f.txt:3:3",
        "f.txt-4-4",
        "--",
        "f.txt-7-7",
        "f.txt:8:8",
        "f.txt-9-9",
        "[3 matching lines in 1 file; 1 file searched]",
    ]


async def test_grep_filters_files_by_glob_and_folder_and_ignores_case(
    tree: Path, invoke: Invoke
) -> None:
    """CT7"""
    tool = grep(tree)
    by_name = await invoke(tool, pattern="run", include="*.md", ignore_case=True)
    assert by_name.as_text().split("\n")[0] == "README.md:2:Run it."
    in_folder = await invoke(tool, pattern="import", path="src/pkg")
    assert in_folder.as_text().split("\n")[0] == "src/pkg/core.py:1:import os"
    one_file = await invoke(tool, pattern="core", path="src/main.py")
    assert one_file.as_text().split("\n")[:2] == [
        "src/main.py:1:from pkg import core",
        "src/main.py:3:core.run()",
    ]


async def test_grep_says_when_nothing_matches_and_rejects_a_bad_pattern(
    tree: Path, invoke: Invoke
) -> None:
    """CT7"""
    none = await invoke(grep(tree), pattern="zebra")
    assert (
        none.as_text() == "no lines match 'zebra'\n[0 matching lines in 0 files; 3 files searched]"
    )
    bad = await invoke(grep(tree), pattern="(unclosed")
    assert bad.is_error
    assert bad.as_text().startswith("the pattern is not a valid regular expression: ")
    too_long = await invoke(grep(tree), pattern="a" * 1001)
    assert too_long.as_text() == "the pattern is 1001 characters long, over the limit of 1000"
    wide = await invoke(grep(tree, max_context=2), pattern="a", context=3)
    assert wide.as_text() == "context must be from 0 to 2, got 3"


async def test_grep_stops_at_max_matches_and_says_so(root: Path, invoke: Invoke) -> None:
    """CT7"""
    (root / "many.txt").write_text("hit\n" * 50)
    result = await invoke(grep(root, max_matches=5), pattern="hit")
    lines = result.as_text().split("\n")
    assert lines[:-1] == [f"many.txt:{n}:hit" for n in range(1, 6)]
    assert lines[-1] == (
        "[5 matching lines in 1 file; 1 file searched; the search stopped at 5 matching "
        "lines, there may be more: narrow the pattern or path]"
    )


async def test_grep_cuts_long_lines_and_bounds_its_whole_output(root: Path, invoke: Invoke) -> None:
    """CT7"""
    (root / "wide.txt").write_text("x" * 10_000 + "\n")
    cut = await invoke(grep(root, max_line_chars=20), pattern="x")
    assert cut.as_text().split("\n")[0] == "wide.txt:1:" + "x" * 20 + " [... 9980 more characters]"
    (root / "rows.txt").write_text("row\n" * 1000)
    small = await invoke(grep(root, max_output_chars=200, max_matches=1000), pattern="row")
    text = small.as_text()
    assert len(text) < 400
    assert text.endswith(
        "the output reached its limit of 200 characters, there may be more: "
        "narrow the pattern or path]"
    )


async def test_grep_skips_binary_undecodable_and_oversized_files(
    root: Path, invoke: Invoke
) -> None:
    """CT7"""
    (root / "a.bin").write_bytes(b"needle\x00\x01")
    (root / "b.txt").write_bytes("needle café".encode("latin-1"))
    (root / "c.txt").write_text("needle " * 100)
    (root / "d.txt").write_text("needle\n")
    result = await invoke(grep(root, max_file_bytes=100), pattern="needle")
    assert result.as_text().split("\n") == [
        "d.txt:1:needle",
        "[1 matching line in 1 file; 1 file searched, 3 skipped (binary, not UTF-8 or too large)]",
    ]


async def test_a_catastrophic_pattern_ends_at_the_time_limit(root: Path, invoke: Invoke) -> None:
    """CT7: `(a|aa)+$` backtracks exponentially on a line of a's that does not end
    there; the engine's timeout
    ends the search at the call's deadline with what was found before."""
    (root / "a.txt").write_text("aaa\n" + "a" * 5000 + "!\n")
    started = time.monotonic()
    result = await invoke(grep(root, timeout=0.5), pattern="(a|aa)+$")
    assert time.monotonic() - started < 5
    assert result.as_text().split("\n")[0] == "a.txt:1:aaa"
    assert "the search stopped at its time limit" in result.as_text()


# glob


async def test_glob_matches_across_folders_with_double_star(tree: Path, invoke: Invoke) -> None:
    """CT8: paths come relative to the root, in name order."""
    assert (await invoke(glob(tree), pattern="**/*.py")).as_text() == (
        "src/main.py\nsrc/pkg/core.py"
    )
    assert (await invoke(glob(tree), pattern="*.md")).as_text() == "README.md"
    assert (await invoke(glob(tree), pattern="*.py", path="src")).as_text() == "src/main.py"
    assert (await invoke(glob(tree), pattern="src/*")).as_text() == "src/main.py\nsrc/pkg/"
    assert (await invoke(glob(tree), pattern="*.rs")).as_text() == "no paths match '*.rs'"


async def test_glob_stops_at_max_matches_and_says_how_many_more(root: Path, invoke: Invoke) -> None:
    """CT8"""
    for n in range(12):
        (root / f"f{n:02}.txt").write_text("")
    lines = (await invoke(glob(root, max_matches=10), pattern="*.txt")).as_text().split("\n")
    assert lines[:10] == [f"f{n:02}.txt" for n in range(10)]
    assert lines[10:] == ["[2 more matches not shown; narrow the pattern]"]


async def test_glob_walks_at_most_max_entries(root: Path, invoke: Invoke) -> None:
    """CT8"""
    for n in range(30):
        (root / f"f{n:02}.txt").write_text("")
    text = (await invoke(glob(root, max_entries=10), pattern="**/*.txt")).as_text()
    assert text.split("\n")[-1] == (
        "[the walk stopped after 10 entries; there may be more matches: narrow the path]"
    )
    assert len(text.split("\n")) == 11


async def test_glob_skips_ignored_folders_unless_told(root: Path, invoke: Invoke) -> None:
    """CT8"""
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("")
    (root / "node_modules" / "x").mkdir(parents=True)
    (root / "node_modules" / "x" / "index.js").write_text("")
    listed = await invoke(glob(root), pattern="**/*")
    assert listed.as_text() == ".git/\nnode_modules/"
    everything = await invoke(glob(root, ignore=()), pattern="**/index.js")
    assert everything.as_text() == "node_modules/x/index.js"


async def test_glob_refuses_patterns_that_climb_out(root: Path, invoke: Invoke) -> None:
    """CT6"""
    climbing = await invoke(glob(root), pattern="../*")
    assert (
        climbing.as_text() == "refused: '../*' climbs out with '..'; patterns stay below the folder"
    )
    absolute = await invoke(glob(root), pattern="/etc/*")
    assert absolute.as_text().startswith("refused: '/etc/*' is an absolute pattern")


async def test_a_pattern_of_many_double_stars_matches_in_linear_time(
    root: Path, invoke: Invoke
) -> None:
    """CT8: `**` is matched without backtracking."""
    deep = root.joinpath(*["d"] * 30)
    deep.mkdir(parents=True)
    (deep / "f").write_text("")
    started = time.monotonic()
    result = await invoke(glob(root), pattern="**/" * 100 + "x")
    assert time.monotonic() - started < 2
    assert result.as_text() == "no paths match " + repr("**/" * 100 + "x")


# list_dir


async def test_list_dir_shows_folders_symlinks_and_file_sizes(root: Path, invoke: Invoke) -> None:
    """CT9"""
    (root / "sub").mkdir()
    (root / "a.txt").write_text("hello")
    (root / "link").symlink_to("a.txt")
    assert (await invoke(list_dir(root))).as_text() == "a.txt (5 bytes)\nlink@\nsub/"
    assert (await invoke(list_dir(root), path="sub")).as_text() == "sub: empty folder"


async def test_list_dir_is_bounded(root: Path, invoke: Invoke) -> None:
    """CT9"""
    for n in range(7):
        (root / f"f{n}").write_text("")
    lines = (await invoke(list_dir(root, max_entries=5))).as_text().split("\n")
    assert lines == [f"f{n} (0 bytes)" for n in range(5)] + ["[2 more entries not shown]"]


async def test_list_dir_of_a_file_says_so(root: Path, invoke: Invoke) -> None:
    """CT9"""
    (root / "a.txt").write_text("")
    result = await invoke(list_dir(root), path="a.txt")
    assert result.is_error
    assert result.as_text() == "'a.txt' is a file, not a folder"
