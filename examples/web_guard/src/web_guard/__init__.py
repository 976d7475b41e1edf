"""Example support: what the web examples (sse_server, threads_server, chat) share so
that a copy of them is safe to run: `WebGuard` (a Starlette/ASGI middleware checking
the Host header, the origin of state-changing requests, JSON-only bodies and their
size), `read_json_object` and its field readers (typed 400 answers, never a 500), and
the refusals with their HTTP statuses. See the README for the limits."""

from web_guard._errors import (
    BadRequest,
    BodyTooLarge,
    CrossOriginRefused,
    HostNotAllowed,
    RequestRefused,
    ServerBusy,
    UnsupportedMediaType,
    refusal,
)
from web_guard._json_body import optional_string, read_json_object, required_string
from web_guard._middleware import POLICY_SCOPE_KEY, WebGuard
from web_guard._policy import LOOPBACK_HOSTS, MAX_BODY_BYTES, MAX_JSON_DEPTH, GuardPolicy

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "POLICY_SCOPE_KEY",
    "BadRequest",
    "BodyTooLarge",
    "CrossOriginRefused",
    "GuardPolicy",
    "HostNotAllowed",
    "RequestRefused",
    "ServerBusy",
    "UnsupportedMediaType",
    "WebGuard",
    "optional_string",
    "read_json_object",
    "refusal",
    "required_string",
]
