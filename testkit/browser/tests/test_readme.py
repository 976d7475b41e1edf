"""The test the README (testkit/browser/README.md) shows is a working test: run on the
real Chromium, it passes on its page."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from automata_docs_testing import SampleKind, samples_of

README = Path(__file__).resolve().parents[1] / "README.md"
ROOT = README.parents[2]
PageTest = Callable[[Path], None]


def readme_test() -> PageTest:
    """The one test function the README's sample (marked as run here) defines."""
    (sample,) = [
        sample
        for sample in samples_of(ROOT, README)
        if sample.kind is SampleKind.EXECUTED_BY_TEST
        and Path(sample.test or "").name == Path(__file__).name
    ]
    namespace: dict[str, object] = {"__name__": "readme_sample"}
    exec(compile(sample.example.source, sample.id, "exec"), namespace)
    (test,) = [value for name, value in namespace.items() if name.startswith("test_")]
    assert callable(test)
    return test


def test_the_readme_test_passes_on_its_page(tmp_path: Path) -> None:
    readme_test()(tmp_path)
