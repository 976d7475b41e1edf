"""Turning a URL's host into the IP addresses `http_fetch` will check and connect to.

A host that spells an IP address is read as one, including the legacy IPv4 forms
that the C library accepts and a resolver would hand straight back (`2130706433`,
`0x7f.1`, `0177.0.0.1`, `127.1`), so every spelling of an address is judged as the
address it is. Other names go to a `Resolver`: by default the system's
`getaddrinfo`, replaceable for tests or for a service with its own DNS.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import socket
import threading
from collections.abc import Awaitable, Callable, Sequence

from automata.tools._addresses import IPAddress

__all__ = ["Resolver", "parse_ip_literal", "system_resolver"]

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""An async function `(host, port) -> IP address strings`. It may raise `OSError`
(or return nothing) when the name does not resolve."""

_LEGACY_IPV4 = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}", re.IGNORECASE)


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address `host` spells, or None when it is a name to resolve."""
    text = host.strip("[]") if host.startswith("[") else host
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if _LEGACY_IPV4.fullmatch(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve with the operating system's resolver (`getaddrinfo`), in its order.

    The lookup runs on a thread of its own, not on the event loop's default executor,
    so lookups still answer when that executor is busy (hung sync tools, slow file
    work). A lookup abandoned by its caller ends when `getaddrinfo` returns (the
    system resolver's own timeouts bound it).
    """
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[list[str]] = loop.create_future()

    def settle(addresses: list[str] | None, error: BaseException | None) -> None:
        if answer.done():
            return  # the caller gave up (cancelled, timed out)
        if error is not None:
            answer.set_exception(error)
        else:
            answer.set_result(addresses or [])

    def lookup() -> None:
        addresses: list[str] | None = None
        error: Exception | None = None
        try:
            infos = socket.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
            )
        except Exception as exc:
            error = exc
        else:
            seen: dict[str, None] = {}
            for _family, _type, _proto, _canon, sockaddr in infos:
                seen.setdefault(str(sockaddr[0]), None)
            addresses = list(seen)
        with contextlib.suppress(RuntimeError):  # the loop closed in the meantime
            loop.call_soon_threadsafe(settle, addresses, error)

    threading.Thread(target=lookup, name=f"automata-dns-{host}", daemon=True).start()
    return await answer
