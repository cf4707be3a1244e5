"""The address guard: no cited URL, redirect or DNS answer makes the checker connect to this
machine, a private network or a metadata service, unless the user's ``allow`` names it."""

from __future__ import annotations

import ipaddress

import pytest

from pytest_citations.online.addresses import AddressPolicy, is_host_name, literal_address, why_not_global

from .online_servers import send


@pytest.mark.parametrize(("address", "reason"), [
    ("127.0.0.1", "a loopback address"), ("127.255.0.9", "a loopback address"), ("::1", "a loopback address"),
    ("10.1.2.3", "a private address"), ("172.16.0.1", "a private address"), ("192.168.1.1", "a private address"),
    ("169.254.169.254", "a link-local address"), ("fe80::1", "a link-local address"),
    ("fe80::1%eth0", "a link-local address"), ("0.0.0.0", "an unspecified address"), ("::", "an unspecified address"),
    ("224.0.0.1", "a multicast address"), ("ff02::1", "a multicast address"),
    ("100.64.0.1", "a shared (carrier-grade NAT) address"), ("240.0.0.1", "a private address"),
    ("255.255.255.255", "a private address"), ("fc00::1", "a private address"), ("fd12:3456::1", "a private address"),
    ("::ffff:127.0.0.1", "a loopback address"), ("::ffff:10.0.0.1", "a private address"),
    ("2002:7f00:1::", "a loopback address"),  # 6to4 carrying 127.0.0.1
    ("2002:a9fe:a9fe::1", "a link-local address"),  # 6to4 carrying 169.254.169.254
    ("64:ff9b::a00:1", "a private address"),  # NAT64 carrying 10.0.0.1
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "a private address"),  # Teredo
    ("192.0.2.1", "a private address"),  # documentation
])
def test_addresses_that_are_not_global_are_named(address, reason):
    assert why_not_global(ipaddress.ip_address(address)) == reason


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700::6810:85e5", "::ffff:8.8.8.8",
                                     "2002:808:808::1"])
def test_global_addresses_pass(address):
    assert why_not_global(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(("host", "address"), [
    ("127.0.0.1", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("0x7F000001", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"), ("127.1", "127.0.0.1"), ("127.0.0.1.", "127.0.0.1"), ("[::1]", "::1"),
    ("::ffff:7f00:1", "::ffff:127.0.0.1"), ("%31%32%37.0.0.1", "127.0.0.1"), ("fe80::1%25eth0", "fe80::1%eth0"),
    ("example.org", None), ("deadbeef", None), ("1.example", None), ("localhost", None),
])
def test_every_spelling_of_an_address_is_read_as_one(host, address):
    found = literal_address(host)
    assert (None if found is None else found) == (None if address is None else ipaddress.ip_address(address))


@pytest.mark.parametrize(("host", "valid"), [("example.org", True), ("a_b.example.", True), ("xn--exmple-cua.de", True),
                                             ("a b", False), ("-bad.example", False), ("%41.example", False),
                                             ("a" * 64 + ".example", False), ("", False)])
def test_only_names_dns_could_hold_are_looked_up(host, valid):
    assert is_host_name(host) is valid


def test_allow_takes_names_addresses_and_networks():
    policy = AddressPolicy(("intranet.example.", "10.0.0.0/8", "127.0.0.1"))

    assert policy.refusal(ipaddress.ip_address("10.9.8.7")) is None
    assert policy.refusal(ipaddress.ip_address("::ffff:127.0.0.1")) is None
    assert policy.refusal(ipaddress.ip_address("192.168.0.1"), "Intranet.Example") is None
    assert policy.refusal(ipaddress.ip_address("192.168.0.1")) == "refused: 192.168.0.1 is a private address"
    assert policy.refusal_of_host("localhost") is None  # 127.0.0.1 is allowed: the name is looked up
    assert AddressPolicy().refusal_of_host("app.localhost") == "refused: app.localhost is a loopback address"


# -- against a server on 127.0.0.1 that counts connections -------------------------------------

LOOPBACK_SPELLINGS = ["127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.1", "127.1", "[::ffff:127.0.0.1]"]


@pytest.mark.parametrize("host", [*LOOPBACK_SPELLINGS, "localhost", "LOCALHOST.", "app.localhost", "[::1]"])
def test_a_loopback_host_is_refused_without_a_socket(serve, fetch, no_network, host):
    site = serve(lambda request, connection, _: send(connection, 200, b"secret"))

    answer = fetch.one(f"http://{host}:{site.port}/admin", allow=())

    assert answer.outcome == "refused-address" and answer.detail.startswith("refused: ")
    assert "loopback" in answer.detail and answer.requests == 0
    assert site.connections == 0 and no_network.connections == []


@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS)
def test_an_allowed_address_is_fetched_however_it_is_spelt(serve, fetch, host):
    site = serve(lambda request, connection, _: send(connection, 200, b"allowed"))

    answer = fetch.one(f"http://{host}:{site.port}/page", allow=("127.0.0.1",))

    assert (answer.outcome, answer.text) == ("ok", "allowed") and site.connections == 1


def test_a_name_that_resolves_to_a_private_address_is_refused_after_dns(fetch, no_network):
    no_network.serve_name("intranet.test", "10.0.0.5")

    answer = fetch.one("http://intranet.test/wiki")

    assert (answer.outcome, answer.detail) == ("refused-address", "refused: 10.0.0.5 is a private address")
    assert no_network.lookups == ["intranet.test"] and no_network.connections == []


def test_a_name_is_refused_when_any_of_its_addresses_is_not_global(serve, fetch, no_network):
    site = serve(lambda request, connection, _: send(connection, 200, b"secret"))
    no_network.serve_name("rebind.test", "93.184.216.34", "127.0.0.1")

    answer = fetch.one(f"http://rebind.test:{site.port}/", allow=())

    assert (answer.outcome, answer.detail) == ("refused-address", "refused: 127.0.0.1 is a loopback address")
    assert site.connections == 0 and no_network.connections == []


@pytest.mark.parametrize("allow", [("127.0.0.0/8",), ("loop.test",)], ids=["by network", "by name"])
def test_a_name_with_a_private_address_is_fetched_when_allowed(serve, fetch, no_network, allow):
    site = serve(lambda request, connection, _: send(connection, 200, request.headers["host"].encode()))
    no_network.serve_name("loop.test", "127.0.0.1")

    answer = fetch.one(f"http://loop.test:{site.port}/", allow=allow)

    assert (answer.outcome, answer.text) == ("ok", f"loop.test:{site.port}") and site.connections == 1


def test_connect_to_still_passes_the_guard(serve, fetch, no_network):
    site = serve(lambda request, connection, _: send(connection, 200, b"page"))

    answer = fetch.one("http://news.example/", allow=(), connect_to={("news.example", 80): ("127.0.0.1", site.port)})

    assert (answer.outcome, answer.detail) == ("refused-address", "refused: 127.0.0.1 is a loopback address")
    assert site.connections == 0 and no_network.connections == []


def test_the_metadata_service_is_refused(fetch, no_network):
    answer = fetch.one("http://169.254.169.254/latest/meta-data/iam/")

    assert (answer.outcome, answer.detail) == ("refused-address", "refused: 169.254.169.254 is a link-local address")
    assert no_network.connections == []


def test_proxies_from_the_environment_are_not_used(serve, fetch, monkeypatch):
    proxy = serve(lambda request, connection, _: send(connection, 200, b"from the proxy"))
    site = serve(lambda request, connection, _: send(connection, 200, b"from the site"))
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, proxy.url())
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)

    answer = fetch.one(site.url("/"))

    assert answer.text == "from the site" and proxy.connections == 0
