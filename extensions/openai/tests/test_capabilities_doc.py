"""The "Optional capabilities" program of docs/providers.md runs as printed against the
local server speaking `GET /v1/models` and `POST /v1/embeddings`, and writes exactly
what the page says it prints."""

from __future__ import annotations

from pathlib import Path

import pytest
from automata_docs_testing import CodeSample, SampleKind, samples_of
from automata_wire_testing import WireServer
from automata_wire_testing.catalog import openai_model, serve_openai_embeddings, serve_openai_models

ROOT = Path(__file__).resolve().parents[3]
MODELS = [openai_model("gpt-4.1", created=1_744_000_000), openai_model("text-embedding-3-small")]


def capabilities_program() -> CodeSample:
    (program,) = [
        sample
        for sample in samples_of(ROOT, ROOT / "docs" / "providers.md")
        if sample.kind is SampleKind.EXECUTED_BY_TEST and Path(__file__).name in str(sample.test)
    ]
    return program


def test_the_capabilities_program_lists_the_models_and_embeds_the_texts(
    server: WireServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    serve_openai_models(server, MODELS)
    serve_openai_embeddings(server)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
    program = capabilities_program()
    exec(compile(program.example.source, program.id, "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == program.expected_output
    assert [request.path for request in server.received] == ["/v1/models", "/v1/embeddings"]
