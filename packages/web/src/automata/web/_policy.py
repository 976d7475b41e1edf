"""What a guarded app accepts: the host names it answers to, the origins it takes
state-changing requests from, and the bounds of a request's JSON body."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "GuardPolicy",
]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
"""The names a server bound to loopback is reached by."""

MAX_BODY_BYTES = 1 << 20
"""The default bound of a request body: 1 MiB."""

MAX_JSON_DEPTH = 32
"""The default bound of a JSON body's nesting (objects and arrays inside each other)."""

_WILDCARD_ADDRESSES = frozenset({"0.0.0.0", "::", ""})


def _host_name(name: str) -> str:
    """`name` as a Host header's host part is compared: lower case, no brackets."""
    return name.strip().lower().removeprefix("[").removesuffix("]")


@dataclass(frozen=True)
class GuardPolicy:
    """What `WebGuard` lets through.

    - `hosts`: the names the Host header may carry (without the port, compared
      case-insensitively); anything else is refused, which defeats DNS rebinding.
    - `origins`: further origins (`scheme://host[:port]`) allowed to send
      state-changing requests, besides the server's own.
    - `max_body_bytes`: a body beyond this is refused with 413 before it is buffered.
    - `max_json_depth`: a JSON body nested deeper is refused with 400.
    - `guarded_paths`: paths whose GET starts work (as `/runs` of sse_server does), so
      their GETs are checked for their origin as POSTs are.
    """

    hosts: frozenset[str] = LOOPBACK_HOSTS
    origins: frozenset[str] = frozenset()
    max_body_bytes: int = MAX_BODY_BYTES
    max_json_depth: int = MAX_JSON_DEPTH
    guarded_paths: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if not self.hosts:
            raise ValueError("a GuardPolicy needs at least one host name")
        if self.max_body_bytes < 1 or self.max_json_depth < 1:
            raise ValueError("max_body_bytes and max_json_depth must be positive")
        object.__setattr__(self, "hosts", frozenset(_host_name(h) for h in self.hosts))
        object.__setattr__(self, "origins", frozenset(o.lower() for o in self.origins))

    @classmethod
    def for_bind(
        cls,
        host: str,
        *,
        allow_hosts: Iterable[str] = (),
        max_body_bytes: int = MAX_BODY_BYTES,
        guarded_paths: Iterable[str] = (),
    ) -> GuardPolicy:
        """The policy of a server bound to `host`: the loopback names, `host` itself
        unless it is a wildcard address (0.0.0.0, ::), and `allow_hosts` (the names a
        proxy or a LAN reaches it by)."""
        names = set(LOOPBACK_HOSTS) | {_host_name(n) for n in allow_hosts}
        if _host_name(host) not in _WILDCARD_ADDRESSES:
            names.add(_host_name(host))
        return cls(
            hosts=frozenset(names),
            max_body_bytes=max_body_bytes,
            guarded_paths=frozenset(guarded_paths),
        )

    def allows_host(self, header: str) -> bool:
        """Whether a Host header (`name` or `name:port`, `[v6]:port`) names this
        server."""
        name = header
        if header.startswith("["):
            name = header.partition("]")[0]
        elif header.count(":") == 1:
            name = header.partition(":")[0]
        return _host_name(name) in self.hosts
