"""Which network addresses `http_fetch` may connect to.

By default only public unicast addresses are reachable. Everything a server can reach
but the internet cannot is refused: loopback, private and shared (carrier-grade NAT)
ranges, link-local, unique-local, multicast, unspecified, reserved and documentation
ranges, and the cloud instance-metadata endpoints. IPv6 addresses that carry an IPv4
address (IPv4-mapped, NAT64, 6to4) are judged by the IPv4 address they carry.

The table is explicit rather than delegated to `ipaddress.is_global`, whose meaning
has changed between Python releases.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["AddressPolicy", "Category", "IPAddress", "IPNetwork", "categorize"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class Category(StrEnum):
    """Why an address is not public. The value reads well in a sentence."""

    METADATA = "cloud metadata"
    UNSPECIFIED = "unspecified"
    LOOPBACK = "loopback"
    LINK_LOCAL = "link-local"
    PRIVATE = "private"
    MULTICAST = "multicast"
    RESERVED = "reserved"


# Instance-metadata services answer with credentials; they get their own category so
# that `allow_private` never unlocks them by accident.
_METADATA = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, Azure, GCP, OCI, DigitalOcean, OpenStack, ...
        "169.254.170.2",  # AWS ECS task metadata
        "169.254.170.23",  # AWS EKS pod identity
        "169.254.0.23",  # Tencent Cloud
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud (legacy)
        "fd00:ec2::254",  # AWS over IPv6
    )
)


def _table(*rows: tuple[str, Category]) -> tuple[tuple[IPNetwork, Category], ...]:
    return tuple((ipaddress.ip_network(net), category) for net, category in rows)


_IPV4 = _table(
    ("0.0.0.0/8", Category.UNSPECIFIED),
    ("127.0.0.0/8", Category.LOOPBACK),
    ("169.254.0.0/16", Category.LINK_LOCAL),
    ("10.0.0.0/8", Category.PRIVATE),
    ("172.16.0.0/12", Category.PRIVATE),
    ("192.168.0.0/16", Category.PRIVATE),
    ("100.64.0.0/10", Category.PRIVATE),  # shared address space (carrier-grade NAT)
    ("224.0.0.0/4", Category.MULTICAST),
    ("192.0.0.0/24", Category.RESERVED),  # IETF protocol assignments
    ("192.0.2.0/24", Category.RESERVED),  # documentation
    ("198.51.100.0/24", Category.RESERVED),  # documentation
    ("203.0.113.0/24", Category.RESERVED),  # documentation
    ("192.88.99.0/24", Category.RESERVED),  # 6to4 relay anycast
    ("198.18.0.0/15", Category.RESERVED),  # benchmarking
    ("240.0.0.0/4", Category.RESERVED),  # future use, and the broadcast address
)

_IPV6 = _table(
    ("::/128", Category.UNSPECIFIED),
    ("::1/128", Category.LOOPBACK),
    ("fe80::/10", Category.LINK_LOCAL),
    ("fc00::/7", Category.PRIVATE),  # unique local
    ("fec0::/10", Category.PRIVATE),  # site-local (deprecated)
    ("ff00::/8", Category.MULTICAST),
    ("2001::/23", Category.RESERVED),  # IETF protocol assignments, Teredo
    ("2001:db8::/32", Category.RESERVED),  # documentation
    ("3fff::/20", Category.RESERVED),  # documentation
)

_GLOBAL_UNICAST_V6 = ipaddress.ip_network("2000::/3")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for, where traffic reaches it."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if any(address in net for net in _NAT64):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    return None


def _describe(host: str, address: IPAddress) -> str:
    try:
        spelled = ipaddress.ip_address(host)
    except ValueError:
        spelled = None
    if spelled == address:
        return host
    if spelled is None and address.version == 4 and host[:1].isdigit():
        return f"{host} means {address}, which"  # a legacy IPv4 spelling
    return f"{host} resolves to {address}, which"


def categorize(address: IPAddress) -> Category | None:
    """The reason `address` is not public, or None for a public unicast address."""
    if address in _METADATA:
        return Category.METADATA
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id:
            address = ipaddress.IPv6Address(address.compressed.split("%", 1)[0])
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return categorize(embedded)
        for network, category in _IPV6:
            if address in network:
                return category
        # Outside 2000::/3 nothing is routable on the internet today.
        return None if address in _GLOBAL_UNICAST_V6 else Category.RESERVED
    for network, category in _IPV4:
        if address in network:
            return category
    return None


# What `allow_private` unlocks: addresses of the machine and its own networks.
# Metadata, multicast, unspecified and reserved ranges stay refused.
_PRIVATE_CATEGORIES = frozenset({Category.LOOPBACK, Category.LINK_LOCAL, Category.PRIVATE})


@dataclass(frozen=True, slots=True)
class AddressPolicy:
    """Decides whether a host name and one of its addresses may be connected to.

    `allow_private` opens loopback, private and link-local addresses (never the
    metadata endpoints). `allowed_hosts` names exceptions: a host name (exact, or
    `*.example.com` for its subdomains) whose addresses are all trusted, or an IP
    address or CIDR network that is reachable whatever its category.
    """

    allow_private: bool = False
    host_names: frozenset[str] = frozenset()
    host_suffixes: tuple[str, ...] = ()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def build(
        cls, *, allow_private: bool = False, allowed_hosts: Iterable[str] = ()
    ) -> AddressPolicy:
        """Parse `allowed_hosts` entries; raises ValueError for an empty entry."""
        if isinstance(allowed_hosts, str):
            raise TypeError("allowed_hosts must be a collection of strings, not one string")
        names: set[str] = set()
        suffixes: list[str] = []
        networks: list[IPNetwork] = []
        for entry in allowed_hosts:
            text = entry.strip().lower().rstrip(".")
            if not text:
                raise ValueError("allowed_hosts entries must not be empty")
            try:
                networks.append(ipaddress.ip_network(text.strip("[]"), strict=False))
                continue
            except ValueError:
                pass
            if text.startswith("*."):
                suffixes.append(text[1:])
            else:
                names.add(text)
        return cls(
            allow_private=allow_private,
            host_names=frozenset(names),
            host_suffixes=tuple(suffixes),
            networks=tuple(networks),
        )

    def trusts_host(self, host: str) -> bool:
        """Whether `host` was named in `allowed_hosts`, so its addresses go unchecked."""
        name = host.lower().rstrip(".")
        return name in self.host_names or any(name.endswith(s) for s in self.host_suffixes)

    def refusal(self, host: str, address: IPAddress) -> str | None:
        """Why connecting to `address` (an answer for `host`) is refused, or None."""
        if self.trusts_host(host) or self._listed(address):
            return None
        category = categorize(address)
        if category is None:
            return None
        if self.allow_private and category in _PRIVATE_CATEGORIES:
            return None
        return f"{_describe(host, address)} is not a public address ({category})"

    def _listed(self, address: IPAddress) -> bool:
        candidates: list[IPAddress] = [address]
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            candidates.append(address.ipv4_mapped)
        return any(
            a in net for a in candidates for net in self.networks if a.version == net.version
        )
