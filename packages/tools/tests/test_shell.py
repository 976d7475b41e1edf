"""shell runs real programs: literal arguments, the allow-list, and bounded processes."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path

import pytest

from automata.tools import shell

from .conftest import Invoke

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")


def process_is_gone(pid: int, wait: float = 3.0) -> bool:
    """True once `pid` has exited (a zombie nobody reaped counts as exited)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        stat_file = Path(f"/proc/{pid}/stat")
        try:
            state = stat_file.read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        except OSError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            state = "?"
        if state == "Z":
            return True
        time.sleep(0.02)
    return False


async def test_runs_an_allowed_program_and_returns_its_output(
    tmp_path: Path, invoke: Invoke
) -> None:
    result = await invoke(shell(["echo"], cwd=tmp_path), command="echo", args=["hello", "world"])
    assert not result.is_error
    assert result.as_text() == "hello world\n"


async def test_shell_metacharacters_are_passed_literally(tmp_path: Path, invoke: Invoke) -> None:
    tricky = [
        "$(touch pwned)",
        "`touch pwned2`",
        "; touch pwned3",
        "a | b",
        "*",
        "> out",
        "&&",
        "$HOME",
    ]
    result = await invoke(shell(["printf"], cwd=tmp_path), command="printf", args=["%s\n", *tricky])
    assert result.as_text().splitlines() == tricky
    assert os.listdir(tmp_path) == []


async def test_a_program_outside_the_allow_list_is_refused(tmp_path: Path, invoke: Invoke) -> None:
    result = await invoke(shell(["echo"], cwd=tmp_path), command="rm", args=["-rf", str(tmp_path)])
    assert result.is_error
    assert result.as_text() == "refused: program 'rm' is not allowed; allowed programs: echo"
    assert os.listdir(tmp_path) == []  # rm never ran


async def test_an_empty_allow_list_allows_nothing(tmp_path: Path, invoke: Invoke) -> None:
    result = await invoke(shell([], cwd=tmp_path), command="echo", args=["hi"])
    assert result.is_error
    assert "allowed programs: none" in result.as_text()


async def test_a_path_to_an_allowed_program_is_not_the_program(
    tmp_path: Path, invoke: Invoke
) -> None:
    echo = shutil.which("echo")
    result = await invoke(shell(["echo"], cwd=tmp_path), command=echo, args=["hi"])
    assert result.is_error
    assert result.as_text().startswith("refused:")


async def test_a_command_line_in_command_is_refused_with_a_hint(
    tmp_path: Path, invoke: Invoke
) -> None:
    result = await invoke(shell(["echo"], cwd=tmp_path), command="echo hi; id")
    assert result.is_error
    assert "put arguments in args" in result.as_text()


async def test_allowed_names_are_pinned_when_the_tool_is_built(
    tmp_path: Path, invoke: Invoke
) -> None:
    # A program planted on PATH after the tool was built is not what runs.
    planted_dir = tmp_path / "bin"
    planted_dir.mkdir()
    env = {"PATH": f"{planted_dir}{os.pathsep}{os.environ['PATH']}"}
    tool = shell(["echo"], cwd=tmp_path, env=env)
    planted = planted_dir / "echo"
    planted.write_text("#!/bin/sh\nprintf 'planted\\n'\n")
    planted.chmod(0o755)
    assert (await invoke(tool, command="echo", args=["real"])).as_text() == "real\n"


async def test_non_zero_exit_is_an_error_that_includes_the_output(
    tmp_path: Path, invoke: Invoke
) -> None:
    script = "echo to-stdout; echo to-stderr >&2; exit 3"
    result = await invoke(shell(["sh"], cwd=tmp_path), command="sh", args=["-c", script])
    assert result.is_error
    assert result.as_text() == f"sh -c '{script}' exited with code 3\nto-stdout\nto-stderr\n"


async def test_stdout_and_stderr_are_merged_in_order(tmp_path: Path, invoke: Invoke) -> None:
    script = "echo one; echo two >&2; echo three"
    result = await invoke(shell(["sh"], cwd=tmp_path), command="sh", args=["-c", script])
    assert result.as_text() == "one\ntwo\nthree\n"


async def test_runs_in_the_configured_folder(tmp_path: Path, invoke: Invoke) -> None:
    assert (await invoke(shell(["pwd"], cwd=tmp_path), command="pwd")).as_text() == f"{tmp_path}\n"


async def test_the_servers_environment_is_not_passed_on(
    tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTOMATA_TEST_API_KEY", "sk-do-not-leak")
    result = await invoke(shell(["env"], cwd=tmp_path), command="env")
    assert "sk-do-not-leak" not in result.as_text()
    assert "PATH=" in result.as_text()


async def test_an_explicit_environment_replaces_the_default(tmp_path: Path, invoke: Invoke) -> None:
    tool = shell(["env"], cwd=tmp_path, env={"ONLY": "this"})
    assert (await invoke(tool, command="env")).as_text() == "ONLY=this\n"


async def test_stdin_is_empty(tmp_path: Path, invoke: Invoke) -> None:
    result = await invoke(shell(["cat"], cwd=tmp_path, timeout=5), command="cat")
    assert result.as_text() == "(no output)"


async def test_runaway_output_is_capped_and_the_program_stopped(
    tmp_path: Path, invoke: Invoke
) -> None:
    started = time.monotonic()
    result = await invoke(
        shell(["yes"], cwd=tmp_path, max_output_bytes=1000, timeout=20), command="yes"
    )
    assert result.is_error
    text = result.as_text()
    assert text.startswith("y\n" * 500)
    assert text.endswith("[output truncated at 1000 bytes; yes was stopped before it finished]")
    assert time.monotonic() - started < 5


async def test_a_timeout_kills_the_program(tmp_path: Path, invoke: Invoke) -> None:
    started = time.monotonic()
    result = await invoke(shell(["sleep"], cwd=tmp_path, timeout=0.3), command="sleep", args=["30"])
    assert result.is_error
    assert result.as_text() == "sleep 30 timed out after 0.3 s and was killed"
    assert time.monotonic() - started < 5


async def test_a_timeout_kills_grandchildren_too(tmp_path: Path, invoke: Invoke) -> None:
    script = "sleep 60 & echo $! > grandchild.pid; wait"
    tool = shell(["sh"], cwd=tmp_path, timeout=0.5)
    result = await invoke(tool, command="sh", args=["-c", script])
    assert "timed out" in result.as_text()
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    assert process_is_gone(grandchild)


async def test_background_children_do_not_outlive_the_call(tmp_path: Path, invoke: Invoke) -> None:
    # The program exits at once but leaves a child holding the output pipe.
    script = "sleep 60 & echo $!"
    started = time.monotonic()
    result = await invoke(
        shell(["sh"], cwd=tmp_path, timeout=20), command="sh", args=["-c", script]
    )
    assert time.monotonic() - started < 5
    assert not result.is_error
    assert process_is_gone(int(result.as_text()))


async def test_cancelling_the_call_kills_the_process_group(tmp_path: Path, invoke: Invoke) -> None:
    script = "sleep 60 & echo $! > grandchild.pid; wait"
    tool = shell(["sh"], cwd=tmp_path, timeout=30)
    call = asyncio.create_task(invoke(tool, command="sh", args=["-c", script]))
    pid_file = tmp_path / "grandchild.pid"
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert process_is_gone(int(pid_file.read_text()))


async def test_a_signal_death_is_reported(tmp_path: Path, invoke: Invoke) -> None:
    result = await invoke(shell(["sh"], cwd=tmp_path), command="sh", args=["-c", "kill -SEGV $$"])
    assert result.is_error
    assert "was killed by SIGSEGV" in result.as_text()


def test_an_allowed_program_that_does_not_exist_fails_at_build_time() -> None:
    with pytest.raises(ValueError, match="no-such-program-xyz"):
        shell(["no-such-program-xyz"])


def test_a_relative_path_in_the_allow_list_is_rejected() -> None:
    with pytest.raises(ValueError, match="absolute path"):
        shell(["./script.sh"])


def test_a_single_string_allow_list_is_rejected() -> None:
    with pytest.raises(TypeError):
        shell("echo")


def test_the_description_lists_the_allowed_programs() -> None:
    assert "Allowed programs: echo, printf." in shell(["printf", "echo"]).description
