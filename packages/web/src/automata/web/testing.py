"""Bodies that are not a JSON object a route can take, for tests that send them to a
guarded server: each must be answered 400 `BadRequest` with a reason, never 500."""

from __future__ import annotations

import json
from collections.abc import Mapping

from automata.web._policy import MAX_JSON_DEPTH

__all__ = ["JSON_HEADERS", "MALFORMED_BODIES", "encoded", "malformed_fields"]

JSON_HEADERS = {"content-type": "application/json"}
"""The headers a page's `fetch` of a JSON body sends."""


def encoded(body: object) -> bytes:
    """`body` as JSON with every non-ASCII character escaped, so that a lone surrogate
    goes over the wire as `\\ud800` (as a page's `JSON.stringify` sends it)."""
    return json.dumps(body).encode("ascii")


MALFORMED_BODIES: dict[str, bytes] = {
    "not JSON": b"{",
    "empty": b"",
    "trailing garbage": b'{"request_key": "k"} x',
    "not UTF-8": b'{"request_key": "\xff\xfe"}',
    "UTF-8 byte order mark": b'\xef\xbb\xbf{"request_key": "k"}',
    "an array": b'["request_key"]',
    "null": b"null",
    "a string": b'"request_key"',
    "a number": b"1",
    "NaN": b'{"request_key": "k", "n": NaN}',
    "Infinity": b'{"request_key": "k", "n": -Infinity}',
    "nested past the bound": b'{"request_key": "k", "deep": '
    + b"[" * MAX_JSON_DEPTH
    + b"]" * MAX_JSON_DEPTH
    + b"}",
    "nested past the parser's stack": b'{"request_key": "k", "deep": ' + b"[" * 100_000,
    "a lone surrogate in a value": b'{"request_key": "k\\ud800"}',
    "a lone surrogate in a key": b'{"request_key": "k", "\\udfff": 1}',
}
"""Bodies no route takes, whatever its fields, by what is wrong with them."""


def malformed_fields(valid: Mapping[str, object], *strings: str) -> dict[str, dict[str, object]]:
    """`valid` (a body a route takes) spoiled one way at a time, by what is wrong:
    each of `strings` (fields that must be non-empty strings) missing, empty, `true`,
    a number, `null`, an array, an object, and holding a lone surrogate."""
    spoiled: dict[str, dict[str, object]] = {}
    for name in strings:
        spoiled[f"{name} missing"] = {k: v for k, v in valid.items() if k != name}
        for label, value in (
            ("empty", ""),
            ("true", True),
            ("a number", 7),
            ("null", None),
            ("an array", ["x"]),
            ("an object", {"x": 1}),
            ("a lone surrogate", "x\ud800"),
        ):
            spoiled[f"{name} {label}"] = {**valid, name: value}
    return spoiled
