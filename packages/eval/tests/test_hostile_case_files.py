"""Hostile case files are refused at load with `CaseFileError`, before any case runs:
alias bombs, recursive aliases, lone surrogates, bytes that are not UTF-8, and
nesting too deep to parse; the command exits 2 with the reason, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from automata.eval import CaseFileError, load_cases
from automata.eval._case_file import MAX_ALIAS_EXPANSION


def billion_laughs(levels: int = 9) -> str:
    """A case of about 1 kB whose `required_args` expand to 9**levels lists."""
    rows = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    rows += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    body = "\n".join(" " * 6 + row for row in rows)
    return f"name: laughs\ntask: t\nexpect:\n  required_args:\n    search:\n{body}\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_billion_laughs_file_is_refused_at_load(tmp_path: Path) -> None:
    """E1: aliases may not expand a file beyond the bound; the error names the file."""
    path = write(tmp_path / "laughs.yaml", billion_laughs())
    assert len(path.read_bytes()) < 1100
    with pytest.raises(CaseFileError, match="aliases expand the file") as caught:
        load_cases(path)
    assert caught.value.path == path
    assert caught.value.case is None
    assert f"{MAX_ALIAS_EXPANSION:,}" in str(caught.value)


def test_anchors_reused_within_the_bound_still_load(tmp_path: Path) -> None:
    """E1: sharing an `expect:` between cases through an anchor is ordinary YAML."""
    path = write(
        tmp_path / "shared.yaml",
        "cases:\n"
        "  - {name: a, task: t, expect: &common {required_tools: [search], contains: [x]}}\n"
        "  - {name: b, task: t, expect: *common}\n"
        "  - {name: c, task: t, expect: {<<: *common, contains: [y]}}\n",
    )
    a, b, c = load_cases(path)
    assert a.expect == b.expect
    assert (c.expect.required_tools, c.expect.contains) == (("search",), ("y",))


def test_an_alias_inside_its_own_anchor_is_refused(tmp_path: Path) -> None:
    """E1: a recursive alias never reaches validation."""
    path = write(tmp_path / "loop.yaml", "name: loop\ntask: t\ntags: &me [a, *me]\n")
    with pytest.raises(CaseFileError, match="contains its own anchor"):
        load_cases(path)


@pytest.mark.parametrize(
    ("case", "where"),
    [
        ('name: "bad\\ud800"\ntask: t\n', "name holds a lone surrogate"),
        ('name: fine\ntask: "look \\udfff up"\n', "task holds"),
        (
            'name: fine\ntask: t\nexpect: {required_args: {search: {"q\\ud83d": x}}}\n',
            "(a key) holds",
        ),
        ('defaults: {tags: ["\\ud800"]}\ncases: [{name: fine, task: t}]\n', "tags.0 holds"),
    ],
)
def test_a_lone_surrogate_in_a_case_is_refused_at_load(
    tmp_path: Path, case: str, where: str
) -> None:
    """E1: text the report could not write as UTF-8 is refused before the run, and
    the message (which the command prints) is itself writable."""
    path = write(tmp_path / "surrogate.yaml", case)
    with pytest.raises(CaseFileError, match="lone surrogate") as caught:
        load_cases(path)
    assert where in str(caught.value)
    str(caught.value).encode("utf-8")


def test_a_file_that_is_not_utf8_is_refused_with_the_case_file_error(tmp_path: Path) -> None:
    """E1: Latin-1 bytes are a case-file error naming the file and the byte."""
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: café\ntask: t\n".encode("latin-1"))
    with pytest.raises(CaseFileError, match=r"not UTF-8 text \(byte 9") as caught:
        load_cases(path)
    assert caught.value.path == path


def test_nesting_too_deep_to_parse_is_refused(tmp_path: Path) -> None:
    """E1: the parser's recursion limit is a case-file error, not a RecursionError."""
    path = write(tmp_path / "deep.yaml", "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(CaseFileError, match="nests too deep"):
        load_cases(path)


AGENTS = textwrap.dedent(
    """
    from automata.core import Agent
    from automata.core.testing import ScriptedProvider

    FACTORIES = {"default": lambda ctx: Agent(ScriptedProvider(["done"]))}
    """
)


def _bounded_memory() -> None:  # pragma: no cover - runs in the child
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def command(directory: Path, case_file: str) -> subprocess.CompletedProcess[str]:
    """`automata-eval run` in a child process (memory bounded to 2 GiB, 60 s)."""
    (directory / "hostile_agents.py").write_text(AGENTS, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(directory)}
    return subprocess.run(
        [sys.executable, "-m", "automata.eval", "run", "--cases", case_file,
         "--agents", "hostile_agents:FACTORIES", "--trials", "1", "--out", "out"],
        cwd=directory, env=env, capture_output=True, text=True, timeout=60,
        preexec_fn=_bounded_memory if sys.platform == "linux" else None,
    )  # fmt: skip


def test_the_command_refuses_a_billion_laughs_file_with_exit_2(tmp_path: Path) -> None:
    """E18: exit 2 and one error line naming the file; no run, no traceback."""
    write(tmp_path / "laughs.yaml", billion_laughs())
    done = command(tmp_path, "laughs.yaml")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith("automata-eval: error: laughs.yaml: aliases expand")
    assert "Traceback" not in done.stderr
    assert "ExceptionGroup" not in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'name: "x\\ud800"\ntask: t\n', "lone surrogate"),
        ("name: café\ntask: t\n".encode("latin-1"), "not UTF-8 text"),
    ],
)
def test_the_command_refuses_unwritable_text_before_the_run(
    tmp_path: Path, content: bytes, message: str
) -> None:
    """E18: exit 2 before any trial (no progress line, no report directory)."""
    (tmp_path / "bad.yaml").write_bytes(content)
    done = command(tmp_path, "bad.yaml")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith("automata-eval: error: bad.yaml: ")
    assert message in done.stderr
    assert "[1/1]" not in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()
