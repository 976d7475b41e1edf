"""The raw request and reply helpers of the provider toolkit (`automata.core._raw`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from types import MappingProxyType
from typing import Any

import pytest
from pydantic import BaseModel

from automata.core.providers import encode_body, raw_post_problem, read_reply, reply_data


class Point(BaseModel):
    x: int
    y: int = 0


class Reply:
    """A whole HTTP response: its bytes and headers."""

    def __init__(self, content: bytes, content_type: str = "application/json") -> None:
        self.content = content
        self.headers: Mapping[str, str] = {"content-type": content_type}

    @property
    def text(self) -> str:
        return self.content.decode()


def test_a_body_is_compact_utf8_json() -> None:
    assert encode_body({"text": "snø", "n": [1, 2]}) == '{"text":"snø","n":[1,2]}'.encode()


def test_dates_models_mappings_and_sets_are_sent_as_the_sdks_send_them() -> None:
    body = {
        "day": date(2026, 12, 1),
        "point": Point(x=1),
        "view": MappingProxyType({"a": 1}),
        "tags": frozenset({"t"}),
    }
    assert json.loads(encode_body(body)) == {
        "day": "2026-12-01",
        "point": {"x": 1},
        "view": {"a": 1},
        "tags": ["t"],
    }


def test_nan_and_unknown_objects_are_refused() -> None:
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        encode_body({"x": float("nan")})
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        encode_body({"x": object()})


class Current:
    async def post(
        self,
        path: str,
        *,
        cast_to: type,
        body: object = None,
        content: bytes | None = None,
        options: Mapping[str, Any] | None = None,
        stream: bool = False,
    ) -> object:
        return None


class Older:
    async def post(self, path: str, *, cast_to: type, body: object = None) -> object:
        return None


def test_a_client_whose_post_takes_the_raw_parameters_has_no_problem() -> None:
    assert raw_post_problem(Current()) is None


def test_a_client_whose_post_lacks_them_is_named_with_what_is_missing() -> None:
    assert raw_post_problem(Older()) == "Older.post takes no content, options, stream"
    assert raw_post_problem(object()) == "object has no post method"


def test_reply_data_is_the_json_or_the_text_of_a_body_that_is_not_json() -> None:
    assert reply_data(Reply(b'{"a": 1}')) == {"a": 1}
    assert reply_data(Reply(b"plain words", "text/plain")) == "plain words"
    with pytest.raises(json.JSONDecodeError):
        reply_data(Reply(b"{not json", "application/json; charset=utf-8"))


def test_read_reply_reads_fast_and_falls_back_to_the_sdk_reading_on_a_wrong_shape() -> None:
    def fast(data: Any) -> str:
        return f"fast {data['x']}"

    def sdk(data: Any) -> str:
        return f"sdk {data!r}"

    assert read_reply(Reply(b'{"x": 1}'), fast, sdk) == "fast 1"
    assert read_reply(Reply(b"[1]"), fast, sdk) == "sdk [1]"
