"""`automata.core.providers.reading`: the vendor-neutral pieces every vendor's reader
uses, written once: tool-call argument text, token counts, typed fields, quotes."""

from __future__ import annotations

from typing import Any

import pytest

from automata.core.providers.reading import clip, count, json_of, read_arguments, typed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"city": "Oslo"}', ({"city": "Oslo"}, None)),
        ("", ({}, None)),
        ('{"city": "Os', ({}, 'arguments were cut off: \'{"city": "Os\'')),
        ('{"city": ', ({}, "arguments were cut off: '{\"city\": '")),
        ("{city: Oslo}", ({}, "arguments are not valid JSON: '{city: Oslo}'")),
        ('{"x": NaN}', ({}, "arguments are not valid JSON: '{\"x\": NaN}'")),
        ('{"x": -Infinity}', ({}, "arguments are not valid JSON: '{\"x\": -Infinity}'")),
        ("[1, 2]", ({}, "arguments are not a JSON object: '[1, 2]'")),
        ('"Oslo"', ({}, "arguments are not a JSON object: '\"Oslo\"'")),
    ],
    ids=["object", "empty", "cut-in-string", "cut-after-key", "bad", "nan", "inf", "list", "str"],
)
def test_argument_text_reads_as_its_object_or_says_why_it_is_none(
    text: str, expected: tuple[dict[str, Any], str | None]
) -> None:
    assert read_arguments(text) == expected


def test_arguments_nested_past_the_recursion_limit_are_not_valid_json() -> None:
    text = "[" * 100_000 + "]" * 100_000
    value, error = read_arguments(text)
    assert value == {}
    assert error is not None
    assert error.startswith("arguments are not valid JSON: '[[[")


def test_a_long_text_is_quoted_cut_with_its_length() -> None:
    text = '{"text": "' + "a" * 500
    assert clip(text) == f"{text[:200]!r}... (510 characters)"
    assert clip(text, 10) == f"{text[:10]!r}... (510 characters)"
    assert clip("short") == "'short'"
    assert read_arguments(text) == ({}, f"arguments were cut off: {clip(text)}")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(12, 12), (0, 0), (-5, 0), (True, 0), ("12", 0), (None, 0), (1.5, 0), ([3], 0)],
)
def test_a_token_count_is_a_positive_integer_or_zero(value: object, expected: int) -> None:
    assert count(value) == expected


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [("a", str, "a"), (3, int, 3), (True, int, None), (3, str, None), (None, str, None)],
)
def test_a_typed_field_is_the_value_of_that_type_or_none(
    value: object, kind: type[Any], expected: object
) -> None:
    assert typed(value, kind) == expected


class _Model:
    """Stands in for an SDK model: `to_dict` as both SDKs spell it."""

    def __init__(self, dumped: dict[str, Any] | None) -> None:
        self.dumped = dumped
        self.asked: dict[str, Any] = {}

    def to_dict(self, **options: Any) -> dict[str, Any]:
        self.asked = options
        if self.dumped is None:
            raise RecursionError("maximum recursion depth exceeded")
        return self.dumped


def test_json_of_dumps_a_model_by_its_wire_names_without_serializer_warnings() -> None:
    model = _Model({"type": "message", "stop_reason": "end_turn"})
    assert json_of(model) == {"type": "message", "stop_reason": "end_turn"}
    assert model.asked == {"mode": "json", "warnings": False}


@pytest.mark.parametrize("value", [{"a": 1}, [1, 2], "text", None, 3])
def test_json_of_hands_on_what_is_already_json(value: object) -> None:
    assert json_of(value) is value


def test_json_of_a_model_nested_too_deep_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="nests too deep"):
        json_of(_Model(None))
