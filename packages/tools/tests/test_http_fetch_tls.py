"""https while connecting to the checked address: the name still drives SNI, the
certificate check and the Host header."""

from __future__ import annotations

import ssl
from collections.abc import Sequence

from automata.core import Tool
from automata.tools import http_fetch

from .conftest import Certificates, Invoke, LocalServer


def secure_fetch(certificates: Certificates, names: Sequence[str] = ("secure.test",)) -> Tool:
    async def resolve(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    trust = ssl.create_default_context(cafile=str(certificates.ca))
    return http_fetch(resolver=resolve, allowed_hosts=list(names), ssl_context=trust)


async def test_https_sends_the_host_name_as_sni_and_host_header(
    tls_server: LocalServer, certificates: Certificates, invoke: Invoke
) -> None:
    tls_server.respond("/", "over tls")
    url = f"https://secure.test:{tls_server.port}/"
    result = await invoke(secure_fetch(certificates), url=url)
    assert "over tls" in result.as_text()
    assert tls_server.server_names == ["secure.test"]
    assert tls_server.requests[0].headers["host"] == f"secure.test:{tls_server.port}"


async def test_https_certificate_is_verified_against_the_host_name(
    tls_server: LocalServer, certificates: Certificates, invoke: Invoke
) -> None:
    # The same server and address under a name its certificate does not cover.
    tls_server.respond("/", "over tls")
    fetch = secure_fetch(certificates, names=("impostor.test",))
    result = await invoke(fetch, url=f"https://impostor.test:{tls_server.port}/")
    assert result.is_error
    assert "CERTIFICATE_VERIFY_FAILED" in result.as_text()
    assert tls_server.requests == []


async def test_https_with_an_untrusted_issuer_fails(
    tls_server: LocalServer, invoke: Invoke
) -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    fetch = http_fetch(resolver=resolve, allowed_hosts=["secure.test"])  # default trust store
    result = await invoke(fetch, url=f"https://secure.test:{tls_server.port}/")
    assert result.is_error
    assert "CERTIFICATE_VERIFY_FAILED" in result.as_text()
