"""The Gemini API's `generateContent` wire, for the local `WireServer`: replies as the
API sends them, and requests checked as the API reads them.

Built from the Gemini API reference (`models.generateContent`,
`models.streamGenerateContent`: `GenerateContentResponse`, `Candidate`, `Content`,
`Part`, `UsageMetadata`, `PromptFeedback`, the `Status` error body) and checked
against the official SDK's own models (`google.genai.types`, which forbid fields they
do not know): every body `response` builds validates as a
`types.GenerateContentResponse`, and `answer` refuses a request whose `contents`,
`systemInstruction`, `tools`, `toolConfig`, `safetySettings` or `generationConfig`
does not validate as the SDK's `Content`, `Tool`, `ToolConfig`, `SafetySetting` and
`GenerationConfig`, with the 400 `INVALID_ARGUMENT` the API answers a bad request with.

A streamed reply (`:streamGenerateContent?alt=sse`) is a series of
`GenerateContentResponse` chunks, each an unnamed SSE event (`data: {...}`); there is
no end event: the last chunk carries the candidate's `finishReason` and the usage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from automata_wire_testing._server import PathSwitch, Reply, Responder
from automata_wire_testing._sse import halves, sse_data

__all__ = [
    "MODEL",
    "STATUS_OF_CODE",
    "answer",
    "check_request",
    "chunks",
    "error",
    "error_event",
    "response",
    "stream_reply",
]

MODEL: Final = "gemini-test"
STREAM_MARKER: Final = ":streamGenerateContent"

STATUS_OF_CODE: Final[Mapping[int, str]] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
    529: "UNAVAILABLE",
}
"""The gRPC status the API's error body names for each HTTP status."""

_REQUEST_FIELDS: Final = (
    "contents",
    "systemInstruction",
    "tools",
    "toolConfig",
    "safetySettings",
    "generationConfig",
    "cachedContent",
    "labels",
)


def response(
    parts: Sequence[Mapping[str, Any]],
    *,
    finish_reason: str | None = "STOP",
    usage: Mapping[str, Any] | None = None,
    model: str = MODEL,
    candidate: Mapping[str, Any] | None = None,
    prompt_feedback: Mapping[str, Any] | None = None,
    validate: bool = True,
) -> dict[str, Any]:
    """A `GenerateContentResponse`: one candidate whose content is `parts` (with
    `finishReason` and any other `candidate` fields), or none when `parts` is empty and
    `prompt_feedback` says the prompt was blocked. `validate=False` skips the SDK's
    check, for a reply of the wrong shape on purpose."""
    body: dict[str, Any] = {"modelVersion": model, "responseId": "resp-1"}
    if parts or prompt_feedback is None:
        first: dict[str, Any] = {"content": {"role": "model", "parts": [dict(p) for p in parts]}}
        if finish_reason is not None:
            first["finishReason"] = finish_reason
        first["index"] = 0
        first.update(candidate or {})
        body["candidates"] = [first]
    if prompt_feedback is not None:
        body["promptFeedback"] = dict(prompt_feedback)
    body["usageMetadata"] = dict(usage or {"promptTokenCount": 5, "candidatesTokenCount": 3})
    return _checked(body, validate)


def _checked(body: dict[str, Any], validate: bool) -> dict[str, Any]:
    from google.genai import types

    if validate:
        types.GenerateContentResponse.model_validate(body)
    return body


def chunks(whole: Mapping[str, Any], *, validate: bool = True) -> list[dict[str, Any]]:
    """The stream chunks the API sends for the reply `whole`: each text part in two
    fragments (a chunk each), every other part a chunk of its own, the last chunk with
    the candidate's `finishReason`, its metadata and the usage. A reply without
    candidates (a blocked prompt) is one chunk."""
    candidates = whole.get("candidates")
    if not candidates:
        return [dict(whole)]
    first = candidates[0]
    base = {"modelVersion": whole.get("modelVersion", MODEL), "responseId": "resp-1"}
    out: list[dict[str, Any]] = []
    for part in first["content"]["parts"]:
        text = part.get("text")
        pieces: list[dict[str, Any]] = []
        if isinstance(text, str) and text:
            fragments = halves(text)
            for index, fragment in enumerate(fragments):
                piece = {"text": fragment} | ({"thought": True} if part.get("thought") else {})
                if index == len(fragments) - 1:
                    piece |= {k: v for k, v in part.items() if k not in ("text", "thought")}
                pieces.append(piece)
        else:
            pieces.append(dict(part))
        for piece in pieces:
            content = {"role": "model", "parts": [piece]}
            out.append({**base, "candidates": [{"content": content, "index": 0}]})
    tail = {k: v for k, v in first.items() if k not in ("content", "index")}
    if out:
        out[-1]["candidates"][0].update(tail)
    else:
        out.append({**base, "candidates": [{**tail, "index": 0}]})
    out[-1]["usageMetadata"] = whole.get("usageMetadata")
    if "promptFeedback" in whole:
        out[0]["promptFeedback"] = whole["promptFeedback"]
    return [_checked(chunk, validate) for chunk in out]


def stream_events(whole: Mapping[str, Any], *, validate: bool = True) -> list[bytes]:
    """The SSE events of `chunks(whole)`."""
    return [sse_data(chunk) for chunk in chunks(whole, validate=validate)]


def stream_reply(whole: Mapping[str, Any], *, validate: bool = True, **fields: Any) -> Reply:
    """The streamed reply of `whole`, as `Reply` (with any other `Reply` fields)."""
    return Reply(events=stream_events(whole, validate=validate), **fields)


def check_request(body: Mapping[str, Any]) -> str | None:
    """None when `body` reads as a `generateContent` request to the SDK's models (see
    the module docstring), else what does not."""
    from google.genai import types

    models: dict[str, Any] = {
        "systemInstruction": types.Content,
        "toolConfig": types.ToolConfig,
        "generationConfig": types.GenerationConfig,
    }
    lists: dict[str, Any] = {
        "contents": types.Content,
        "tools": types.Tool,
        "safetySettings": types.SafetySetting,
    }
    unknown = set(body) - set(_REQUEST_FIELDS)
    if unknown:
        return f"unknown fields {sorted(unknown)}"
    if not body.get("contents"):
        return "contents is required"
    try:
        for name, model in models.items():
            if name in body:
                model.model_validate(body[name])
        for name, model in lists.items():
            for item in body.get(name) or ():
                model.model_validate(item)
    except ValueError as invalid:
        return str(invalid)
    for content in body["contents"]:
        if content.get("role") not in ("user", "model"):
            return f"a content's role is {content.get('role')!r}"
        if not content.get("parts"):
            return "a content without parts"
    return None


def error(status: int, message: str, *, headers: dict[str, str] | None = None) -> Reply:
    """The API's error body (`{"error": {"code", "message", "status"}}`)."""
    body = {"error": {"code": status, "message": message, "status": STATUS_OF_CODE[status]}}
    return Reply(status=status, json_body=body, headers=headers or {})


def error_event(status: int, message: str) -> bytes:
    """An error sent inside a 200 stream, as its own chunk."""
    return sse_data(
        {"error": {"code": status, "message": message, "status": STATUS_OF_CODE[status]}}
    )


def answer(whole: Mapping[str, Any], *, check: bool = True) -> Responder:
    """`whole` as JSON to `:generateContent`, as its chunks to
    `:streamGenerateContent`; a request the SDK's models refuse (`check_request`) is
    answered 400 `INVALID_ARGUMENT` instead. `check=False` checks neither the request
    nor the reply's chunks (a reply of the wrong shape on purpose)."""
    stream = stream_reply(whole, validate=check)
    json_reply = Reply(json_body=dict(whole))

    def checked(reply: Reply) -> Any:
        def respond(body: dict[str, Any]) -> Reply:
            problem = check_request(body) if check else None
            return reply if problem is None else error(400, problem)

        return respond

    return PathSwitch(STREAM_MARKER, checked(stream), checked(json_reply))
