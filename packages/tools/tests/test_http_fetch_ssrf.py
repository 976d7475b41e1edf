"""http_fetch refuses to reach inward: every spelling, every DNS answer, every redirect.

The refusals are checked against a live server on loopback: each test asserts that the
server never saw the request, so a refusal cannot be confused with a failed connection.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from automata.core import Tool, ToolResult
from automata.tools import http_fetch

from .conftest import Invoke, LocalServer


class FixedResolver:
    """A resolver that answers from a table and records every question in `asked`."""

    def __init__(self, answers: Mapping[str, Sequence[str]]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.asked.append(host)
        return self.answers[host]


def assert_refused(result: ToolResult, *fragments: str) -> None:
    assert result.is_error
    text = result.as_text()
    assert text.startswith("refused:"), text
    for fragment in fragments:
        assert fragment in text, text


async def test_the_loopback_server_answers_once_loopback_is_allowed(
    server: LocalServer, invoke: Invoke
) -> None:
    # The control for every refusal below: the same server answers once allowed.
    server.respond("/secret", "internal data")
    result = await invoke(http_fetch(allow_private=True), url=server.url("/secret"))
    assert "internal data" in result.as_text()


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "127.1",  # shortened dotted form
        "2130706433",  # decimal
        "0x7f000001",  # hexadecimal
        "0x7f.0.0.1",
        "017700000001",  # octal
        "[::ffff:127.0.0.1]",  # IPv4-mapped IPv6
        "[::ffff:7f00:1]",
        "0.0.0.0",  # reaches the local host on Linux
        "0",
    ],
)
async def test_loopback_spellings_are_refused_by_default(
    server: LocalServer, invoke: Invoke, host: str
) -> None:
    server.respond("/secret", "internal data")
    result = await invoke(http_fetch(), url=server.url("/secret", host=host))
    assert_refused(result, "not a public address")
    assert server.requests == []


async def test_dotted_octal_loopback_is_rejected_as_an_invalid_url(
    server: LocalServer, invoke: Invoke
) -> None:
    # The URL parser refuses this ambiguous spelling outright, before any lookup.
    server.respond("/secret", "internal data")
    result = await invoke(http_fetch(), url=server.url("/secret", host="0177.0.0.1"))
    assert result.is_error
    assert "Invalid IPv4 address" in result.as_text()
    assert server.requests == []


@pytest.mark.parametrize(
    ("url", "category"),
    [
        ("http://[::1]/", "loopback"),
        ("http://[::]/", "unspecified"),
        ("http://localhost/", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://[fd00:ec2::254]/latest/meta-data/", "cloud metadata"),
        ("http://100.100.100.200/latest/meta-data/", "cloud metadata"),
        ("http://10.0.0.1/", "private"),
        ("http://172.16.5.4/", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://100.64.0.1/", "private"),
        ("http://[fc00::1]/", "private"),
        ("http://169.254.1.1/", "link-local"),
        ("http://[fe80::1]/", "link-local"),
        ("http://224.0.0.1/", "multicast"),
        ("http://[ff02::1]/", "multicast"),
        ("http://255.255.255.255/", "reserved"),
        ("http://192.0.2.1/", "reserved"),
        ("http://[64:ff9b::7f00:1]/", "loopback"),  # NAT64 wrapping of 127.0.0.1
        ("http://[2002:a9fe:a9fe::]/", "cloud metadata"),  # 6to4 wrapping of metadata
    ],
)
async def test_non_public_addresses_are_refused_by_default(
    invoke: Invoke, url: str, category: str
) -> None:
    result = await invoke(http_fetch(), url=url)
    assert_refused(result, f"({category})")


async def test_allow_private_still_refuses_cloud_metadata(invoke: Invoke) -> None:
    result = await invoke(http_fetch(allow_private=True), url="http://169.254.169.254/")
    assert_refused(result, "(cloud metadata)")


async def test_dns_answer_pointing_to_loopback_is_refused(
    server: LocalServer, invoke: Invoke
) -> None:
    resolver = FixedResolver({"innocent.test": ["127.0.0.1"]})
    server.respond("/", "internal data")
    result = await invoke(http_fetch(resolver=resolver), url=f"http://innocent.test:{server.port}/")
    assert_refused(result, "innocent.test resolves to 127.0.0.1", "(loopback)")
    assert server.requests == []


async def test_dns_answer_pointing_to_a_private_network_is_refused(invoke: Invoke) -> None:
    resolver = FixedResolver({"intranet.test": ["10.20.30.40"]})
    result = await invoke(http_fetch(resolver=resolver), url="http://intranet.test/")
    assert_refused(result, "intranet.test resolves to 10.20.30.40", "(private)")


async def test_dns_answer_with_a_mapped_ipv6_loopback_is_refused(invoke: Invoke) -> None:
    resolver = FixedResolver({"mapped.test": ["::ffff:127.0.0.1"]})
    result = await invoke(http_fetch(resolver=resolver), url="http://mapped.test/")
    assert_refused(result, "(loopback)")


async def test_one_inward_answer_among_public_ones_is_refused(invoke: Invoke) -> None:
    resolver = FixedResolver({"mixed.test": ["93.184.216.34", "127.0.0.1"]})
    result = await invoke(http_fetch(resolver=resolver), url="http://mixed.test/")
    assert_refused(result, "127.0.0.1")


async def test_the_connection_goes_to_the_checked_address_not_a_second_lookup(
    server: LocalServer, invoke: Invoke
) -> None:
    # rebind.test exists only in this resolver; a second lookup by the HTTP stack
    # (the window DNS rebinding uses) would fail, so success shows the pinned address
    # was used, and the resolver was asked exactly once.
    resolver = FixedResolver({"rebind.test": ["127.0.0.1"]})
    server.respond("/", "pinned")
    fetch = http_fetch(resolver=resolver, allowed_hosts=["rebind.test"])
    result = await invoke(fetch, url=f"http://rebind.test:{server.port}/")
    assert "pinned" in result.as_text()
    assert resolver.asked == ["rebind.test"]
    assert server.requests[0].headers["host"] == f"rebind.test:{server.port}"


async def test_allowed_hosts_trusts_only_the_named_host(
    server: LocalServer, invoke: Invoke
) -> None:
    resolver = FixedResolver({"wiki.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    server.respond("/", "wiki")
    fetch = http_fetch(resolver=resolver, allowed_hosts=["wiki.test"])
    assert "wiki" in (await invoke(fetch, url=f"http://wiki.test:{server.port}/")).as_text()
    assert_refused(await invoke(fetch, url=f"http://other.test:{server.port}/"), "(loopback)")


async def test_allowed_hosts_wildcard_covers_subdomains_only(
    invoke: Invoke, server: LocalServer
) -> None:
    resolver = FixedResolver({"a.corp.test": ["127.0.0.1"], "corp.test.evil": ["127.0.0.1"]})
    server.respond("/", "corp")
    fetch = http_fetch(resolver=resolver, allowed_hosts=["*.corp.test"])
    assert "corp" in (await invoke(fetch, url=f"http://a.corp.test:{server.port}/")).as_text()
    assert_refused(await invoke(fetch, url=f"http://corp.test.evil:{server.port}/"))


async def test_allowed_hosts_accepts_a_network(server: LocalServer, invoke: Invoke) -> None:
    server.respond("/", "by network")
    fetch = http_fetch(allowed_hosts=["127.0.0.0/8"])
    assert "by network" in (await invoke(fetch, url=server.url("/"))).as_text()


# Redirects: public.test is the one trusted name (it is the test server); every
# redirect target must be checked again on its own.


@pytest.fixture
def public_fetch() -> Tool:
    resolver = FixedResolver({"public.test": ["127.0.0.1"], "internal.test": ["10.0.0.5"]})
    return http_fetch(resolver=resolver, allowed_hosts=["public.test"])


def public_url(server: LocalServer, path: str) -> str:
    return f"http://public.test:{server.port}{path}"


async def test_redirect_to_loopback_is_refused(
    server: LocalServer, invoke: Invoke, public_fetch: Tool
) -> None:
    server.redirect("/go", server.url("/secret"))
    server.respond("/secret", "internal data")
    result = await invoke(public_fetch, url=public_url(server, "/go"))
    assert_refused(result, "(loopback)", f"redirected from {public_url(server, '/go')}")
    assert server.paths() == ["/go"]


async def test_redirect_to_decimal_loopback_is_refused(
    server: LocalServer, invoke: Invoke, public_fetch: Tool
) -> None:
    server.redirect("/go", server.url("/secret", host="2130706433"))
    server.respond("/secret", "internal data")
    assert_refused(await invoke(public_fetch, url=public_url(server, "/go")), "(loopback)")
    assert server.paths() == ["/go"]


async def test_redirect_to_ipv6_mapped_loopback_is_refused(
    server: LocalServer, invoke: Invoke, public_fetch: Tool
) -> None:
    server.redirect("/go", server.url("/secret", host="[::ffff:127.0.0.1]"))
    server.respond("/secret", "internal data")
    assert_refused(await invoke(public_fetch, url=public_url(server, "/go")), "(loopback)")
    assert server.paths() == ["/go"]


async def test_redirect_to_cloud_metadata_is_refused(
    server: LocalServer, invoke: Invoke, public_fetch: Tool
) -> None:
    server.redirect("/go", "http://169.254.169.254/latest/meta-data/iam/")
    assert_refused(await invoke(public_fetch, url=public_url(server, "/go")), "(cloud metadata)")


async def test_redirect_to_a_name_resolving_inward_is_refused(
    server: LocalServer, invoke: Invoke, public_fetch: Tool
) -> None:
    server.redirect("/go", "http://internal.test/admin")
    result = await invoke(public_fetch, url=public_url(server, "/go"))
    assert_refused(result, "internal.test resolves to 10.0.0.5")


async def test_redirect_chain_turning_inward_late_is_refused(
    server: LocalServer, invoke: Invoke, public_fetch: Tool
) -> None:
    server.redirect("/a", "/b")
    server.redirect("/b", "/c", status=307)
    server.redirect("/c", server.url("/secret"), status=308)
    assert_refused(await invoke(public_fetch, url=public_url(server, "/a")), "(loopback)")
    assert server.paths() == ["/a", "/b", "/c"]


async def test_redirect_to_a_file_url_is_refused(
    server: LocalServer, invoke: Invoke, public_fetch: Tool
) -> None:
    server.redirect("/go", "file:///etc/passwd")
    result = await invoke(public_fetch, url=public_url(server, "/go"))
    assert_refused(result, "only http and https", "file:")


async def test_redirect_within_the_trusted_host_is_followed(
    server: LocalServer, invoke: Invoke, public_fetch: Tool
) -> None:
    server.redirect("/go", public_url(server, "/landing"))
    server.respond("/landing", "welcome")
    assert "welcome" in (await invoke(public_fetch, url=public_url(server, "/go"))).as_text()


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("file:///etc/passwd", "file:"),
        ("ftp://example.com/", "ftp:"),
        ("gopher://example.com/", "gopher:"),
        ("/relative/path", "a relative URL"),
    ],
)
async def test_other_schemes_are_refused(invoke: Invoke, url: str, fragment: str) -> None:
    assert_refused(await invoke(http_fetch(), url=url), "only http and https", fragment)


async def test_credentials_in_the_url_are_refused(invoke: Invoke) -> None:
    assert_refused(await invoke(http_fetch(), url="http://user:pw@example.com/"), "credentials")
