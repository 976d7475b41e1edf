"""A request's JSON object body, read within bounds, and the refusal of a bad one."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from automata.ui._errors import (
    InvalidRequestBodyError,
    RequestBodyTooLargeError,
    UIProtocolError,
)
from automata.ui._limits import UILimits

__all__ = ["read_json_object", "refusal"]


async def read_json_object(request: Request, limits: UILimits) -> dict[str, Any]:
    """The body as a JSON object. `RequestBodyTooLargeError` when it is longer than
    `limits.max_body_bytes` (never buffered past it); `InvalidRequestBodyError` when
    it is not UTF-8 JSON (`NaN` is not JSON), not an object, or nested deeper than
    `limits.max_json_depth`."""
    bound = limits.max_body_bytes
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > bound:
        raise RequestBodyTooLargeError(f"the request body is over {bound} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > bound:
            raise RequestBodyTooLargeError(f"the request body is over {bound} bytes")
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks).decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as bad:
        raise InvalidRequestBodyError(f"the request body is not JSON: {bad}") from bad
    except RecursionError as deep:
        raise InvalidRequestBodyError("the request body is nested too deeply") from deep
    if not isinstance(body, dict):
        raise InvalidRequestBodyError("the request body must be a JSON object")
    _check_depth(body, limits.max_json_depth)
    return body


def refusal(error: UIProtocolError) -> JSONResponse:
    """The JSON answer to a refused request: `{"error": <class name>, "detail": ...}`
    with the error's status."""
    return JSONResponse(
        {"error": type(error).__name__, "detail": str(error)}, status_code=error.status
    )


def _refuse_constant(name: str) -> Any:
    raise InvalidRequestBodyError(f"the request body is not JSON: {name} is not a JSON value")


def _check_depth(body: object, max_depth: int) -> None:
    pending: list[tuple[object, int]] = [(body, 0)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth >= max_depth:
                raise InvalidRequestBodyError(
                    f"the request body is nested deeper than {max_depth} levels"
                )
            items = value.values() if isinstance(value, dict) else value
            pending.extend((item, depth + 1) for item in items)
