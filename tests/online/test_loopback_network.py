"""The online tests' own ``no_network``: what it lets through, and that it catches the rest."""

from __future__ import annotations

import socket

import pytest

from .online_servers import LoopbackNetwork, send


def test_a_connection_beyond_this_machine_is_caught():
    network = LoopbackNetwork()

    with pytest.raises(AssertionError):
        network.check_connect(("93.184.216.34", 80))
    network.check_connect(("127.0.0.1", 8080))
    network.check_connect(("::ffff:127.0.0.1", 8080, 0, 0))

    assert network.violations == ["connect to 93.184.216.34:80"]
    assert network.connections == [("127.0.0.1", 8080), ("::ffff:127.0.0.1", 8080)]


def test_a_lookup_beyond_this_machine_is_caught():
    network = LoopbackNetwork()
    network.serve_name("served.test", "127.0.0.1")

    def real(*args, **kwargs):
        raise AssertionError("the real resolver was asked")

    with pytest.raises(AssertionError, match="look up"):
        network.lookup(real, "example.org", 80)
    with pytest.raises(socket.gaierror):
        network.lookup(real, "nowhere.invalid", 80)
    assert network.lookup(real, "served.test", 80)[0][4] == ("127.0.0.1", 80)
    assert network.violations == ["lookup of example.org"]


def test_loopback_is_reachable_while_the_fixture_is_on(serve, no_network):
    site = serve(lambda request, connection, _: send(connection, 200, b"here"))

    with socket.create_connection(("127.0.0.1", site.port), timeout=5) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert connection.recv(100).startswith(b"HTTP/1.1 200")

    assert no_network.connections == [("127.0.0.1", site.port)]
