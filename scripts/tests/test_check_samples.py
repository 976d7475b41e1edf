"""`scripts/check_samples.py` reports a page's sample that ruff or `mypy --strict` rejects
at the page's own line, and leaves fragments alone."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "check_samples.py"

PAGE = """\
# A page

A program that uses a name it never defines:

```python
print(forecast("Paris"))
```

A program whose types do not agree:

```python
steps: int = "two"
print(steps)
```

<!-- fragment -->

```python
print(undefined_in_a_fragment)
```
"""


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("automata_check_samples_script", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def report(script: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str]:
    root = tmp_path_factory.mktemp("site")
    (root / "docs").mkdir()
    (root / "docs" / "page.md").write_text(PAGE, encoding="utf-8")
    checked, problems = script.check_pages(root, ["docs/*.md"])
    return checked, "\n".join(problems)


def test_only_the_programs_are_checked_never_the_fragment(report: tuple[int, str]) -> None:
    checked, problems = report
    assert checked == 2
    assert "undefined_in_a_fragment" not in problems


def test_an_undefined_name_is_reported_by_ruff_and_mypy_at_the_pages_line(
    report: tuple[int, str],
) -> None:
    _, problems = report
    assert "F821 Undefined name `forecast`" in problems
    assert "--> docs/page.md:6:7" in problems
    assert 'docs/page.md:6: error: Name "forecast" is not defined  [name-defined]' in problems


def test_a_type_error_is_reported_by_mypy_at_the_pages_line(report: tuple[int, str]) -> None:
    _, problems = report
    assert "docs/page.md:12: error: Incompatible types in assignment" in problems


def test_clean_pages_check_clean(script: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text('# Clean\n\n```python\nprint("hi")\n```\n')
    assert script.check_pages(tmp_path, ["README.md"]) == (1, [])


def test_the_command_line_exits_1_on_a_problem_and_0_when_clean(
    script: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(PAGE, encoding="utf-8")
    (tmp_path / "README.md").write_text('# Clean\n\n```python\nprint("hi")\n```\n')
    monkeypatch.setattr(script, "ROOT", tmp_path)
    assert script.main(["docs/page.md"]) == 1
    assert script.main(["README.md"]) == 0
