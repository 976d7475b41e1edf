"""`Usage`: what it sums, what it counts, and how it is written down."""

from __future__ import annotations

import json

from automata.core import Usage

OLD_USAGE = {"input_tokens": 1, "output_tokens": 9, "cache_read_tokens": 3, "cache_write_tokens": 4}
"""A usage as journals, transcripts and recorded events wrote it before
`reasoning_tokens` existed."""


def test_reasoning_tokens_are_summed_with_the_rest() -> None:
    total = Usage(output_tokens=10, reasoning_tokens=4) + Usage(output_tokens=5, reasoning_tokens=2)
    assert total == Usage(output_tokens=15, reasoning_tokens=6)


def test_reasoning_tokens_are_part_of_the_output_and_not_counted_again() -> None:
    usage = Usage(input_tokens=10, output_tokens=7, reasoning_tokens=5)
    assert usage.total_tokens == 17


def test_usage_without_reasoning_dumps_exactly_as_before() -> None:
    usage = Usage.model_validate(OLD_USAGE)
    assert usage.reasoning_tokens == 0
    assert usage.model_dump() == OLD_USAGE
    assert usage.model_dump(mode="json") == OLD_USAGE
    assert usage.model_dump_json() == json.dumps(OLD_USAGE, separators=(",", ":"))


def test_reasoning_tokens_are_written_when_there_are_some_and_read_back() -> None:
    usage = Usage(output_tokens=9, reasoning_tokens=6)
    dumped = usage.model_dump(mode="json")
    assert dumped["reasoning_tokens"] == 6
    assert Usage.model_validate(dumped) == usage


def test_vendor_extras_sum_their_numbers_and_keep_the_later_value_of_anything_else() -> None:
    first = Usage(
        input_tokens=1,
        extra={"openai": {"cost": 0.25, "is_byok": False, "cost_details": {"prompt": 0.5}}},
    )
    second = Usage(
        input_tokens=2,
        extra={
            "openai": {"cost": 0.5, "is_byok": True, "cost_details": {"prompt": 0.25}},
            "anthropic": {"server_tool_use": {"web_search_requests": 1}},
        },
    )
    assert (first + second).extra == {
        "openai": {"cost": 0.75, "is_byok": True, "cost_details": {"prompt": 0.75}},
        "anthropic": {"server_tool_use": {"web_search_requests": 1}},
    }
    assert first.extra == {
        "openai": {"cost": 0.25, "is_byok": False, "cost_details": {"prompt": 0.5}}
    }


def test_usage_without_extras_dumps_exactly_as_before_and_extras_read_back() -> None:
    assert Usage.model_validate(OLD_USAGE).model_dump() == OLD_USAGE
    usage = Usage(output_tokens=3, extra={"openai": {"cost": 0.001}})
    assert Usage.model_validate_json(usage.model_dump_json()) == usage
