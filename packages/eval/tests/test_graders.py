"""Code graders: one grade per expectation set, each passing and failing as specified."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from automata.eval import Expect, FileExpectation, Grade, Observation, ToolCallRecord, grade


def calls(*names: str, **arguments: dict[str, Any]) -> tuple[ToolCallRecord, ...]:
    return tuple(ToolCallRecord(name=n, arguments=arguments.get(n, {})) for n in names)


def only(expect: Expect, seen: Observation) -> Grade:
    """The grade of the one expectation `expect` sets besides `completes`."""
    grades = [g for g in grade(expect, seen) if g.grader != "completes"]
    assert len(grades) == 1, grades
    return grades[0]


def test_each_expectation_set_adds_one_grade_in_declaration_order() -> None:
    """E3: unset expectations add nothing; completes is on by default."""
    assert [g.grader for g in grade(Expect(), Observation())] == ["completes"]
    assert grade(Expect(completes=False), Observation()) == ()
    expect = Expect(
        files={"a": FileExpectation()},
        contains=("x",),
        required_tools=("t",),
        guardrails=("secret",),
        max_steps=3,
    )
    assert [g.grader for g in grade(expect, Observation())] == [
        "required_tools",
        "completes",
        "max_steps",
        "contains",
        "guardrails",
        "files",
    ]


def test_required_tools_is_coverage() -> None:
    """E3: each required tool called at least once."""
    expect = Expect(required_tools=("search", "fetch"))
    assert only(expect, Observation(tool_calls=calls("fetch", "search", "search"))).passed
    missed = only(expect, Observation(tool_calls=calls("search")))
    assert not missed.passed
    assert "fetch" in missed.detail


def test_forbidden_tools_and_guardrails_are_compliance_grades() -> None:
    """E5: both count for L1 and fail the trial like gates."""
    forbidden = only(Expect(forbidden_tools=("rm",)), Observation(tool_calls=calls("ls", "rm")))
    assert (forbidden.passed, forbidden.kind) == (False, "compliance")
    assert "rm" in forbidden.detail
    clean = only(Expect(forbidden_tools=("rm",)), Observation(tool_calls=calls("ls")))
    assert clean.passed
    guard = Expect(guardrails=(r"\bpassword\b", r"\d{16}"))
    leaked = only(guard, Observation(output="the password is hunter2"))
    assert (leaked.passed, leaked.kind) == (False, "compliance")
    assert "password" in leaked.detail
    assert only(guard, Observation(output="I cannot share that")).passed
    assert only(Expect(required_tools=("x",)), Observation()).kind == "gate"


def test_an_invalid_guardrail_regex_fails_naming_it() -> None:
    """E5: a broken pattern is a failed grade, not an exception."""
    broken = only(Expect(guardrails=("(",)), Observation(output="text"))
    assert not broken.passed
    assert "invalid regex" in broken.detail


def test_soft_tool_order_is_a_subsequence_of_first_calls() -> None:
    """E4: other calls may interleave; repeats after a first call are ignored."""
    expect = Expect(tool_order=("search", "fetch", "write"))
    interleaved = calls("plan", "search", "search", "fetch", "search", "write")
    assert only(expect, Observation(tool_calls=interleaved)).passed
    swapped = calls("fetch", "search", "write")
    assert not only(expect, Observation(tool_calls=swapped)).passed
    missing = calls("search", "write")
    assert not only(expect, Observation(tool_calls=missing)).passed


def test_strict_tool_order_is_exactly_the_sequence_of_calls() -> None:
    """E4: strict_order demands the exact list of call names."""
    expect = Expect(tool_order=("search", "fetch"), strict_order=True)
    assert only(expect, Observation(tool_calls=calls("search", "fetch"))).passed
    extra = only(expect, Observation(tool_calls=calls("search", "search", "fetch")))
    assert not extra.passed
    assert "exactly" in extra.detail


def test_required_args_need_one_call_with_all_listed_values() -> None:
    """E6: other arguments may be present; values compare equal."""
    expect = Expect(required_args={"weather": {"city": "Paris", "days": 3}})
    good = (
        ToolCallRecord(name="weather", arguments={"city": "Rome", "days": 3}),
        ToolCallRecord(name="weather", arguments={"city": "Paris", "days": 3, "unit": "C"}),
    )
    assert only(expect, Observation(tool_calls=good)).passed
    split = (
        ToolCallRecord(name="weather", arguments={"city": "Paris"}),
        ToolCallRecord(name="weather", arguments={"days": 3}),
    )
    assert not only(expect, Observation(tool_calls=split)).passed
    never = only(expect, Observation(tool_calls=calls("search")))
    assert not never.passed
    assert "weather: never called" in never.detail


def test_completion_and_max_steps() -> None:
    """E3: completes reads how the run ended; max_steps counts model calls."""
    [failed] = grade(Expect(), Observation(completed=False, error="MaxStepsError: out"))
    assert not failed.passed
    assert "MaxStepsError" in failed.detail
    assert only(Expect(max_steps=2), Observation(steps=2)).passed
    assert not only(Expect(max_steps=2), Observation(steps=3)).passed


def test_final_text_contains_contains_any_and_matches() -> None:
    """E3: all strings, one of them, a regex found."""
    seen = Observation(output="Paris: 21 °C, sunny")
    assert only(Expect(contains=("Paris", "sunny")), seen).passed
    assert not only(Expect(contains=("Paris", "rain")), seen).passed
    assert only(Expect(contains_any=("rain", "sunny")), seen).passed
    assert not only(Expect(contains_any=("rain", "snow")), seen).passed
    assert only(Expect(matches=r"\d+ °C"), seen).passed
    assert not only(Expect(matches=r"\d+ °F"), seen).passed
    assert not only(Expect(matches="["), seen).passed


def test_files_are_read_from_the_workspace(tmp_path: Path) -> None:
    """E7: existence, contents and pattern, relative to the workspace."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "report.md").write_text("# Paris\n21 °C\n", encoding="utf-8")
    seen = Observation(workspace=tmp_path)
    ok = {"out/report.md": FileExpectation(contains=("Paris",), matches=r"\d+ °C")}
    assert only(Expect(files=ok), seen).passed
    wrong = only(Expect(files={"out/report.md": FileExpectation(contains=("Rome",))}), seen)
    assert not wrong.passed
    assert "Rome" in wrong.detail
    absent = only(Expect(files={"nope.md": FileExpectation()}), seen)
    assert "no such file" in absent.detail


def test_a_file_outside_the_workspace_fails(tmp_path: Path) -> None:
    """E7: paths resolving outside the workspace are never read."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "secret.txt").write_text("x", encoding="utf-8")
    outside = only(
        Expect(files={"../secret.txt": FileExpectation()}), Observation(workspace=workspace)
    )
    assert not outside.passed
    assert "outside the workspace" in outside.detail
    assert not only(Expect(files={"a": FileExpectation()}), Observation()).passed
