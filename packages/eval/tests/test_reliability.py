"""The reliability section (E21): provider errors, retries, timeouts and cancellations
per run, per model and per case, each with its rate and Wilson interval. Retries are
what the real providers report (docs/loop.md L99), here the official Anthropic and
OpenAI clients against a local server that answers 529 or 429 before it answers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer

from automata.anthropic import AnthropicProvider
from automata.core import Agent
from automata.core.providers import RetryPolicy
from automata.eval import (
    Case,
    Rate,
    Reliability,
    TrialResult,
    evaluate,
    load_report,
    reliability,
    wilson_interval,
    write_report,
)
from automata.eval._sandbox import TrialContext
from automata.openai import OpenAIProvider

NO_WAIT = RetryPolicy(max_attempts=3, base_delay=0, max_delay=1, jitter=0)


def _claude_answer(text: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _overloaded(_: dict[str, Any]) -> Reply:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    return Reply(status=529, json_body=body)


def _rate_limited(_: dict[str, Any]) -> Reply:
    body = {"error": {"message": "slow down", "type": "requests", "param": None, "code": None}}
    return Reply(status=429, json_body=body)


def _every_other(first: Callable[[dict[str, Any]], Reply], then: Reply) -> Callable[..., Reply]:
    """`first`, then `then`, then `first` again, and so on."""
    calls = [0]

    def respond(request: dict[str, Any]) -> Reply:
        calls[0] += 1
        return first(request) if calls[0] % 2 else then

    return respond


@pytest.fixture
def server() -> Iterator[WireServer]:
    running = WireServer().start()
    try:
        yield running
    finally:
        running.stop()


def _rate(count: int, total: int) -> Rate:
    return Rate(
        count=count, total=total, rate=count / total, interval=wilson_interval(count, total)
    )


async def test_real_providers_retries_reach_the_trials_and_the_groups(
    server: WireServer, tmp_path: Path
) -> None:
    """E21: a 529 then an answer is one retry on the trial; an error past the policy
    counts its two retries; per model and per case with rates and intervals."""
    server.route("/v1/messages", _every_other(_overloaded, Reply(json_body=_claude_answer("ok"))))
    server.route("/v1/chat/completions", _rate_limited)

    def claude(ctx: TrialContext) -> Agent[None]:
        provider = AnthropicProvider(
            "claude-test", api_key="k", base_url=server.base_url, retry_policy=NO_WAIT
        )
        return Agent(provider)

    def gpt(ctx: TrialContext) -> Agent[None]:
        provider = OpenAIProvider(
            "gpt-down", api_key="k", base_url=server.base_url + "/v1", retry_policy=NO_WAIT
        )
        return Agent(provider)

    cases = [
        Case(name="greets", task="hi", agent="claude"),
        Case(name="down", task="hi", agent="gpt"),
    ]
    report = await evaluate(cases, {"claude": claude, "gpt": gpt}, trials=2, concurrency=1)

    trials = {
        (t.case, t.trial): (t.retries, t.model, t.failure) for r in report.cases for t in r.trials
    }
    assert trials == {
        ("greets", 0): (1, "claude-test", None),
        ("greets", 1): (1, "claude-test", None),
        ("down", 0): (2, "gpt-down", "provider_error"),
        ("down", 1): (2, "gpt-down", "provider_error"),
    }
    by_model = {group.name: group.reliability for group in report.reliability_by_model}
    assert list(by_model) == ["claude-test", "gpt-down"]
    claude_row, gpt_row = by_model["claude-test"], by_model["gpt-down"]
    assert (claude_row.trials, claude_row.retries, claude_row.attempts) == (2, 2, 4)
    assert claude_row.retry_rate == _rate(2, 4)
    assert claude_row.provider_error_rate == Rate(
        count=0, total=2, rate=0.0, interval=wilson_interval(0, 2)
    )
    assert (gpt_row.provider_errors, gpt_row.retries, gpt_row.attempts) == (2, 4, 6)
    assert gpt_row.provider_error_rate == _rate(2, 2)
    assert gpt_row.retry_rate == _rate(4, 6)
    by_case = {group.name: group.reliability for group in report.reliability_by_case}
    assert by_case == {"greets": claude_row, "down": gpt_row}
    overall = report.reliability
    assert (overall.trials, overall.provider_errors, overall.retries, overall.attempts) == (
        4,
        2,
        6,
        10,
    )
    assert overall.retry_rate == _rate(6, 10)
    assert overall.timeout_rate == _rate(0, 4)
    written = write_report(report, tmp_path)
    data = json.loads(written.read_text())
    assert data["reliability_by_model"][1]["reliability"]["retry_rate"]["count"] == 4
    assert load_report(written) == report


def _trial(failure: Any = None, *, retries: int = 0, steps: int = 1) -> TrialResult:
    return TrialResult(
        case="c", trial=0, passed=failure is None, failure=failure, retries=retries, steps=steps
    )


def test_each_kind_has_its_rate_of_trials_and_retries_theirs_of_attempts() -> None:
    """E21: provider errors, timeouts and cancellations are shares of trials with Wilson
    intervals; retries a share of provider attempts (calls plus retries)."""
    trials = [
        _trial(retries=3, steps=2),
        _trial("provider_error", retries=2),
        _trial("timeout", steps=0),
        _trial("cancelled", steps=0),
        _trial("agent_error"),
    ]
    got = reliability(trials)
    assert (got.trials, got.retries, got.attempts) == (5, 5, 9)
    assert got.provider_error_rate == _rate(1, 5)
    assert got.timeout_rate == _rate(1, 5)
    assert got.cancellation_rate == _rate(1, 5)
    assert got.retry_rate == _rate(5, 9)
    assert got.agent_errors == 1


def test_no_trials_have_no_rates_and_no_intervals() -> None:
    """E21: nothing to measure is None, never 0 %."""
    got = reliability([])
    assert got == Reliability()
    assert (got.retry_rate.rate, got.retry_rate.interval) == (None, None)
