"""Every Python sample of README.md, docs/ and the package READMEs runs, or says why not.

Each ```python block is a complete program this test runs as pasted (offline, in a
fresh folder; the vendor SDKs get a placeholder key and a closed local port as their base
URL, so a provider can be built but no request leaves the machine), or is marked
`<!-- executed by <test> -->` (a named test runs it against its server or fixture), or
`<!-- fragment -->` (a piece of a program). Where the page shows what a program prints
("It prints:" and a ```text block), the program's standard output must be exactly that.
The marking rules are in `automata_docs_testing._samples`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from automata_docs_testing import CodeSample, SampleKind, SampleMarkerError, code_samples
from automata_wire_testing import unreachable_url
from pytest_examples import EvalExample

ROOT = Path(__file__).resolve().parents[2]
VENDOR_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY")
VENDOR_BASE_URLS = ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "GOOGLE_GEMINI_BASE_URL")

try:
    SAMPLES = code_samples(ROOT)
    MARKER_PROBLEM = ""
except SampleMarkerError as problem:
    SAMPLES, MARKER_PROBLEM = [], str(problem)
PROGRAMS = [sample for sample in SAMPLES if sample.kind is SampleKind.PROGRAM]


def count(kind: SampleKind) -> int:
    return sum(sample.kind is kind for sample in SAMPLES)


def test_every_samples_marker_is_well_formed_and_names_a_test_that_reads_the_page() -> None:
    assert not MARKER_PROBLEM
    assert len(SAMPLES) > 50, "the pages' samples were not found"


# A ratchet: lower it when a fragment becomes a complete program; never raise it.
MOST_FRAGMENTS = 4


def test_no_page_gains_a_fragment() -> None:
    assert count(SampleKind.FRAGMENT) <= MOST_FRAGMENTS


@pytest.mark.parametrize("sample", PROGRAMS, ids=lambda sample: sample.id)
def test_every_unmarked_sample_runs_as_pasted(
    sample: CodeSample,
    eval_example: EvalExample,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    for key in VENDOR_KEYS:
        monkeypatch.setenv(key, "sample-key")
    for base_url in VENDOR_BASE_URLS:
        monkeypatch.setenv(base_url, unreachable_url())
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    capfd.readouterr()
    eval_example.run(sample.example)
    if sample.expected_output is not None:
        assert capfd.readouterr().out == sample.expected_output


def test_the_getting_started_page_shows_what_its_program_prints() -> None:
    (getting_started,) = [sample for sample in PROGRAMS if sample.page == "docs/index.md"]
    assert getting_started.expected_output == "It is sunny in Paris.\n2 end_turn\n"
