"""Text UTF-8 cannot encode never loses a finished run: a lone surrogate in an agent's
output, its tool arguments or a case's fields is written by every report as its
visible escape (`\\ud800`); a case name holding one is refused when the case is built."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from automata.core import Agent
from automata.core.testing import Reply, ScriptedProvider, tool_call, tool_calls
from automata.eval import (
    Case,
    CaseFileError,
    Expect,
    RunReport,
    TrialContext,
    evaluate,
    export_failed,
    load_cases,
    load_report,
    write_html,
    write_report,
)
from automata.eval._pytest_plugin import EvalCaseFailed

BROKEN_OUTPUT = "half an emoji \ud83d and a stray \udcff"
BROKEN_ARGUMENT = "q\udfff"
BROKEN_TASK = "Look up \ud800 please"


def broken_agent(ctx: TrialContext) -> Agent[None]:
    """An agent whose model calls a tool with a lone surrogate in its arguments (and
    in an argument's name), then answers with lone surrogates."""
    replies: list[Reply] = [
        tool_calls(tool_call("1", "search", query=BROKEN_ARGUMENT, **{"k\udc80": 1})),
        BROKEN_OUTPUT,
    ]
    return Agent(ScriptedProvider(replies))


def raising_agent(ctx: TrialContext) -> Agent[None]:
    """A factory that fails with a lone surrogate in its error."""
    raise RuntimeError(f"no tool answers {BROKEN_ARGUMENT}")


CASES = [
    Case(
        name="surrogates",
        task=BROKEN_TASK,
        tags=("tag\udc00",),
        expect=Expect(contains=("never there",), required_args={"search": {"query": "x\ud800"}}),
    ),
    Case(name="plain", task="nothing odd", expect=Expect(contains=("stray",))),
    Case(name="raising", task="nothing odd", agent="raising"),
]
AGENTS = {"default": broken_agent, "raising": raising_agent}


async def broken_report() -> RunReport:
    return await evaluate(CASES, AGENTS, trials=2, run_id="broken")


def strict_utf8(path: Path) -> str:
    """The file's text, read as strict UTF-8 (raises if it is not)."""
    return path.read_bytes().decode("utf-8")


async def test_a_json_report_with_lone_surrogates_is_written_and_reads_back_equal(
    tmp_path: Path,
) -> None:
    """E14: the run's results are all in the file, which is valid UTF-8 and JSON, with
    each lone surrogate as its JSON escape, so `load_report` gives back the report."""
    report = await broken_report()
    assert report.cases[0].trials[0].output == BROKEN_OUTPUT
    path = write_report(report, tmp_path)
    text = strict_utf8(path)
    assert "\\ud83d" in text
    assert "\\udcff" in text
    assert "\\udfff" in text
    assert '"k\\udc80"' in text
    assert json.loads(text)["cases"][0]["case"]["task"] == BROKEN_TASK
    assert load_report(path) == report


async def test_the_html_report_shows_lone_surrogates_as_escapes(tmp_path: Path) -> None:
    """E14: every page is valid UTF-8 and shows each lone surrogate as `\\udxxx`."""
    report = await broken_report()
    index = write_html(report, tmp_path / "site")
    assert "surrogates" in strict_utf8(index)
    page = strict_utf8(tmp_path / "site" / "cases" / "surrogates.html")
    assert "half an emoji \\ud83d and a stray \\udcff" in page
    assert "Look up \\ud800 please" in page
    assert "tag\\udc00" in page
    assert "q\\udfff" in page
    assert "k\\udc80" in page


async def test_failed_cases_with_lone_surrogates_export_and_are_refused_as_drafts(
    tmp_path: Path,
) -> None:
    """E16: the drafts file is valid UTF-8 (the reasons show the escapes); the draft
    that holds a lone surrogate is refused by `load_cases` naming the field (E1)."""
    report = await broken_report()
    path = export_failed(report, tmp_path / "drafts.yaml")
    text = strict_utf8(path)
    assert "# surrogates: " in text
    assert "# raising: agent_error: RuntimeError: no tool answers q\\udfff" in text
    with pytest.raises(CaseFileError, match="holds a lone surrogate"):
        load_cases(path)


@pytest.mark.parametrize("name", ["bad\ud800", "\udfff", "pair \ud83d\ude00 split"])
def test_a_case_name_holding_a_lone_surrogate_is_refused_when_built(name: str) -> None:
    """E1: a case's name is its identifier (a file name, a selection, a test id):
    text that cannot be written is refused at construction, with a writable message."""
    with pytest.raises(ValidationError, match="lone surrogate") as caught:
        Case(name=name, task="t")
    str(caught.value).encode("utf-8")


async def test_the_pytest_failure_of_a_case_shows_lone_surrogates_as_escapes() -> None:
    """E14: the plugin's failure text (what pytest prints) is writable as UTF-8."""
    from automata.eval._pytest_plugin import _explain

    report = await broken_report()
    for result in report.cases[0], report.cases[2]:
        message = str(EvalCaseFailed(_explain(result)))
        message.encode("utf-8")
        assert "q\\udfff" in message
