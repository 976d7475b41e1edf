"""docs/loop.md is pinned: every rule is cited by a test, every citation names a rule,
and the rules the existing tests did not already pin are pinned here."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from automata_docs_testing import RuleBook

from automata.core import (
    Agent,
    ArgumentTypeError,
    Message,
    RunOptions,
    ToolLimits,
    ToolPolicy,
    as_tool,
    tool,
)
from automata.core._run_arguments import RUN_KEYWORDS
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "loop.md"
BOOK = RuleBook.of("docs/loop.md", __file__)


# -- the doc and its citations ----------------------------------------------------------


def test_the_doc_states_its_rules_in_order_each_pinned_by_a_test() -> None:
    """The page states its rules numbered from 1 in order, a test cites each of them,
    and every citation and reference names a rule of the page."""
    BOOK.check(at_least=31)


def test_the_doc_links_only_to_files_in_the_repository() -> None:
    text = DOC.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)\)", text)
    paths = re.findall(r"`((?:packages|docs|extensions|examples)/[^`]*)`", text)
    missing = [link for link in links if not (DOC.parent / link).exists()]
    missing += [path for path in paths if not (ROOT / path).exists()]
    assert missing == []


# -- rules no other test pins -----------------------------------------------------------


def delegating_parent(policy: ToolPolicy, worker: Agent, first_turn: Message) -> Agent:
    """A parent under `policy` that can hand a task to `worker` as the tool `delegate`."""
    parent = Agent(ScriptedProvider([first_turn, Message.assistant("ok")]), tool_policy=policy)
    parent.add_tool(as_tool(worker, "delegate", "Hand the task to the worker."))
    return parent


async def test_a_parents_per_tool_budget_does_not_bind_its_sub_agents_calls() -> None:
    """L26: the parent allows itself one `work` call; the worker it delegates to has a
    tool of the same name and still makes both of its calls."""
    worker_model = ScriptedProvider(
        [tool_calls(tool_call("w1", "work"), tool_call("w2", "work")), Message.assistant("worked")]
    )
    worker = Agent(worker_model, name="worker")
    worker.add_tool(tool(lambda: "worker work", name="work"))
    parent = delegating_parent(
        ToolPolicy(per_tool={"work": ToolLimits(max_calls=1)}),
        worker,
        tool_calls(
            tool_call("p1", "delegate", task="x"), tool_call("p2", "work"), tool_call("p3", "work")
        ),
    )
    parent.add_tool(tool(lambda: "parent work", name="work"))

    result = await parent.run("go")
    assert tool_results(worker_model.requests[1].messages) == [
        ("w1", "worker work", False),
        ("w2", "worker work", False),
    ]
    assert tool_results(result.messages) == [
        ("p1", "worked", False),
        ("p2", "parent work", False),
        ("p3", 'denied: tool budget exhausted for "work": max calls 1', True),
    ]


@pytest.mark.looptime
async def test_a_parents_per_tool_timeout_does_not_cut_off_its_sub_agents_calls() -> None:
    """L26: the parent gives its own `work` 0.05 s; the worker's `work`, which takes
    longer, finishes under the worker's policy, which sets no timeout."""
    worker_model = ScriptedProvider([tool_calls(tool_call("w1", "work")), Message.assistant("ok")])
    worker = Agent(worker_model, name="worker")

    @worker.tool
    async def work() -> str:
        await asyncio.sleep(0.2)
        return "slow but done"

    parent = delegating_parent(
        ToolPolicy(per_tool={"work": ToolLimits(timeout=0.05)}),
        worker,
        tool_calls(tool_call("p1", "delegate", task="x")),
    )

    result = await parent.run("go")
    assert tool_results(worker_model.requests[1].messages) == [("w1", "slow but done", False)]
    assert tool_results(result.messages) == [("p1", "ok", False)]


# -- the per-run keywords ---------------------------------------------------------------


def listed_keywords(text: str) -> list[str]:
    """The keywords in the first parenthesis of `text`, as written."""
    return re.findall(r"`([a-z_]+)`", text[text.index("(") : text.index(")")])


def test_rule_L4_names_the_fields_of_the_run_options_value_and_deps() -> None:
    """L4: the keywords the rule (and the core README) lists are `PerRun`'s fields and
    `deps`, and the `**per_run` signature type (`RunOptions`) has the same names but
    `output_type`, which every run method takes on its own."""
    text = DOC.read_text(encoding="utf-8")
    rule = text[text.index("**L4.**") : text.index("**L5.**")]
    assert listed_keywords(rule) == [*RUN_KEYWORDS, "deps"]
    readme = (ROOT / "packages" / "core" / "README.md").read_text(encoding="utf-8")
    assert listed_keywords(readme[readme.index("Per-run keywords (") :]) == [*RUN_KEYWORDS, "deps"]
    assert set(RunOptions.__optional_keys__) == set(RUN_KEYWORDS) - {"output_type"}
    assert RunOptions.__required_keys__ == frozenset()


async def test_an_unknown_run_keyword_is_refused_naming_every_keyword_a_run_accepts() -> None:
    """L4: the accepted list in the message is derived from the run options' fields."""
    agent = Agent(ScriptedProvider([Message.assistant("never")]))
    with pytest.raises(ArgumentTypeError) as caught:
        await agent.run("x", verbose=True)  # type: ignore[call-overload]
    accepted = ", ".join(sorted([*RUN_KEYWORDS, "deps"]))
    assert str(caught.value) == (
        f"Agent.run() got an unexpected keyword argument 'verbose'; it accepts: {accepted}"
    )


async def test_a_run_keyword_close_to_an_accepted_one_is_answered_with_it() -> None:
    """L4: a misspelt keyword is met with the keyword meant."""
    agent = Agent(ScriptedProvider([Message.assistant("never")]))
    with pytest.raises(ArgumentTypeError) as caught:
        await agent.run("x", max_turns=3)  # type: ignore[call-overload]
    assert str(caught.value) == (
        "Agent.run() got an unexpected keyword argument 'max_turns'; "
        "did you mean 'max_correction_turns'?"
    )
