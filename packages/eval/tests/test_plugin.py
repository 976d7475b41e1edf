"""The pytest plugin: inert and cheap unless a project opts in; then each case of an
eval case file is a test that fails with its failed grades' details."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# In-process pytester runs forget modules first imported inside them; importing the
# engine here keeps one copy of its classes across those runs.
import automata.eval._factories
import automata.eval._runner  # noqa: F401

pytest_plugins = ["pytester"]

AGENTS = textwrap.dedent(
    """
    from pathlib import Path

    from automata.core import Agent
    from automata.core.testing import ScriptedProvider, tool_call, tool_calls

    def weather(ctx):
        with Path("built.txt").open("a") as log:
            print(ctx.trial, file=log)
        calls = tool_calls(tool_call("1", "weather", city="Paris"))
        return Agent(ScriptedProvider([calls, "It is sunny in Paris."]), max_steps=3)

    FACTORIES = {"default": weather}
    """
)

CASES = textwrap.dedent(
    """
    cases:
      - name: sunny
        task: "Weather in Paris?"
        expect: {contains: [sunny]}
      - name: rainy
        task: "Weather in Rome?"
        expect: {contains: [rain], forbidden_tools: [weather]}
    """
)


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Run pytest in the project, without the plugins that are slow to start up."""
    quick = ("-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:cacheprovider")
    return project.runpytest_inprocess(*quick, *args)


def opt_in(project: pytest.Pytester, *extra: str) -> None:
    """Write the ini file that opts the project in, with `extra` lines."""
    lines = [
        "[pytest]",
        "asyncio_default_fixture_loop_scope = function",
        "automata_eval_agents = eval_factories:FACTORIES",
        *extra,
    ]
    project.makeini("\n".join(lines) + "\n")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(eval_factories=AGENTS)
    pytester.makefile(".yaml", eval_weather=CASES)
    pytester.syspathinsert()
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


def test_without_the_ini_option_case_files_are_not_collected(project: pytest.Pytester) -> None:
    """E19: not opted in, the plugin collects nothing."""
    result = run(project)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_the_plugin_imports_nothing_beyond_pytest_and_the_standard_library() -> None:
    """E19: importing it pulls in neither the core, pydantic nor yaml."""
    probe = (
        "import sys, pytest\n"
        "import automata.eval._pytest_plugin\n"
        "heavy = [m for m in ('automata.core', 'automata.eval._model', 'pydantic', 'yaml')"
        " if m in sys.modules]\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_opted_in_each_case_is_a_test_failing_with_its_grades(project: pytest.Pytester) -> None:
    """E20: one item per case; a failure lists failed grades and the transcript summary."""
    opt_in(project)
    result = run(project, "-v", "-m", "automata_eval")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*eval_weather.yaml::sunny PASSED*",
            "*eval_weather.yaml::rainy FAILED*",
            "*eval case 'rainy' failed:*",
            "*forbidden_tools: called forbidden: weather*",
            "*contains: missing ?'rain'? in 'It is sunny in Paris.'*",
            "*| user: Weather in Rome?*",
            '*| call: weather(city="Paris")*',
        ]
    )


def test_trials_and_file_globs_come_from_ini_options(project: pytest.Pytester) -> None:
    """E20: automata_eval_trials and automata_eval_files."""
    project.makefile(".yaml", checks_extra="name: extra\ntask: t\nexpect: {contains: [sunny]}\n")
    opt_in(project, "automata_eval_files = checks_*.yaml", "automata_eval_trials = 3")
    result = run(project)
    result.assert_outcomes(passed=1)
    built = (project.path / "built.txt").read_text(encoding="utf-8").split()
    assert sorted(built) == ["0", "1", "2"]


def test_an_invalid_case_file_is_a_collection_error(project: pytest.Pytester) -> None:
    """E20: the error names the file and the case."""
    project.makefile(".yaml", eval_broken="- {name: oops, task: t, expect: {nope: 1}}\n")
    opt_in(project)
    result = run(project)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*eval_broken.yaml: case 'oops': expect.nope*"])
