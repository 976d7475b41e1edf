"""`python -m deep_research`: the demo in a real subprocess, and the command line's
choices run in-process with an explicit environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from deep_research.cli import main, parse_args
from deep_research.config import ConfigError, pick_provider

from .conftest import RefusingModelServer, SearchServer

MISSING_BOTH = (
    "deep_research: missing OPENAI_API_KEY (for --provider openai) and TAVILY_API_KEY "
    "(for --search tavily); set them in the environment, or use --provider demo "
    "--search demo to run without them\n"
)


def clean_environment() -> dict[str, str]:
    """This process's environment without any key, endpoint or provider choice."""
    return {
        key: value
        for key, value in os.environ.items()
        if not key.endswith(("_API_KEY", "_BASE_URL")) and key != "DEEP_RESEARCH_PROVIDER"
    }


def test_the_demo_runs_in_a_subprocess_and_prints_a_report() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "deep_research", "--provider", "demo", "--pace", "0", "x"],
        capture_output=True,
        text=True,
        env=clean_environment(),
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
    search_server: SearchServer, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        [
            "--provider=demo",
            "--search=tavily",
            f"--tavily-base-url={search_server.base_url}",
            "--pace=0",
            "green roofs",
        ],
        {"TAVILY_API_KEY": search_server.api_key},
    )
    out = capsys.readouterr().out
    assert status == 0
    assert len(search_server.received) == 3
    assert "https://journal.test/what-is-the-background-of-green-roofs/study" in out


def test_the_report_is_also_written_to_the_output_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "report.md"
    assert main(["--provider", "demo", "--pace", "0", "--output", str(target), "x"], {}) == 0
    assert target.read_text(encoding="utf-8") == capsys.readouterr().out


# -- missing keys ------------------------------------------------------------------------


def test_a_real_provider_without_its_key_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--provider", "anthropic", "--search", "demo", "x"], {}) == 2
    assert capsys.readouterr().err == (
        "deep_research: missing ANTHROPIC_API_KEY (for --provider anthropic); set it in the "
        "environment, or use --provider demo to run without it\n"
    )


def test_tavily_search_without_its_key_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--provider", "demo", "--search", "tavily", "x"], {}) == 2
    assert capsys.readouterr().err == (
        "deep_research: missing TAVILY_API_KEY (for --search tavily); set it in the "
        "environment, or use --search demo to run without it\n"
    )


def test_every_missing_key_is_reported_at_once_with_no_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "deep_research", "--provider", "openai", "x"],
        capture_output=True,
        text=True,
        env=clean_environment(),
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == MISSING_BOTH


def test_the_readme_quotes_the_missing_keys_message() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert f"```text\n{MISSING_BOTH}```" in readme


def test_keys_are_checked_before_any_search_is_made(
    search_server: SearchServer, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["--provider", "anthropic", f"--tavily-base-url={search_server.base_url}", "x"]
    assert main(arguments, {"TAVILY_API_KEY": search_server.api_key}) == 2
    assert "missing ANTHROPIC_API_KEY" in capsys.readouterr().err
    assert search_server.received == []


# -- choosing the provider and its endpoint ---------------------------------------------


def test_the_provider_is_the_flag_then_the_environment_then_whichever_key_is_set() -> None:
    assert pick_provider("openai", {"DEEP_RESEARCH_PROVIDER": "anthropic"}) == "openai"
    assert pick_provider(None, {"DEEP_RESEARCH_PROVIDER": "Anthropic"}) == "anthropic"
    assert pick_provider(None, {"OPENAI_API_KEY": "k"}) == "openai"
    assert pick_provider(None, {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}) == "anthropic"
    assert pick_provider(None, {}) == "demo"
    with pytest.raises(ConfigError, match="unknown provider 'gemini'"):
        pick_provider(None, {"DEEP_RESEARCH_PROVIDER": "gemini"})


def test_a_base_url_chooses_the_openai_provider_unless_one_is_named() -> None:
    endpoint = "http://127.0.0.1:11434/v1"
    assert pick_provider(None, {"ANTHROPIC_API_KEY": "k"}, base_url=endpoint) == "openai"
    assert pick_provider("demo", {}, base_url=endpoint) == "demo"


def test_the_openai_provider_talks_to_the_base_url(
    model_server: RefusingModelServer, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = [
        f"--base-url={model_server.base_url}/v1",
        "--model=local-model",
        "--search=demo",
        "--plain",
        "x",
    ]
    assert main(arguments, {"OPENAI_API_KEY": "sk-local"}) == 1
    (request,) = model_server.received
    assert request.path == "/v1/chat/completions"
    assert request.authorization == "Bearer sk-local"
    assert request.body["model"] == "local-model"
    assert "deep_research: the research run failed: " in capsys.readouterr().err


def test_a_base_url_for_another_provider_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    arguments = ["--provider", "anthropic", "--base-url", "http://127.0.0.1:9/v1", "x"]
    assert main(arguments, {"ANTHROPIC_API_KEY": "k", "TAVILY_API_KEY": "k"}) == 2
    assert capsys.readouterr().err == (
        "deep_research: --base-url is for OpenAI-compatible endpoints: "
        "use it with --provider openai\n"
    )


def test_the_help_describes_base_url(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        "--base-url URL an OpenAI-compatible endpoint for the openai provider, such as "
        "http://localhost:11434/v1 (default: $OPENAI_BASE_URL, else OpenAI's API); without "
        "--provider it chooses openai, which still needs OPENAI_API_KEY"
    ) in help_text
