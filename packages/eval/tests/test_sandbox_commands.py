"""Trials that execute commands run them through their sandbox's backend, the shell
tool's own: with a bubblewrap jail the workspace is the one folder they may write."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from automata.core import Agent
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.eval import Case, Expect, FileExpectation, Sandbox, TrialContext, WorkspaceSandbox
from automata.eval import evaluate as run_evaluation
from automata.tools import BubblewrapBackend, HostBackend

_WRITE = """
import sys
with open(sys.argv[1], "w") as handle:
    handle.write("written")
"""

CASE = Case(
    name="build",
    task="Write result.txt, then try to write outside the workspace",
    expect=Expect(files={"result.txt": FileExpectation(contains=("written",))}),
)


def require_bubblewrap() -> None:
    """Fail in CI (.ci/run installs bubblewrap), skip elsewhere, when it is missing."""
    if shutil.which("bwrap", path=os.defpath) and shutil.which("prlimit", path=os.defpath):
        return
    if os.environ.get("CI") == "true":
        pytest.fail("bubblewrap or prlimit is missing: .ci/run installs them")
    pytest.skip("bubblewrap (bwrap) and prlimit are needed for the jail")


def python_for_programs() -> str:
    """As root, jailed programs run as nobody, who cannot reach a Python under /root."""
    return sys.executable if os.geteuid() != 0 else "/usr/bin/python3"


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder every user may write to, outside any workspace (and outside /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="eval-outside-", dir="/var/tmp"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def builder(outside: Path, seen: list[TrialContext]) -> Callable[[TrialContext], Agent[None]]:
    """An agent that writes result.txt in its workspace, then a file in `outside`."""

    def build(ctx: TrialContext) -> Agent[None]:
        seen.append(ctx)
        python = python_for_programs()
        provider = ScriptedProvider(
            [
                tool_calls(
                    tool_call("1", "shell", command=python, args=["-c", _WRITE, "result.txt"]),
                    tool_call(
                        "2", "shell", command=python, args=["-c", _WRITE, str(outside / "x")]
                    ),
                ),
                "Done.",
            ]
        )
        return Agent(provider, tools=[ctx.shell([python], timeout=20)])

    return build


async def test_a_trials_commands_run_in_its_sandboxes_jail(outside: Path) -> None:
    """E7: `ctx.shell` runs commands through the sandbox's backend: in a jail the
    workspace is written and graded, a write anywhere else fails."""
    require_bubblewrap()
    jail = BubblewrapBackend()
    sandbox = WorkspaceSandbox(backend=jail)
    assert isinstance(sandbox, Sandbox)
    seen: list[TrialContext] = []
    report = await run_evaluation(
        [CASE], {"default": builder(outside, seen)}, trials=1, sandbox=sandbox
    )
    [trial] = report.cases[0].trials
    assert [ctx.backend for ctx in seen] == [jail]
    assert trial.passed, trial.grades
    assert [call.is_error for call in trial.tool_calls] == [False, True]
    assert not (outside / "x").exists()


async def test_by_default_a_trials_commands_run_on_the_host(outside: Path) -> None:
    """E7: the default sandbox's backend is the host: the same write outside succeeds."""
    seen: list[TrialContext] = []
    report = await run_evaluation([CASE], {"default": builder(outside, seen)}, trials=1)
    [trial] = report.cases[0].trials
    assert [ctx.backend for ctx in seen] == [HostBackend()]
    assert [call.is_error for call in trial.tool_calls] == [False, False]
    assert (outside / "x").read_text() == "written"
