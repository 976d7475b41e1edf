"""`WebGuard`: an ASGI middleware that refuses what a page of another site, a
DNS-rebinding page or an oversized body would do to a local app, before the app runs."""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from automata.web._errors import (
    BodyTooLarge,
    CrossOriginRefused,
    HostNotAllowed,
    RequestRefused,
    UnsupportedMediaType,
    refusal,
)
from automata.web._policy import GuardPolicy

__all__ = ["POLICY_SCOPE_KEY", "WebGuard"]

POLICY_SCOPE_KEY = "automata.web.policy"
"""Where `WebGuard` leaves its policy in a request's scope (`read_json_object` reads
its bounds there, and refuses to read a body no guard bounds)."""

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_SAME_ORIGIN_FETCHES = frozenset({"same-origin", "none"})
_RESPONSE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "frame-ancestors 'none'",
}


class WebGuard:
    """Checks every HTTP request against a `GuardPolicy` before `app` sees it.

    In this order, each refusal answered with JSON `{"error", "message"}`:

    1. the Host header must name this server (`policy.hosts`), once: else 400
       `HostNotAllowed`;
    2. a state-changing request (any method but GET, HEAD and OPTIONS, and a GET of
       `policy.guarded_paths`) with an `Origin` must come from the server's own origin
       or one of `policy.origins`; without `Origin`, a `Sec-Fetch-Site` must be
       `same-origin` or `none`: else 403 `CrossOriginRefused` (a client that is no
       browser sends neither, and passes);
    3. a request with a body method (POST, PUT, PATCH, DELETE) must say
       `Content-Type: application/json` (UTF-8): else 415 `UnsupportedMediaType`, so
       a cross-site form or a `text/plain` fetch never reaches a route;
    4. a body longer than `policy.max_body_bytes` is refused with 413 `BodyTooLarge`:
       at once when its `Content-Length` says so, else as soon as the bytes read pass
       the bound, so no more than the bound (and one chunk) is ever buffered.

    Every response also gets `X-Content-Type-Options: nosniff` and a
    `Content-Security-Policy` of `frame-ancestors 'none'` (no other site frames the
    page to click its buttons).
    """

    def __init__(self, app: ASGIApp, policy: GuardPolicy | None = None) -> None:
        self.app = app
        self.policy = policy or GuardPolicy()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_guarded(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                for name, value in _RESPONSE_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        try:
            self._check(scope)
            scope[POLICY_SCOPE_KEY] = self.policy
            await self.app(scope, self._bounded(receive), send_guarded)
        except RequestRefused as refused:
            if started:
                raise
            await refusal(refused)(scope, receive, send_guarded)

    def _check(self, scope: Scope) -> None:
        headers = Headers(scope=scope)
        host = _single(headers, "host", HostNotAllowed) or ""
        if not self.policy.allows_host(host):
            raise HostNotAllowed(f"this server does not answer to the host {host!r}")
        method = scope["method"]
        if method not in _SAFE_METHODS or scope["path"] in self.policy.guarded_paths:
            self._check_origin(headers, host)
        if method in ("POST", "PUT", "PATCH", "DELETE"):
            _check_json(_single(headers, "content-type", UnsupportedMediaType) or "")
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.policy.max_body_bytes:
            raise _too_large(self.policy.max_body_bytes)

    def _check_origin(self, headers: Headers, host: str) -> None:
        origin = _single(headers, "origin", CrossOriginRefused)
        if origin is not None:
            own = origin.lower().partition("://")[2] == host.lower()
            if not own and origin.lower() not in self.policy.origins:
                raise CrossOriginRefused(f"requests from the origin {origin!r} are refused")
            return
        site = _single(headers, "sec-fetch-site", CrossOriginRefused)
        if site is not None and site not in _SAME_ORIGIN_FETCHES:
            raise CrossOriginRefused(f"requests from a {site} page are refused")

    def _bounded(self, receive: Receive) -> Receive:
        limit = self.policy.max_body_bytes
        received = 0

        async def receive_bounded() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _too_large(limit)
            return message

        return receive_bounded


def _single(headers: Headers, name: str, refused: type[RequestRefused]) -> str | None:
    """The value of the header `name` (None when absent); a request that repeats it is
    refused with `refused`, so no check reads one copy while the app reads another."""
    values = headers.getlist(name)
    if len(values) > 1:
        raise refused(f"a request with {len(values)} {name} headers is refused")
    return values[0] if values else None


def _check_json(content_type: str) -> None:
    media, _, parameters = content_type.partition(";")
    charset = parameters.partition("charset=")[2].strip().strip('"').lower()
    if media.strip().lower() != "application/json" or charset not in ("", "utf-8"):
        raise UnsupportedMediaType(
            f"the body must be application/json (UTF-8), not {content_type or 'untyped'!r}"
        )


def _too_large(limit: int) -> BodyTooLarge:
    return BodyTooLarge(f"the body is longer than this server's limit of {limit:,} bytes")
