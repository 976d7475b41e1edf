"""automata.web: a guard for web servers on a user's machine, on Starlette (ASGI).

`WebGuard` is a middleware that checks the Host header (DNS rebinding), the origin of
state-changing requests (another site's page), JSON-only bodies and their size before
the app runs; `read_json_object` and its field readers read a route's JSON body within
the guard's bounds; every refusal is a typed `RequestRefused` answered with its HTTP
status and reason, never a 500. `GuardPolicy` says what is let through. The bodies in
`automata.web.testing` are what a guarded server's tests send. See the README.
"""

from automata.web._errors import (
    BadRequest,
    BodyTooLarge,
    CrossOriginRefused,
    HostNotAllowed,
    RequestRefused,
    ServerBusy,
    UnsupportedMediaType,
    refusal,
)
from automata.web._json_body import optional_string, read_json_object, required_string
from automata.web._middleware import POLICY_SCOPE_KEY, WebGuard
from automata.web._policy import LOOPBACK_HOSTS, MAX_BODY_BYTES, MAX_JSON_DEPTH, GuardPolicy

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
