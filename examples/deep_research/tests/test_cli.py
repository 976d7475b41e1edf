"""`python -m deep_research`: the demo in a real subprocess, and the command line's
choices run in-process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from deep_research.__main__ import main
from deep_research.config import ConfigError, pick_provider

from .conftest import SearchServer

KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "TAVILY_API_KEY", "DEEP_RESEARCH_PROVIDER")


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)


def test_the_demo_runs_in_a_subprocess_and_prints_a_report() -> None:
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    done = subprocess.run(
        [sys.executable, "-m", "deep_research", "--provider", "demo", "--pace", "0", "x"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Research brief: x\n")
    assert "## Sources\n" in done.stdout
    # stderr is not a terminal, so the run is logged line by line
    assert "[researcher call_research_1] call web_search: What is the background of x?" in (
        done.stderr
    )
    assert "The report on x is ready." in done.stderr


def test_the_cli_searches_through_the_tavily_server_it_is_given(
    search_server: SearchServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", search_server.api_key)
    status = main(
        [
            "--provider=demo",
            "--search=tavily",
            f"--tavily-base-url={search_server.base_url}",
            "--pace=0",
            "green roofs",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert len(search_server.received) == 3
    assert "https://journal.test/what-is-the-background-of-green-roofs/study" in out


def test_the_report_is_also_written_to_the_output_file(
    tmp_path: Path, no_keys: None, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "report.md"
    assert main(["--provider", "demo", "--pace", "0", "--output", str(target), "x"]) == 0
    assert target.read_text(encoding="utf-8") == capsys.readouterr().out


def test_a_real_provider_without_its_key_is_a_usage_error(
    no_keys: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--provider", "anthropic", "--search", "demo", "x"]) == 2
    assert capsys.readouterr().err == (
        "deep_research: --provider anthropic needs ANTHROPIC_API_KEY in the environment\n"
    )


def test_tavily_search_without_its_key_is_a_usage_error(
    no_keys: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--provider", "demo", "--search", "tavily", "x"]) == 2
    assert "TAVILY_API_KEY" in capsys.readouterr().err


def test_the_provider_is_the_flag_then_the_environment_then_whichever_key_is_set() -> None:
    assert pick_provider("openai", {"DEEP_RESEARCH_PROVIDER": "anthropic"}) == "openai"
    assert pick_provider(None, {"DEEP_RESEARCH_PROVIDER": "Anthropic"}) == "anthropic"
    assert pick_provider(None, {"OPENAI_API_KEY": "k"}) == "openai"
    assert pick_provider(None, {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}) == "anthropic"
    assert pick_provider(None, {}) == "demo"
    with pytest.raises(ConfigError, match="unknown provider 'gemini'"):
        pick_provider(None, {"DEEP_RESEARCH_PROVIDER": "gemini"})
