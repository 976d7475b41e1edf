"""The raw request and reply helpers of the provider toolkit (`automata.core.providers._raw`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from automata.core.providers import raw_post_problem, read_reply, reply_data


class Reply:
    """A whole HTTP response: its bytes and headers."""

    def __init__(self, content: bytes, content_type: str = "application/json") -> None:
        self.content = content
        self.headers: Mapping[str, str] = {"content-type": content_type}

    @property
    def text(self) -> str:
        return self.content.decode()


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
    async def post(self, path: str, *, cast_to: type, content: bytes | None = None) -> object:
        return None


def test_a_client_whose_post_takes_the_raw_parameters_has_no_problem() -> None:
    assert raw_post_problem(Current()) is None


def test_a_client_whose_post_lacks_them_is_named_with_what_is_missing() -> None:
    assert raw_post_problem(Older()) == "Older.post takes no body, options, stream"
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
