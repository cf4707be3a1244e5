"""Fixtures of the online check's tests (helpers in online_servers.py). ``no_network`` overrides
the suite's own for the tests in this folder: they may reach servers on this machine, nothing else.

(This folder is a package so that this conftest does not take the name ``conftest`` that other
tests import the suite's conftest by.)"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator

import pytest

from .online_servers import Fetcher, LoopbackNetwork, RawServer, Request


@pytest.fixture(autouse=True)
def no_network(monkeypatch) -> Iterator[LoopbackNetwork]:
    """Overrides the suite's ``no_network`` for the online tests: sockets may connect to
    loopback addresses only; see :class:`LoopbackNetwork`."""
    network = LoopbackNetwork()
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def connect(sock, address):
        network.check_connect(address)
        return real_connect(sock, address)

    def connect_ex(sock, address):
        network.check_connect(address)
        return real_connect_ex(sock, address)

    def getaddrinfo(host, port, *args, **kwargs):
        return network.lookup(real_getaddrinfo, host, port, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield network
    assert not network.violations, f"the test reached beyond this machine: {network.violations}"


@pytest.fixture
def serve() -> Iterator[Callable[..., RawServer]]:
    """``serve(respond)``: a :class:`RawServer` for this test, stopped at its end."""
    servers: list[RawServer] = []

    def start(respond: Callable[[Request, socket.socket, RawServer], None], ssl_context=None) -> RawServer:
        server = RawServer(respond, ssl_context)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def free_port() -> int:
    """A port on 127.0.0.1 where nothing listens."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


@pytest.fixture
def fetch(tmp_path) -> Fetcher:
    """``fetch(*urls, **settings)``: fetch_all with :data:`TEST_SETTINGS` changed by ``settings``
    (each URL wants its text); ``cache=True`` uses a cache folder of this test's."""
    return Fetcher(tmp_path / "cache")


@pytest.fixture
def server(httpserver_ipv4):
    """pytest-httpserver on 127.0.0.1."""
    return httpserver_ipv4
