"""Cases load from YAML files and directories with errors naming file and case, and a
run's cases are selected by name, difficulty, tier and smoke."""

from __future__ import annotations

from pathlib import Path

import pytest

from automata.eval import Case, CaseFileError, Difficulty, SelectionError, load_cases, select


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_holds_one_case_a_list_or_cases_with_defaults(tmp_path: Path) -> None:
    """E1: the three shapes of a case file."""
    one = write(tmp_path / "one.yaml", "name: a\ntask: do a\n")
    many = write(tmp_path / "many.yaml", "- {name: b, task: do b}\n- {name: c, task: do c}\n")
    grouped = write(
        tmp_path / "grouped.yml",
        "defaults: {agent: bot, tier: capability}\n"
        "cases:\n"
        "  - {name: d, task: do d}\n"
        "  - {name: e, task: do e, tier: repair}\n",
    )
    cases = load_cases(one, many, grouped)
    assert [c.name for c in cases] == ["a", "b", "c", "d", "e"]
    assert [(c.agent, c.tier) for c in cases[3:]] == [("bot", "capability"), ("bot", "repair")]


def test_a_directory_is_read_recursively_in_sorted_path_order(tmp_path: Path) -> None:
    """E1: every yaml/yml file below the directory, sorted by path."""
    write(tmp_path / "b.yaml", "name: second\ntask: t\n")
    write(tmp_path / "a" / "z.yml", "name: first\ntask: t\n")
    write(tmp_path / "notes.txt", "name: ignored\n")
    assert [c.name for c in load_cases(tmp_path)] == ["first", "second"]


def test_an_invalid_case_is_reported_with_its_file_and_name(tmp_path: Path) -> None:
    """E1: the error names the file, the case and the field."""
    path = write(
        tmp_path / "bad.yaml",
        "- {name: fine, task: t}\n- {name: broken, task: t, expect: {required_tool: [x]}}\n",
    )
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert caught.value.path == path
    assert caught.value.case == "'broken'"
    assert str(path) in str(caught.value)
    assert "expect.required_tool" in str(caught.value)


def test_a_misspelt_expect_key_is_answered_with_the_key_meant(tmp_path: Path) -> None:
    """E1: `expect.contain` is met with `contains`, not pydantic's bare refusal."""
    path = write(tmp_path / "typo.yaml", "name: greet\ntask: t\nexpect:\n  contain: [hi]\n")
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert str(caught.value) == (
        f"{path}: case 'greet': expect.contain: unknown field; did you mean 'contains'?"
    )


def test_misspelt_keys_are_answered_at_every_depth(tmp_path: Path) -> None:
    """E1: in a case, in a file expectation (under its path) and in a judge dimension."""
    path = write(
        tmp_path / "typos.yaml",
        "name: deep\n"
        "tsk: t\n"
        "expect:\n"
        "  files:\n"
        "    out.txt: {contain: [x]}\n"
        "judge:\n"
        "  - {name: tone, rubric: r, gol: 3}\n",
    )
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert str(caught.value) == (
        f"{path}: case 'deep': task: Field required; "
        "expect.files.out.txt.contain: unknown field; did you mean 'contains'?; "
        "judge.0.gol: unknown field; did you mean 'gold'?; "
        "tsk: unknown field; did you mean 'task'?"
    )


def test_an_unknown_key_close_to_nothing_lists_the_fields_taken_there(tmp_path: Path) -> None:
    """E1"""
    path = write(tmp_path / "odd.yaml", "name: odd\ntask: t\nexpect: {sparkle: true}\n")
    with pytest.raises(CaseFileError) as caught:
        load_cases(path)
    assert str(caught.value) == (
        f"{path}: case 'odd': expect.sparkle: unknown field; Expect takes: completes, "
        "contains, contains_any, files, forbidden_tools, guardrails, matches, max_steps, "
        "required_args, required_tools, strict_order, tool_order"
    )


def test_a_case_without_a_name_is_named_by_its_position(tmp_path: Path) -> None:
    """E1: `#n` when the case has no name."""
    path = write(tmp_path / "bad.yaml", "- {name: a, task: t}\n- {task: t}\n")
    with pytest.raises(CaseFileError, match=r"case #2: name"):
        load_cases(path)


def test_invalid_yaml_and_missing_paths_name_the_file(tmp_path: Path) -> None:
    """E1: file-level errors carry no case."""
    bad = write(tmp_path / "bad.yaml", "name: [unclosed\n")
    with pytest.raises(CaseFileError, match="not valid YAML") as caught:
        load_cases(bad)
    assert caught.value.case is None
    with pytest.raises(CaseFileError, match="no such file"):
        load_cases(tmp_path / "missing.yaml")
    scalar = write(tmp_path / "scalar.yaml", "just text\n")
    with pytest.raises(CaseFileError, match="expected a case"):
        load_cases(scalar)


def test_a_name_used_twice_names_both_files(tmp_path: Path) -> None:
    """E1: case names are unique across everything loaded."""
    first = write(tmp_path / "a.yaml", "name: same\ntask: t\n")
    second = write(tmp_path / "b.yaml", "name: same\ntask: u\n")
    with pytest.raises(CaseFileError) as caught:
        load_cases(tmp_path)
    assert caught.value.path == second
    assert str(first) in str(caught.value)


CASES = (
    Case(name="weather_paris", task="t", difficulty=Difficulty.EASY, smoke=True),
    Case(name="weather_rome", task="t", difficulty=Difficulty.MEDIUM, tier="capability"),
    Case(name="refuse_delete", task="t", difficulty=Difficulty.HARD, tier="repair"),
    Case(name="explain", task="t", difficulty=Difficulty.MEDIUM, smoke=True),
)


def names(cases: tuple[Case, ...]) -> list[str]:
    return [c.name for c in cases]


def test_selection_by_glob_and_alternatives() -> None:
    """E2: a glob on the name; `a|b` matches either."""
    assert names(select(CASES, pattern="weather_*")) == ["weather_paris", "weather_rome"]
    assert names(select(CASES, pattern="refuse*|explain")) == ["refuse_delete", "explain"]


def test_selection_by_difficulty_with_plus_for_that_level_and_above() -> None:
    """E2: `medium+` is medium and hard."""
    assert names(select(CASES, difficulty="easy")) == ["weather_paris"]
    assert names(select(CASES, difficulty="medium+")) == [
        "weather_rome",
        "refuse_delete",
        "explain",
    ]
    assert names(select(CASES, difficulty="hard")) == ["refuse_delete"]


def test_selection_by_tier_smoke_and_all_criteria_together() -> None:
    """E2: tiers (comma-separated or a sequence), smoke, and criteria combine."""
    assert names(select(CASES, tier="capability,repair")) == ["weather_rome", "refuse_delete"]
    assert names(select(CASES, tier=["regression"])) == ["weather_paris", "explain"]
    assert names(select(CASES, smoke=True)) == ["weather_paris", "explain"]
    assert names(select(CASES, smoke=True, difficulty="medium+")) == ["explain"]
    assert select(CASES) == CASES


def test_an_unknown_difficulty_is_refused() -> None:
    """E2: SelectionError for a level that does not exist."""
    with pytest.raises(SelectionError, match="'extreme'"):
        select(CASES, difficulty="extreme")
