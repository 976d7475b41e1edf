"""A page's Python samples are read with their markers; a bad marker is named."""

from __future__ import annotations

from pathlib import Path

import pytest
from automata_docs_testing import SampleKind, SampleMarkerError, samples_of

PAGE = """# A page

<!-- fragment -->

```python
await agent.run("hi")
```

Some prose.

```python
print("complete")
```

<!-- executed by tests/test_page.py -->
```py
print("run elsewhere")
```

```sh
echo not python
```

```text
print("not python either")
```
"""


def write(tmp_path: Path, page: str, test: str | None = None) -> Path:
    (tmp_path / "page.md").write_text(page, encoding="utf-8")
    if test is not None:
        (tmp_path / "tests").mkdir()
        (tmp_path / "tests" / "test_page.py").write_text(test, encoding="utf-8")
    return tmp_path / "page.md"


def test_each_python_block_is_read_with_the_kind_its_marker_says(tmp_path: Path) -> None:
    page = write(tmp_path, PAGE, test='PAGE = "page.md"\n')
    samples = samples_of(tmp_path, page)
    assert [(s.id, s.kind, s.test) for s in samples] == [
        ("page.md:5", SampleKind.FRAGMENT, None),
        ("page.md:11", SampleKind.PROGRAM, None),
        ("page.md:16", SampleKind.EXECUTED_BY_TEST, "tests/test_page.py"),
    ]
    assert samples[1].example.source == 'print("complete")\n'


def test_a_block_said_to_be_executed_by_a_missing_test_is_an_error(tmp_path: Path) -> None:
    page = write(tmp_path, PAGE)
    with pytest.raises(SampleMarkerError, match=r"page\.md:16: tests/test_page\.py does not exist"):
        samples_of(tmp_path, page)


def test_a_block_said_to_be_executed_by_a_test_that_never_names_the_page_is_an_error(
    tmp_path: Path,
) -> None:
    page = write(tmp_path, PAGE, test="def test_other() -> None: ...\n")
    with pytest.raises(SampleMarkerError, match=r"page\.md:16: .* never names page\.md"):
        samples_of(tmp_path, page)


def test_a_misspelt_marker_is_an_error_not_an_unmarked_block(tmp_path: Path) -> None:
    page = write(tmp_path, "<!-- fragmnt -->\n```python\nx = 1\n```\n")
    with pytest.raises(SampleMarkerError, match=r"page\.md:2: unknown marker '<!-- fragmnt -->'"):
        samples_of(tmp_path, page)


def test_the_text_block_the_prose_says_a_sample_prints_is_its_expected_output(
    tmp_path: Path,
) -> None:
    page = write(tmp_path, '```python\nprint("hi")\n```\n\nIt prints:\n\n```text\nhi\n```\n')
    (sample,) = samples_of(tmp_path, page)
    assert sample.expected_output == "hi\n"


def test_a_sample_followed_by_other_prose_has_no_expected_output(tmp_path: Path) -> None:
    page = write(tmp_path, '```python\nprint("hi")\n```\n\nSome prose.\n\n```text\nhi\n```\n')
    (sample,) = samples_of(tmp_path, page)
    assert sample.expected_output is None


def test_prose_that_says_a_sample_prints_without_a_text_block_is_an_error(
    tmp_path: Path,
) -> None:
    page = write(tmp_path, '```python\nprint("hi")\n```\n\nIt prints:\n\n```python\nx = 1\n```\n')
    with pytest.raises(SampleMarkerError, match=r"page\.md:1: .*no ```text block follows"):
        samples_of(tmp_path, page)


def test_a_fragment_cannot_be_said_to_print(tmp_path: Path) -> None:
    page = write(
        tmp_path, "<!-- fragment -->\n```python\nx\n```\n\nIt prints:\n\n```text\n1\n```\n"
    )
    with pytest.raises(SampleMarkerError, match=r"page\.md:2: a fragment is not run"):
        samples_of(tmp_path, page)
