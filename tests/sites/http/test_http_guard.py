"""The private-address guard refuses non-public addresses after DNS, on every hop."""

from __future__ import annotations

import ipaddress

import pytest
from pytest_httpserver import HTTPServer

from sites.http import ErrorKind, Fetcher, FetchPolicy, Hop
from sites.http.guard import AddressGuard, BlockedAddressError, blocked_reason


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("127.0.0.1", "loopback"),
        ("169.254.169.254", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.251", "multicast"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "shared (carrier-grade NAT)"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("ff02::1", "multicast"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.1.2.3", "private"),
        ("2002:a00:1::1", "private"),
        ("2002:7f00:1::", "loopback"),
        ("93.184.215.14", None),
        ("2606:4700:4700::1111", None),
    ],
)
def test_addresses_are_judged_public_or_not(address, reason):
    assert blocked_reason(ipaddress.ip_address(address)) == reason


def test_allowed_networks_open_a_private_range_and_only_that_range():
    guard = AddressGuard(["10.0.0.0/8"])
    guard.check("intranet.example", "10.9.8.7")
    with pytest.raises(
        BlockedAddressError, match=r"^Address 192\.168\.0\.1 of host intranet\.example is private"
    ):
        guard.check("intranet.example", "192.168.0.1")


def test_allowed_ipv4_network_covers_its_ipv4_mapped_ipv6_form():
    AddressGuard(["127.0.0.0/8"]).check("h", "::ffff:127.0.0.1")


@pytest.mark.parametrize("cidr", ["10.0.0.5/8", "not-a-network", "300.0.0.0/8"])
def test_malformed_allowed_network_is_rejected_when_the_policy_is_built(cidr):
    with pytest.raises(ValueError, match="allowed_networks"):
        FetchPolicy(allowed_networks=(cidr,))


def test_literal_loopback_url_is_blocked_without_reaching_the_server(httpserver_ipv4: HTTPServer):
    httpserver_ipv4.expect_request("/").respond_with_data("secret")
    with Fetcher(FetchPolicy()) as fetcher:
        result = fetcher.fetch(f"http://127.0.0.1:{httpserver_ipv4.port}/")
    assert result.error_kind == ErrorKind.BLOCKED_ADDRESS
    assert result.error == "Address 127.0.0.1 is loopback; not fetched"
    assert (result.status, result.body) == (None, b"")
    assert httpserver_ipv4.log == []


def test_localhost_is_blocked_after_dns_resolution(httpserver_ipv4: HTTPServer):
    httpserver_ipv4.expect_request("/").respond_with_data("secret")
    with Fetcher(FetchPolicy()) as fetcher:
        result = fetcher.fetch(f"http://localhost:{httpserver_ipv4.port}/")
    assert result.error_kind == ErrorKind.BLOCKED_ADDRESS
    assert result.error == "Address 127.0.0.1 of host localhost is loopback; not fetched"
    assert httpserver_ipv4.log == []


def test_ipv6_loopback_is_blocked():
    with Fetcher(FetchPolicy()) as fetcher:
        result = fetcher.fetch("http://[::1]:8080/admin")
    assert result.error_kind == ErrorKind.BLOCKED_ADDRESS
    assert result.error == "Address ::1 is loopback; not fetched"


def test_ipv4_mapped_ipv6_literal_is_blocked_as_the_ipv4_address_it_reaches():
    with Fetcher(FetchPolicy()) as fetcher:
        result = fetcher.fetch("http://[::ffff:169.254.169.254]/latest/meta-data/")
    assert result.error_kind == ErrorKind.BLOCKED_ADDRESS
    assert "is link-local" in result.error


def test_allowed_network_lets_the_fetch_through(httpserver_ipv4: HTTPServer):
    httpserver_ipv4.expect_request("/").respond_with_data("local page")
    with Fetcher(FetchPolicy(allowed_networks=("127.0.0.1/32",))) as fetcher:
        result = fetcher.fetch(f"http://127.0.0.1:{httpserver_ipv4.port}/")
    assert (result.error_kind, result.body) == ("", b"local page")


def test_redirect_to_a_private_address_is_blocked_at_that_hop(httpserver_ipv4: HTTPServer):
    start = f"http://127.0.0.1:{httpserver_ipv4.port}/start"
    inside = f"http://127.0.0.2:{httpserver_ipv4.port}/next"
    httpserver_ipv4.expect_request("/start").respond_with_data("", status=302, headers={"Location": inside})
    with Fetcher(FetchPolicy(allowed_networks=("127.0.0.1/32",))) as fetcher:
        result = fetcher.fetch(start)
    assert result.error_kind == ErrorKind.BLOCKED_ADDRESS
    assert result.error == "Address 127.0.0.2 is loopback; not fetched"
    assert result.redirects == [Hop(url=start, status=302, location=inside)]
    assert (result.final_url, result.status) == (inside, None)


def test_environment_proxy_settings_are_ignored(httpserver_ipv4: HTTPServer, monkeypatch):
    # A proxy would make the connection for us and the guard would only ever see the proxy.
    monkeypatch.setenv("HTTP_PROXY", "http://10.255.255.1:3128")
    monkeypatch.setenv("http_proxy", "http://10.255.255.1:3128")
    httpserver_ipv4.expect_request("/").respond_with_data("direct")
    with Fetcher(FetchPolicy(allowed_networks=("127.0.0.1/32",), timeout=2)) as fetcher:
        result = fetcher.fetch(f"http://127.0.0.1:{httpserver_ipv4.port}/")
    assert result.body == b"direct"
