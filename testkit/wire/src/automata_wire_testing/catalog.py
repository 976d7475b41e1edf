"""The vendors' model lists and OpenAI's embeddings, served by a `WireServer`.

`serve_anthropic_models` answers `GET /v1/models` as the Models API does: pages of
`limit` models (20 by default) with `has_more`, `first_id` and `last_id`, the next page
asked for with `after_id` (the previous one with `before_id`), and `GET /v1/models/<id>`.
`serve_openai_models` answers `GET /models` with the list object (one page: the API does
not paginate it) and `GET /models/<id>`. `serve_openai_embeddings` answers
`POST /embeddings` with one vector per input (`embedding_vector`), as float lists or,
when asked for `encoding_format: "base64"` (what the SDK asks for by default), as
little-endian float32 in base64; it refuses more than `max_inputs` inputs with a 400,
as the API refuses more than 2048. Routes match path suffixes, so the same calls serve
a provider whose `base_url` ends in `/v1`.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from collections.abc import Callable, Sequence
from typing import Any

from automata_wire_testing._server import Reply, WireServer

__all__ = [
    "anthropic_model",
    "anthropic_models_responder",
    "embedding_vector",
    "openai_embeddings_responder",
    "openai_model",
    "refusing",
    "serve_anthropic_models",
    "serve_openai_embeddings",
    "serve_openai_models",
]


def anthropic_model(
    model_id: str,
    *,
    display_name: str | None = None,
    created_at: str = "2025-09-29T00:00:00Z",
    max_input_tokens: int | None = 200_000,
    max_tokens: int | None = 64_000,
    vision: bool = True,
    pdf: bool = True,
    thinking: bool = True,
    structured_outputs: bool = True,
) -> dict[str, Any]:
    """One model as `GET /v1/models` describes it, capabilities included."""

    def supported(flag: bool) -> dict[str, bool]:
        return {"supported": flag}

    return {
        "type": "model",
        "id": model_id,
        "display_name": display_name or model_id,
        "created_at": created_at,
        "lifecycle": "active",
        "deprecated_at": None,
        "retires_at": None,
        "line": None,
        "max_input_tokens": max_input_tokens,
        "max_tokens": max_tokens,
        "capabilities": {
            "batch": supported(True),
            "citations": supported(True),
            "code_execution": supported(False),
            "context_management": {"supported": False},
            "effort": {
                "supported": thinking,
                **{level: supported(thinking) for level in ("low", "medium", "high", "max")},
            },
            "image_input": supported(vision),
            "pdf_input": supported(pdf),
            "server_tools": {
                "supported": False,
                "code_execution": supported(False),
                "web_search": supported(False),
            },
            "structured_outputs": supported(structured_outputs),
            "thinking": {
                "supported": thinking,
                "types": {
                    "adaptive": supported(thinking),
                    "between_tools": supported(False),
                    "disabled": supported(True),
                    "enabled": supported(thinking),
                },
            },
        },
    }


def openai_model(
    model_id: str, *, created: int = 1_700_000_000, owned_by: str = "openai"
) -> dict[str, Any]:
    """One model as `GET /models` describes it (all the API says about a model)."""
    return {"id": model_id, "object": "model", "created": created, "owned_by": owned_by}


def _anthropic_page(
    models: Sequence[dict[str, Any]], query: dict[str, Any], max_limit: int
) -> Reply:
    ids = [model["id"] for model in models]
    limit = min(int(query.get("limit", 20)), max_limit)
    if "after_id" in query:
        start = ids.index(query["after_id"]) + 1
        page, more = models[start : start + limit], start + limit < len(models)
    elif "before_id" in query:
        end = ids.index(query["before_id"])
        page, more = models[max(0, end - limit) : end], end - limit > 0
    else:
        page, more = models[:limit], limit < len(models)
    return Reply(
        json_body={
            "data": list(page),
            "has_more": more,
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None,
        }
    )


def anthropic_models_responder(
    models: Sequence[dict[str, Any]], *, max_limit: int = 1000
) -> Callable[[dict[str, Any]], Reply]:
    """The responder `serve_anthropic_models` routes `GET /v1/models` to: the page its
    query asks for (`after_id`, `before_id`, `limit` up to `max_limit`)."""
    listed = list(models)
    return lambda query: _anthropic_page(listed, query, max_limit)


def serve_anthropic_models(
    server: WireServer, models: Sequence[dict[str, Any]], *, max_limit: int = 1000
) -> None:
    """Answer `GET /v1/models` (pages of `limit` models, at most `max_limit` as the
    API's 1000) and `GET /v1/models/<id>` with `models`."""
    listed = list(models)
    server.route("/models", anthropic_models_responder(listed, max_limit=max_limit))
    for model in listed:
        server.route(f"/models/{model['id']}", Reply(json_body=model))


def serve_openai_models(server: WireServer, models: Sequence[dict[str, Any]]) -> None:
    """Answer `GET /models` (the list object) and `GET /models/<id>` with `models`."""
    server.route("/models", Reply(json_body={"object": "list", "data": list(models)}))
    for model in models:
        server.route(f"/models/{model['id']}", Reply(json_body=model))


def embedding_vector(text: str, dimensions: int) -> tuple[float, ...]:
    """The vector the server gives `text`: `dimensions` values that float32 holds
    exactly (multiples of 1/8 below 32), so a base64 reply decodes to the same floats."""
    digest = hashlib.sha256(text.encode()).digest()
    return tuple((digest[i % len(digest)] % 255 - 127) / 8 for i in range(dimensions))


def _embedding(vector: tuple[float, ...], encoding: str) -> list[float] | str:
    if encoding == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
    return list(vector)


def openai_embeddings_responder(
    *, dimensions: int = 8, max_inputs: int = 2048, reverse: bool = False
) -> Callable[[dict[str, Any]], Reply]:
    """The responder `serve_openai_embeddings` routes `POST /embeddings` to."""

    def respond(body: dict[str, Any]) -> Reply:
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if len(inputs) > max_inputs:
            message = f"'$.input' is invalid: at most {max_inputs} inputs, got {len(inputs)}"
            error = {"message": message, "type": "invalid_request_error", "param": "input"}
            return Reply(status=400, json_body={"error": {**error, "code": None}})
        size = int(body.get("dimensions") or dimensions)
        encoding = body.get("encoding_format", "float")
        data = [
            {
                "object": "embedding",
                "index": index,
                "embedding": _embedding(embedding_vector(text, size), encoding),
            }
            for index, text in enumerate(inputs)
        ]
        tokens = sum(len(text.split()) for text in inputs)
        return Reply(
            json_body={
                "object": "list",
                "data": data[::-1] if reverse else data,
                "model": body["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    return respond


def serve_openai_embeddings(
    server: WireServer,
    *,
    dimensions: int = 8,
    max_inputs: int = 2048,
    reverse: bool = False,
) -> None:
    """Answer `POST /embeddings` with `embedding_vector(text, dimensions)` for each
    input (the request's `dimensions` wins), each word of an input costing one token.
    `reverse` lists the vectors last input first, each with its `index`, as the API
    is free to."""
    responder = openai_embeddings_responder(
        dimensions=dimensions, max_inputs=max_inputs, reverse=reverse
    )
    server.route("/embeddings", responder)


def refusing(
    nth: int, refusal: Reply, responder: Reply | Callable[[dict[str, Any]], Reply]
) -> Callable[[dict[str, Any]], Reply]:
    """`responder`, except that its `nth` request (counting from 1) gets `refusal`: a
    page or a batch that fails once in the middle of a listing or of several batches."""
    seen = 0

    def respond(body: dict[str, Any]) -> Reply:
        nonlocal seen
        seen += 1
        if seen == nth:
            return refusal
        return responder(body) if callable(responder) else responder

    return respond
