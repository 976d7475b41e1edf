"""docs/eval.md is pinned: its rules are tagged E1, E2, ... in order, every rule is cited
by a test of this package, and every citation names a rule."""

from __future__ import annotations

import re
from pathlib import Path

from automata_docs_testing import RuleBook

DOC = Path(__file__).resolve().parents[3] / "docs" / "eval.md"
BOOK = RuleBook.of("docs/eval.md", __file__)


def test_the_doc_states_its_rules_in_order_each_pinned_by_a_test() -> None:
    """The page states its rules numbered from 1 in order, a test here cites each of
    them, and every citation and reference names a rule of the page."""
    BOOK.check(at_least=20)


def test_the_case_file_shown_in_the_doc_loads(tmp_path: Path) -> None:
    """The doc's YAML example is a valid case file, defaults applied."""
    from automata.eval import Difficulty, load_cases

    [block] = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    path = tmp_path / "eval_weather.yaml"
    path.write_text(block, encoding="utf-8")
    paris, report = load_cases(path)
    assert (paris.agent, paris.tier, paris.smoke) == ("forecaster", "regression", True)
    assert paris.expect.required_args == {"weather": {"city": "Paris"}}
    assert report.difficulty is Difficulty.HARD
    assert report.expect.files["forecast.md"].matches == r"\d+ ?°C"
