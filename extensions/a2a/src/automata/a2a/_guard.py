"""`LocalGuard`: the Host, Origin and body-size checks an A2A server runs before the
SDK's routes, so a page of another site, a DNS-rebinding page or an oversized body
never reaches the agent."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["LOOPBACK_HOSTS", "MAX_BODY_BYTES", "GuardPolicy", "LocalGuard"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
"""The names a server bound to loopback is reached by."""

MAX_BODY_BYTES = 1 << 20
"""The default bound of a request body: 1 MiB."""

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_SAME_ORIGIN_FETCHES = frozenset({"same-origin", "none"})


def _host_name(name: str) -> str:
    return name.strip().lower().removeprefix("[").removesuffix("]")


@dataclass(frozen=True, slots=True)
class GuardPolicy:
    """What `LocalGuard` lets through: `hosts`, the names the Host header may carry
    (port left out, case-insensitive; the loopback names by default); `origins`,
    further origins (`scheme://host[:port]`) allowed to post besides the server's own;
    `max_body_bytes`, the longest request body read. Raises `ValueError` for no host
    or a bound below 1."""

    hosts: frozenset[str] = LOOPBACK_HOSTS
    origins: frozenset[str] = frozenset()
    max_body_bytes: int = MAX_BODY_BYTES

    def __post_init__(self) -> None:
        if not self.hosts:
            raise ValueError("a GuardPolicy needs at least one host name")
        if self.max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be positive, got {self.max_body_bytes}")
        object.__setattr__(self, "hosts", frozenset(_host_name(h) for h in self.hosts))
        object.__setattr__(self, "origins", frozenset(o.lower() for o in self.origins))

    @classmethod
    def allowing(
        cls, hosts: Iterable[str] = (), *, max_body_bytes: int = MAX_BODY_BYTES
    ) -> GuardPolicy:
        """The loopback names plus `hosts` (the names a proxy or a LAN reaches the
        server by)."""
        names = LOOPBACK_HOSTS | {_host_name(name) for name in hosts}
        return cls(hosts=frozenset(names), max_body_bytes=max_body_bytes)

    def allows_host(self, header: str) -> bool:
        """Whether a Host header (`name`, `name:port` or `[v6]:port`) names this server."""
        name = header
        if header.startswith("["):
            name = header.partition("]")[0]
        elif header.count(":") == 1:
            name = header.partition(":")[0]
        return _host_name(name) in self.hosts


class _Refused(Exception):
    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error


class LocalGuard:
    """Checks every HTTP request against `policy` before `app` sees it, in this order,
    each refusal answered with JSON `{"error", "message"}`: a Host header that is not
    one of `policy.hosts` gets 400 `HostNotAllowed`; a request other than GET, HEAD and
    OPTIONS whose `Origin` is neither the server's own nor one of `policy.origins` (or,
    without `Origin`, whose `Sec-Fetch-Site` is cross-site) gets 403
    `CrossOriginRefused` (a client that is no browser sends neither and passes); a body
    longer than `policy.max_body_bytes` gets 413 `BodyTooLarge`, at once when its
    `Content-Length` says so, else as soon as the bytes read pass the bound."""

    def __init__(self, app: ASGIApp, policy: GuardPolicy | None = None) -> None:
        self.app = app
        self.policy = policy or GuardPolicy()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            self._check(Headers(scope=scope), scope["method"])
            await self.app(scope, self._bounded(receive), send_tracked)
        except _Refused as refused:
            if started:
                raise
            await _answer(refused, send)

    def _check(self, headers: Headers, method: str) -> None:
        host = headers.get("host", "")
        if len(headers.getlist("host")) > 1 or not self.policy.allows_host(host):
            raise _Refused(400, "HostNotAllowed", f"this server does not answer to {host!r}")
        if method not in _SAFE_METHODS:
            self._check_origin(headers, host)
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.policy.max_body_bytes:
            raise self._too_large()

    def _check_origin(self, headers: Headers, host: str) -> None:
        origins = headers.getlist("origin")
        if len(origins) > 1:
            raise _Refused(403, "CrossOriginRefused", "a request with two Origin headers")
        if origins:
            origin = origins[0].lower()
            if origin.partition("://")[2] != host.lower() and origin not in self.policy.origins:
                raise _Refused(
                    403, "CrossOriginRefused", f"requests from {origins[0]!r} are refused"
                )
            return
        site = headers.get("sec-fetch-site")
        if site is not None and site not in _SAME_ORIGIN_FETCHES:
            raise _Refused(403, "CrossOriginRefused", f"requests from a {site} page are refused")

    def _bounded(self, receive: Receive) -> Receive:
        received = 0

        async def receive_bounded() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.policy.max_body_bytes:
                    raise self._too_large()
            return message

        return receive_bounded

    def _too_large(self) -> _Refused:
        limit = self.policy.max_body_bytes
        return _Refused(413, "BodyTooLarge", f"the body is longer than {limit:,} bytes")


async def _answer(refused: _Refused, send: Send) -> None:
    body = json.dumps({"error": refused.error, "message": str(refused)}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": refused.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
