"""The address table behind http_fetch, and how hosts that spell addresses are read."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from automata.tools import AddressPolicy, Category, categorize, parse_ip_literal


@pytest.mark.parametrize(
    ("address", "category"),
    [
        ("127.0.0.1", Category.LOOPBACK),
        ("127.255.255.254", Category.LOOPBACK),
        ("::1", Category.LOOPBACK),
        ("0.0.0.0", Category.UNSPECIFIED),
        ("::", Category.UNSPECIFIED),
        ("10.1.2.3", Category.PRIVATE),
        ("172.31.255.255", Category.PRIVATE),
        ("192.168.0.1", Category.PRIVATE),
        ("100.64.0.1", Category.PRIVATE),
        ("fd12:3456::1", Category.PRIVATE),
        ("169.254.10.10", Category.LINK_LOCAL),
        ("fe80::abcd", Category.LINK_LOCAL),
        ("169.254.169.254", Category.METADATA),
        ("169.254.170.2", Category.METADATA),
        ("100.100.100.200", Category.METADATA),
        ("192.0.0.192", Category.METADATA),
        ("fd00:ec2::254", Category.METADATA),
        ("239.1.1.1", Category.MULTICAST),
        ("ff0e::1", Category.MULTICAST),
        ("240.0.0.1", Category.RESERVED),
        ("198.18.0.1", Category.RESERVED),
        ("2001:db8::1", Category.RESERVED),
        ("::127.0.0.1", Category.RESERVED),  # deprecated IPv4-compatible form
        ("100::1", Category.RESERVED),  # outside global unicast
        ("::ffff:10.0.0.1", Category.PRIVATE),  # IPv4-mapped
        ("::ffff:169.254.169.254", Category.METADATA),
        ("64:ff9b::a00:1", Category.PRIVATE),  # NAT64 of 10.0.0.1
        ("2002:7f00:1::", Category.LOOPBACK),  # 6to4 of 127.0.0.1
    ],
)
def test_non_public_addresses_are_categorized(address: str, category: Category) -> None:
    assert categorize(ipaddress.ip_address(address)) is category


@pytest.mark.parametrize(
    "address",
    [
        "93.184.216.34",
        "8.8.8.8",
        "1.1.1.1",
        "2606:4700:4700::1111",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
    ],
)
def test_public_addresses_have_no_category(address: str) -> None:
    assert categorize(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0X7F.1", "127.0.0.1"),
        ("017700000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("[::1]", "::1"),
        ("::ffff:127.0.0.1", "::ffff:7f00:1"),
        ("0", "0.0.0.0"),
    ],
)
def test_every_spelling_of_an_address_is_read_as_that_address(host: str, address: str) -> None:
    assert parse_ip_literal(host) == ipaddress.ip_address(address)


@pytest.mark.parametrize(
    "host", ["example.com", "deadbeef", "cafe.be", "1.2.3.4.5", "1e3", "localhost"]
)
def test_names_are_not_read_as_addresses(host: str) -> None:
    assert parse_ip_literal(host) is None


def test_allow_private_opens_loopback_private_and_link_local_only() -> None:
    policy = AddressPolicy.build(allow_private=True)
    for address in ("127.0.0.1", "10.0.0.1", "169.254.3.3", "::1", "fd00::1"):
        assert policy.refusal("h", ipaddress.ip_address(address)) is None
    for address in ("169.254.169.254", "224.0.0.1", "0.0.0.0", "240.0.0.1"):
        assert policy.refusal("h", ipaddress.ip_address(address)) is not None


def test_an_allowed_network_covers_its_ipv4_mapped_form() -> None:
    policy = AddressPolicy.build(allowed_hosts=["127.0.0.1"])
    assert policy.refusal("h", ipaddress.ip_address("::ffff:127.0.0.1")) is None


def test_an_allowed_network_can_open_metadata_deliberately() -> None:
    policy = AddressPolicy.build(allowed_hosts=["169.254.169.254/32"])
    assert policy.refusal("h", ipaddress.ip_address("169.254.169.254")) is None


def test_allowed_host_names_match_case_and_trailing_dot_insensitively() -> None:
    policy = AddressPolicy.build(allowed_hosts=["Wiki.Test."])
    assert policy.trusts_host("wiki.test")
    assert policy.trusts_host("WIKI.TEST.")
    assert not policy.trusts_host("wiki.test.evil")


def test_a_single_string_for_allowed_hosts_is_rejected() -> None:
    with pytest.raises(TypeError):
        AddressPolicy.build(allowed_hosts="wiki.test")


ipv4 = st.integers(min_value=0, max_value=2**32 - 1).map(ipaddress.IPv4Address)


@given(ipv4)
def test_an_ipv4_mapped_address_is_judged_as_its_ipv4_address(
    address: ipaddress.IPv4Address,
) -> None:
    mapped = ipaddress.IPv6Address(f"::ffff:{address}")
    assert categorize(mapped) is categorize(address)


@given(ipv4)
def test_decimal_and_hex_spellings_read_as_the_same_address(
    address: ipaddress.IPv4Address,
) -> None:
    assert parse_ip_literal(str(int(address))) == address
    assert parse_ip_literal(hex(int(address))) == address
