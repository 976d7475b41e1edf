"""The example's eval suite (`evals/eval_deep_research.yaml`): collected and run by the
pytest plugin offline, and run by `automata-eval run --model` against a local
OpenAI-compatible server that answers with the demo's scripted roles."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import deep_research.evals
import pytest
from automata_wire_testing import WireServer

# In-process pytester runs forget modules first imported inside them; importing the
# engine here keeps one copy of its classes across those runs.
import automata.eval._factories
import automata.eval._runner  # noqa: F401
from automata.eval import load_cases, load_report
from automata.eval._cli import main

from ._chat_completions import answer, role_of

pytest_plugins = ["pytester"]

SUITE = Path(__file__).parents[1] / "evals" / "eval_deep_research.yaml"
MODEL = "gpt-eval-test"

CASES = [
    "orchestrator_delegates_then_writes",
    "orchestrator_names_the_topic_when_it_signs_off",
    "researcher_searches_and_cites_sources",
    "researcher_says_the_evidence_is_thin_when_search_fails",
    "writer_report_has_a_title_sections_and_sources",
    "writer_adds_no_sources_of_its_own",
]

# The smoke researcher case with one gate made wrong: its notes cite example.* URLs.
WRONG = """\
cases:
  - name: researcher_cites_a_source_it_never_found
    agent: researcher
    task: "Research question: heat pump adoption in Norway"
    expect:
      required_tools: [web_search]
      contains: [https://journal.test/]
"""


def test_the_suite_covers_every_agent_and_tier() -> None:
    cases = load_cases(SUITE)
    assert [case.name for case in cases] == CASES
    assert {case.agent for case in cases} == set(deep_research.evals.FACTORIES)
    assert {case.tier for case in cases} == {"regression", "capability", "repair"}
    assert {case.difficulty.value for case in cases} == {"easy", "medium", "hard"}
    assert [case.name for case in cases if case.smoke] == [CASES[0], CASES[2], CASES[4]]


def test_the_plugin_runs_each_case_as_a_test_and_fails_on_a_failed_gate(
    pytester: pytest.Pytester,
) -> None:
    shutil.copy(SUITE, pytester.path / SUITE.name)
    pytester.makefile(".yaml", eval_wrong=WRONG)
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "automata_eval_agents = deep_research.evals:FACTORIES\n"
    )
    quick = ("-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:cacheprovider")
    result = pytester.runpytest_inprocess(*quick, "-v")
    result.assert_outcomes(passed=len(CASES), failed=1)
    result.stdout.fnmatch_lines(
        [
            *(f"*eval_deep_research.yaml::{name} PASSED*" for name in CASES),
            "*eval_wrong.yaml::researcher_cites_a_source_it_never_found FAILED*",
            "*contains: missing ?'https://journal.test/'? in*",
        ]
    )


@pytest.fixture
def openai_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[WireServer]:
    """A local OpenAI-compatible endpoint answering with the demo's roles, set as the
    OpenAI client's base URL."""
    server = WireServer().start()
    server.always(answer)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-eval-test")
    yield server
    server.stop()


def test_the_suite_runs_with_model_against_an_openai_compatible_server(
    openai_server: WireServer, tmp_path: Path
) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "run",
        "--cases",
        str(SUITE),
        "--agents",
        "deep_research.evals:FACTORIES",
        "--model",
        f"openai:{MODEL}",
        "--trials",
        "1",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    code = main(argv, out=out, err=err)
    assert code == 0, out.getvalue() + err.getvalue()
    (path,) = tmp_path.glob("*.json")
    report = load_report(path)
    assert report.model == f"openai:{MODEL}"
    assert [(result.case.name, result.passed) for result in report.cases] == [
        (name, True) for name in CASES
    ]
    received = openai_server.received
    assert all(request.path == "/v1/chat/completions" for request in received)
    assert {request.body["model"] for request in received} == {MODEL}
    assert {role_of(request.body) for request in received} == {
        "orchestrator",
        "researcher",
        "writer",
    }
