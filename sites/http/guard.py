"""Private-address guard: which resolved IP addresses a fetch may connect to."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

from urllib3.util.connection import allowed_gai_family

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
AddrInfo = tuple[socket.AddressFamily, socket.SocketKind, int, str, tuple]

# 100.64.0.0/10 (carrier-grade NAT) is neither private nor global in `ipaddress`; it is still
# somebody's internal network.
_SHARED = ipaddress.ip_network("100.64.0.0/10")


class BlockedAddressError(Exception):
    """A host resolved to an address the policy does not let us connect to."""

    def __init__(self, host: str, address: str, reason: str) -> None:
        self.host = host
        self.address = address
        self.reason = reason
        where = f"Address {address}" if host == address else f"Address {address} of host {host}"
        super().__init__(f"{where} is {reason}; not fetched")


def blocked_reason(ip: IPAddress) -> str | None:
    """Return why an address is not public ("private", "loopback"...), or None when it is."""
    if isinstance(ip, ipaddress.IPv6Address):
        # ::ffff:10.0.0.1 connects to 10.0.0.1, and 2002:a00:1:: reaches it through a 6to4 relay:
        # judge the IPv4 address really reached.
        ip = ip.ipv4_mapped or ip.sixtofour or ip
    checks = (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        # Before "private": `ipaddress` lists 240.0.0.0/4 among the private networks too.
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
        ("shared (carrier-grade NAT)", ip in _SHARED),
        ("not globally routable", not ip.is_global),
    )
    return next((reason for reason, hit in checks if hit), None)


def parse_address(text: str) -> IPAddress:
    """Parse an IP address as getaddrinfo reports it, dropping any IPv6 zone ("%eth0")."""
    return ipaddress.ip_address(text.split("%", 1)[0])


class AddressGuard:
    """Resolve host names and refuse any that reach a non-public address outside the allowed networks."""

    def __init__(self, allowed_networks: Iterable[str] = ()) -> None:
        self.allowed = tuple(ipaddress.ip_network(cidr, strict=True) for cidr in allowed_networks)

    def _is_allowed(self, ip: IPAddress) -> bool:
        candidates = [ip]
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            candidates.append(ip.ipv4_mapped)
        return any(candidate in network for candidate in candidates for network in self.allowed)

    def check(self, host: str, address: str) -> None:
        """Raise BlockedAddressError unless `host` may be reached at `address`."""
        ip = parse_address(address)
        reason = blocked_reason(ip)
        if reason is not None and not self._is_allowed(ip):
            raise BlockedAddressError(host, address.split("%", 1)[0], reason)

    def resolve(self, host: str, port: int) -> list[AddrInfo]:
        """Resolve `host` and return its addresses, refusing if ANY of them is blocked.

        Checking every address, not just the one we would use, stops a name that mixes a public and
        a private address from reaching the private one on a later retry or another client.
        Raises socket.gaierror when the name does not resolve.
        """
        name = host.strip("[]")
        infos = socket.getaddrinfo(name, port, allowed_gai_family(), socket.SOCK_STREAM)
        for info in infos:
            self.check(name, info[4][0])
        return infos
