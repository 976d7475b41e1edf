"""The "Testing a provider" sample of docs/providers.md is a test module that passes:
the provider it wires into `ProviderConformance` meets every check of the suite."""

from __future__ import annotations

from pathlib import Path

from automata_docs_testing import CodeSample, SampleKind, samples_of

from automata.core.testing.conformance import ProviderConformance, run_conformance

ROOT = Path(__file__).resolve().parents[3]


def conformance_sample() -> CodeSample:
    (sample,) = [
        sample
        for sample in samples_of(ROOT, ROOT / "docs" / "providers.md")
        if sample.kind is SampleKind.EXECUTED_BY_TEST and Path(__file__).name in str(sample.test)
    ]
    return sample


async def test_the_sample_provider_passes_every_conformance_check() -> None:
    sample = conformance_sample()
    module: dict[str, object] = {"__name__": "test_my_provider"}
    exec(compile(sample.example.source, sample.id, "exec"), module)
    suite = module["TestMyProvider"]
    assert isinstance(suite, type)
    assert issubclass(suite, ProviderConformance)
    await run_conformance(suite().make_provider, suite().scenario())
