"""The README's program (extensions/tavily/README.md) runs as written, on the official
client against a local server speaking Tavily's API, and prints what the README shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from automata_docs_testing import SampleKind, samples_of

from .conftest import TavilyServer
from .test_tavily_search import REPLY

README = Path(__file__).resolve().parents[1] / "README.md"
ROOT = README.parents[2]


def test_the_readme_program_searches_through_the_key_and_server_it_is_given(
    tavily_server: TavilyServer,
) -> None:
    (sample,) = [
        sample
        for sample in samples_of(ROOT, README)
        if sample.kind is SampleKind.EXECUTED_BY_TEST
        and Path(sample.test or "").name == Path(__file__).name
    ]
    assert sample.expected_output is not None, f"{sample.id} shows no output"
    tavily_server.reply = REPLY
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TAVILY_API_KEY": "tvly-readme-key",
        "TAVILY_BASE_URL": tavily_server.base_url,
    }
    done = subprocess.run(
        [sys.executable, "-c", sample.example.source],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == sample.expected_output
    (request,) = tavily_server.received
    assert request.headers["authorization"] == "Bearer tvly-readme-key"
    assert request.body["query"] == "python asyncio"
