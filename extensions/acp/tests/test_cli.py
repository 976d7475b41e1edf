"""The command line: what a target may be and how a bad one is reported."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from automata.acp import DEFAULT_MAX_SESSIONS, AcpServer, load_target
from automata.acp._cli import server_for

from .editor import CLI, HERE


def test_load_target_reads_module_colon_attribute() -> None:
    """A8"""
    assert load_target("automata.acp:AcpServer") is AcpServer
    with pytest.raises(ValueError, match="module:attribute"):
        load_target("automata.acp")
    with pytest.raises(AttributeError):
        load_target("automata.acp:nothing_here")


def test_flags_make_the_permission_rule_and_an_acp_server_is_served_as_it_is() -> None:
    """A8"""
    server = AcpServer(lambda: None, ask_permission={"x"})  # type: ignore[arg-type,return-value]
    assert server_for(server, ask=(), ask_all=False, name=None) is server
    with pytest.raises(ValueError, match="configure it there"):
        server_for(server, ask=["y"], ask_all=False, name=None)
    made = server_for(print, ask=["a", "b"], ask_all=False, name="n")
    assert (made.ask_permission, made.name) == (frozenset({"a", "b"}), "n")
    assert server_for(print, ask=[], ask_all=True, name=None).ask_permission is True
    with pytest.raises(TypeError, match="cannot serve"):
        server_for(42, ask=[], ask_all=False, name=None)
    with pytest.raises(ValueError, match="configure it there"):
        server_for(server, ask=[], ask_all=False, name=None, max_sessions=3)
    assert server_for(print, ask=[], ask_all=False, name=None, max_sessions=3).max_sessions == 3
    assert server_for(print, ask=[], ask_all=False, name=None).max_sessions == DEFAULT_MAX_SESSIONS


def test_max_sessions_below_one_is_refused() -> None:
    """A14"""
    with pytest.raises(ValueError, match="at least 1"):
        AcpServer(print, max_sessions=0)  # type: ignore[arg-type]


async def test_a_bad_target_exits_with_status_2_and_a_message_on_stderr() -> None:
    """A8"""
    process = await asyncio.create_subprocess_exec(
        str(CLI),
        "editor_agents:missing",
        cwd=HERE,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await process.communicate()
    assert process.returncode == 2
    assert stdout == b""
    assert b"automata-acp:" in stderr
    assert b"missing" in stderr


def test_an_acp_server_serves_an_agent_or_a_thread_service_never_both() -> None:
    """A10"""
    from contextlib import AbstractAsyncContextManager
    from typing import Any

    def opener() -> AbstractAsyncContextManager[Any]:
        raise AssertionError("not opened")

    with pytest.raises(ValueError, match="not both"):
        AcpServer()
    with pytest.raises(ValueError, match="not both"):
        AcpServer(print, threads=opener)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="require_approval"):
        AcpServer(threads=opener, ask_permission=True)
    assert AcpServer(threads=opener).target is None


async def run_cli(target: str, cwd: Path) -> tuple[int | None, bytes, str]:
    """Run the real `automata-acp` on `target` from `cwd`, stdin closed: its exit
    status, stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        str(CLI),
        target,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 30)
    return process.returncode, stdout, stderr.decode()


async def test_a_module_whose_import_raises_exits_2_with_one_line_on_stderr(
    tmp_path: Path,
) -> None:
    """A8: the import's own error, not a traceback and exit status 1."""
    broken = tmp_path / "broken_agent.py"
    broken.write_text('"""An agent."""\n\nagent = Agent("test:model")\n', encoding="utf-8")
    assert await run_cli("broken_agent:agent", tmp_path) == (
        2,
        b"",
        "automata-acp: cannot import 'broken_agent': NameError: name 'Agent' is not "
        f"defined ({broken}, line 3)\n",
    )


async def test_a_module_with_a_syntax_error_exits_2_with_one_line_on_stderr(
    tmp_path: Path,
) -> None:
    """A8"""
    (tmp_path / "typo_agent.py").write_text("agent = Agent(\n", encoding="utf-8")
    assert await run_cli("typo_agent:agent", tmp_path) == (
        2,
        b"",
        "automata-acp: cannot import 'typo_agent': SyntaxError: '(' was never closed "
        "(typo_agent.py, line 1)\n",
    )


async def test_a_missing_module_exits_2_naming_it(tmp_path: Path) -> None:
    """A8"""
    assert await run_cli("no_such_agent:agent", tmp_path) == (
        2,
        b"",
        "automata-acp: No module named 'no_such_agent'\n",
    )
