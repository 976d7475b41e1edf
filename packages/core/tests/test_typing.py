"""Type-level specifications: `mypy --strict` accepts code that uses deps and typed
output as declared, and rejects wrong deps and wrong output types at the call site
(docs/loop.md, L62, L64, L71). Each snippet is checked by running mypy on it."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

PRELUDE = """\
from dataclasses import dataclass

from pydantic import BaseModel

from automata.core import Agent, RunContext, ToolContext
from automata.core.testing import ScriptedProvider


@dataclass
class Database:
    url: str


class City(BaseModel):
    name: str


agent = Agent(ScriptedProvider([]), deps_type=Database)
plain = Agent(ScriptedProvider([]))


@agent.tool
def lookup(ctx: ToolContext[Database], key: str) -> str:
    return ctx.deps.url + key
"""


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for this module's mypy runs, apart from the project's own."""
    return tmp_path_factory.mktemp("mypy_cache")


def mypy_errors(tmp_path: Path, body: str, cache: Path) -> list[str]:
    """mypy --strict's error lines for PRELUDE + body, as `line: message [code]`, with
    line numbers counted from the start of `body`."""
    source = PRELUDE + "\n\nasync def check() -> None:\n" + textwrap.indent(body, "    ")
    path = tmp_path / "snippet.py"
    path.write_text(source, encoding="utf-8")
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(cache),
            "--no-error-summary",
            "--hide-error-context",
            "--show-error-codes",
            str(path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    offset = PRELUDE.count("\n") + 3
    errors = []
    for line in completed.stdout.splitlines():
        match = re.match(r".*snippet\.py:(\d+): error: (.*)$", line)
        if match:
            errors.append(f"{int(match.group(1)) - offset}: {match.group(2)}")
    if completed.returncode not in (0, 1) or (completed.returncode == 1 and not errors):
        pytest.fail(f"mypy did not run: {completed.stdout}{completed.stderr}")
    return errors


def test_declared_deps_and_output_types_check_cleanly(tmp_path: Path, mypy_cache: Path) -> None:
    """L62, L64."""
    body = """\
result = await agent.run("x", deps=Database("sqlite://"))
text: str = result.output
typed = await agent.run("x", output_type=City, deps=Database("sqlite://"))
city: City = typed.output
session = agent.session()
await session.run("y", deps=Database("sqlite://"))
async with agent.iter("x", deps=Database("sqlite://")) as steps:
    async for step in steps:
        print(step.messages)
await plain.run("x")
"""
    assert mypy_errors(tmp_path, body, mypy_cache) == []


def test_deps_of_the_wrong_type_are_rejected_on_every_run_method(
    tmp_path: Path, mypy_cache: Path
) -> None:
    """L62."""
    body = """\
await agent.run("x", deps="not a db")
agent.run_sync("x", deps=1)
agent.stream("x", deps=1)
agent.iter("x", deps=1)
await agent.session().run("x", deps="not a db")
await plain.run("x", deps=Database("sqlite://"))
"""
    assert mypy_errors(tmp_path, body, mypy_cache) == [
        '1: No overload variant of "run" of "RunSurface" matches argument types "str", "str"'
        "  [call-overload]",
        '2: No overload variant of "run_sync" of "RunSurface" matches argument types "str", '
        '"int"  [call-overload]',
        '3: No overload variant of "stream" of "RunSurface" matches argument types "str", '
        '"int"  [call-overload]',
        '4: No overload variant of "iter" of "RunSurface" matches argument types "str", "int"'
        "  [call-overload]",
        '5: No overload variant of "run" of "RunSurface" matches argument types "str", "str"'
        "  [call-overload]",
        '6: No overload variant of "run" of "RunSurface" matches argument types "str", '
        '"Database"  [call-overload]',
    ]


def test_a_tool_and_a_dynamic_prompt_see_deps_as_their_declared_type(
    tmp_path: Path, mypy_cache: Path
) -> None:
    """L62, L65."""
    body = """\
def prompt(ctx: RunContext[Database]) -> str:
    return ctx.deps.nope
def tool_body(ctx: ToolContext[Database]) -> int:
    return ctx.deps.url
"""
    assert mypy_errors(tmp_path, body, mypy_cache) == [
        '2: Returning Any from function declared to return "str"  [no-any-return]',
        '2: "Database" has no attribute "nope"  [attr-defined]',
        '4: Incompatible return value type (got "str", expected "int")  [return-value]',
    ]


def test_typed_output_of_the_wrong_type_is_rejected(tmp_path: Path, mypy_cache: Path) -> None:
    """L64."""
    body = """\
typed = await agent.run("x", output_type=City)
wrong: int = typed.output
streamed = agent.stream("x", output_type=int)
name: str = streamed.result.output
"""
    assert mypy_errors(tmp_path, body, mypy_cache) == [
        '2: Incompatible types in assignment (expression has type "City", variable has type'
        ' "int")  [assignment]',
        '4: Incompatible types in assignment (expression has type "int", variable has type'
        ' "str")  [assignment]',
    ]


def test_an_output_validator_is_checked_for_its_deps_and_its_value_type(
    tmp_path: Path, mypy_cache: Path
) -> None:
    """L71: a validator taking other deps, or returning another type than it takes, is
    rejected where it is registered; one that fits checks cleanly."""
    body = """\
def fits(ctx: RunContext[Database], city: City) -> City:
    return City(name=ctx.deps.url + city.name)
agent.output_validator(fits)
def other_deps(ctx: RunContext[int], city: City) -> City:
    return city
agent.output_validator(other_deps)
def other_value(ctx: RunContext[Database], city: City) -> int:
    return 1
agent.output_validator(other_value)
"""
    assert mypy_errors(tmp_path, body, mypy_cache) == [
        '6: Argument 1 to "output_validator" of "Agent" has incompatible type '
        '"Callable[[RunContext[int], City], City]"; expected '
        '"Callable[[RunContext[Database], City], City | Awaitable[City]]"  [arg-type]',
        '9: Cannot infer value of type parameter "OutputT" of "output_validator" of '
        '"Agent"  [misc]',
    ]


def test_guardrails_are_checked_against_the_agents_deps_type(
    tmp_path: Path, mypy_cache: Path
) -> None:
    """L78: a guardrail whose context declares another deps type is rejected, on the
    decorator and in the constructor; one that declares the agent's is accepted."""
    body = """\
from automata.core import GuardrailResult, Message
def fits(ctx: RunContext[Database], messages: tuple[Message, ...]) -> GuardrailResult:
    return GuardrailResult(tripped=ctx.deps.url == "")
def wrong(ctx: RunContext[int], messages: tuple[Message, ...]) -> GuardrailResult:
    return GuardrailResult()
def wrong_out(ctx: RunContext[str], output: object) -> GuardrailResult:
    return GuardrailResult()
agent.input_guardrail(fits)
agent.input_guardrail(wrong)
agent.output_guardrail(wrong_out)
Agent(ScriptedProvider([]), deps_type=Database, input_guardrails=[wrong])
"""
    errors = mypy_errors(tmp_path, body, mypy_cache)
    assert [e.split(":")[0] for e in errors] == ["9", "10", "11"]
    assert all("RunContext[Database]" in e for e in errors), errors
