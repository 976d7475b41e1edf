"""The test the README (testkit/docs/README.md) shows for `RuleBook` is a working test:
next to the tests that pin docs/threads.md it passes, and a file that takes part in no
pinning of that page is told so when it asks for the book."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from automata_docs_testing import SampleKind, samples_of

README = Path(__file__).resolve().parents[1] / "README.md"
ROOT = README.parents[2]
THREADS_TESTS = ROOT / "packages" / "threads" / "tests"


def readme_test(test_file: Path) -> Callable[[], None]:
    """The test function of the README's sample marked as run here, defined as in a
    module at `test_file`."""
    (sample,) = [
        sample
        for sample in samples_of(ROOT, README)
        if sample.kind is SampleKind.EXECUTED_BY_TEST
        and Path(sample.test or "").name == Path(__file__).name
    ]
    namespace: dict[str, object] = {"__name__": "readme_sample", "__file__": str(test_file)}
    exec(compile(sample.example.source, sample.id, "exec"), namespace)
    (test,) = [value for name, value in namespace.items() if name.startswith("test_")]
    assert callable(test)
    return test


def test_the_readme_test_passes_next_to_the_tests_that_pin_the_threads_page() -> None:
    readme_test(THREADS_TESTS / "test_threads_docs.py")()


def test_the_readme_test_cannot_take_the_book_from_a_file_outside_the_pages_pinning() -> None:
    with pytest.raises(LookupError, match=r"test_readme\.py takes part in 0 of the pinnings"):
        readme_test(Path(__file__))
