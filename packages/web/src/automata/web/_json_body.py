"""A request's JSON object body, read within the guard's bounds, and its fields, each
refused with `BadRequest` and the reason when it is not what a route takes."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from automata.web._errors import BadRequest
from automata.web._middleware import POLICY_SCOPE_KEY
from automata.web._policy import GuardPolicy

__all__ = ["optional_string", "read_json_object", "required_string"]


def _json_type(value: object) -> str:
    """The JSON name of a decoded value's type, as a message names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _refuse_constant(name: str) -> Any:
    raise BadRequest(f"the body is not JSON: {name} is not a JSON value")


def _check_value(body: object, max_depth: int) -> None:
    """`BadRequest` when `body` nests deeper than `max_depth` or holds a string (a key
    or a value) that is not Unicode text (a lone surrogate, which no store can
    encode); the message names where."""
    pending: list[tuple[object, int, str]] = [(body, 0, "")]
    while pending:
        value, depth, where = pending.pop()
        if isinstance(value, str):
            _check_text(value, where)
        elif isinstance(value, dict | list):
            if depth >= max_depth:
                raise BadRequest(f"the body is nested deeper than {max_depth} levels")
            if isinstance(value, dict):
                for key, item in value.items():
                    _check_text(key, f"a key in {where or 'the body'}")
                    pending.append((item, depth + 1, f"{where}.{key}" if where else key))
            else:
                pending.extend((item, depth + 1, f"{where}[{i}]") for i, item in enumerate(value))


def _check_text(text: str, where: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as bad:
        raise BadRequest(
            f"{where} holds a lone surrogate (\\ud800-\\udfff), which is not text"
        ) from bad


async def read_json_object(request: Request) -> dict[str, Any]:
    """The request's body as a JSON object.

    `BadRequest` with the reason when the body is not UTF-8, not JSON (`NaN` and
    `Infinity` are not JSON), not an object, nested deeper than the policy's
    `max_json_depth`, or holds a lone surrogate. The body is read within the bound of
    the `WebGuard` the app runs behind (a longer one is refused with `BodyTooLarge`
    while it is read); with no guard in front, `RuntimeError`: an unbounded body is
    never read.
    """
    policy = request.scope.get(POLICY_SCOPE_KEY)
    if not isinstance(policy, GuardPolicy):
        raise RuntimeError("read_json_object needs the app to run behind WebGuard")
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        raise BadRequest(f"the body is not UTF-8 (byte {bad.start})") from bad
    try:
        body = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError as deep:
        raise BadRequest(f"the body is nested deeper than {policy.max_json_depth} levels") from deep
    except ValueError as bad:
        raise BadRequest(f"the body is not JSON: {bad}") from bad
    if not isinstance(body, dict):
        raise BadRequest(f"the body must be a JSON object, not {_json_type(body)}")
    _check_value(body, policy.max_json_depth)
    return body


def required_string(body: dict[str, Any], name: str, *, allow_empty: bool = False) -> str:
    """`body[name]`, which must be a string, and not empty unless `allow_empty`: else
    `BadRequest` naming the field and what it got."""
    value = body.get(name)
    if isinstance(value, str) and (value or allow_empty):
        return value
    got = "missing" if name not in body else _json_type(value)
    if isinstance(value, str):
        got = "an empty string"
    kind = "a string" if allow_empty else "a non-empty string"
    raise BadRequest(f"{name} must be {kind}, got {got}")


def optional_string(body: dict[str, Any], name: str, *, default: str = "") -> str:
    """`body[name]` when present, which must then be a string; else `default`."""
    value = body.get(name, default)
    if not isinstance(value, str):
        raise BadRequest(f"{name} must be a string, got {_json_type(value)}")
    return value
