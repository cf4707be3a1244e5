"""Helpers of the online check's tests: a network that reaches this machine only, raw servers on
127.0.0.1 for behaviour pytest-httpserver cannot show, and a ``fetch`` with settings fit for tests
(short timeouts, no pause between requests, robots.txt off unless a test turns it on)."""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_citations.online.fetch import Answer, FetchSettings, Wanted, fetch_all
from pytest_citations.online.page_text import PageText


def _is_loopback(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def _is_localhost_name(host: str) -> bool:
    name = host.rstrip(".").lower()
    return name == "localhost" or name.endswith(".localhost")


@dataclass
class LoopbackNetwork:
    """What the tests under tests/online/ may reach: loopback addresses only. Every connection is
    recorded; any other is a violation that fails the test (it is also refused, but the fetch
    layer turns exceptions into answers, so the test's end checks the record). Names: localhost
    ones are looked up for real (no DNS traffic), names under ``.offline.invalid`` cannot be looked
    up for now (as without a reachable DNS), other names under ``.invalid`` do not exist (RFC
    6761), names a test gives to :meth:`serve_name` get its addresses; any other lookup is a
    violation."""

    violations: list[str] = field(default_factory=list)
    connections: list[tuple[str, int]] = field(default_factory=list)
    lookups: list[str] = field(default_factory=list)
    names: dict[str, list[str]] = field(default_factory=dict)
    delays: dict[str, float] = field(default_factory=dict)  # name -> seconds its lookup takes

    def serve_name(self, name: str, *addresses: str, delay: float = 0.0) -> None:
        self.names[name.lower()] = list(addresses)
        self.delays[name.lower()] = delay

    def check_connect(self, address: object) -> None:
        if not isinstance(address, tuple):  # (a Unix socket)
            return
        host, port = str(address[0]), int(address[1])
        if not _is_loopback(host):
            self.violations.append(f"connect to {host}:{port}")
            raise AssertionError(f"a test tried to reach {host}:{port}, which is not on this machine")
        self.connections.append((host, port))

    def lookup(self, real: Callable, host: object, port: object, *args: object, **kwargs: object) -> list:
        name = host.decode() if isinstance(host, bytes) else host
        if name is None or _is_loopback(str(name)) or _is_localhost_name(str(name)):
            return real(host, port, *args, **kwargs)
        self.lookups.append(str(name))
        text = str(name).rstrip(".").lower()
        if text.endswith(".offline.invalid"):  # as on a machine that cannot reach its DNS
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        if text.endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        if text in self.names:
            time.sleep(self.delays.get(text, 0.0))
            return [_address_info(address, port) for address in self.names[text]]
        try:
            ipaddress.ip_address(text)
        except ValueError:
            self.violations.append(f"lookup of {name}")
            raise AssertionError(f"a test tried to look up {name!r} in the DNS") from None
        return real(host, port, *args, **kwargs)  # a numeric address: no DNS traffic


def _address_info(address: str, port: object) -> tuple:
    number = int(port) if port is not None else 0
    if ":" in address:
        return (socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, number, 0, 0))
    return (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, number))


# -- raw servers -------------------------------------------------------------------------------


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # names in lower case


class RawServer:
    """A TCP server on 127.0.0.1 that reads one request per connection and lets ``respond``
    write whatever bytes it likes; it counts connections and the requests in flight at once."""

    def __init__(self, respond: Callable[[Request, socket.socket, RawServer], None], ssl_context=None) -> None:
        self._respond = respond
        self._ssl = ssl_context
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self._listener.settimeout(0.05)
        self.port = self._listener.getsockname()[1]
        self.connections = 0
        self.requests: list[Request] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def paths(self) -> list[str]:
        with self._lock:
            return [request.path for request in self.requests]

    def pause(self, seconds: float) -> bool:
        """Sleep unless the server stops first; whether it is still running."""
        return not self.stopping.wait(seconds)

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self.connections += 1
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        try:
            if self._ssl is not None:
                connection = self._ssl.wrap_socket(connection, server_side=True)
            connection.settimeout(10)
            request = _read_request(connection)
            if request is None:
                return
            with self._lock:
                self.requests.append(request)
                self.in_flight += 1
                self.most_in_flight = max(self.most_in_flight, self.in_flight)
            try:
                self._respond(request, connection, self)
            finally:
                with self._lock:
                    self.in_flight -= 1
        except OSError:
            pass
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopping.set()
        self._listener.close()
        self._thread.join(2)


def _read_request(connection: socket.socket) -> Request | None:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 1 << 16:
        chunk = connection.recv(4096)
        if not chunk:
            return None
        data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    request_line, *lines = head.split("\r\n")
    method, path, _ = request_line.split(" ", 2)
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return Request(method, path, headers)


def send(connection: socket.socket, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
    """Write one whole response (and say the connection closes after it)."""
    lines = [f"HTTP/1.1 {status} Status", f"Content-Length: {len(body)}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)


# -- fetching ----------------------------------------------------------------------------------


def text_page(body: bytes, content_type: str | None, wants_text: bool) -> PageText:
    """A page hook for tests: the body as text when it is wanted; a wall when the body names one."""
    wall = "test-paywall" if b"<paywall>" in body else None
    return PageText(body.decode("utf-8", "replace") if wants_text else None, wall)


TEST_SETTINGS = FetchSettings(host_interval=0.0, timeout=2.0, retries=0, robots=False, allow=("127.0.0.1",),
                              backoff=0.01)


@dataclass
class Fetcher:
    cache_folder: Path | None = None
    calls: list[float] = field(default_factory=list)

    def __call__(self, *urls: str | Wanted, page=text_page, cache: bool = False, progress=None,
                 **settings) -> dict[str, Answer]:
        wanted = [url if isinstance(url, Wanted) else Wanted(url, text=True) for url in urls]
        chosen = dataclasses.replace(TEST_SETTINGS, **settings)
        started = time.monotonic()
        try:
            return fetch_all(wanted, chosen, page, self.cache_folder if cache else None, progress)
        finally:
            self.calls.append(time.monotonic() - started)

    def one(self, url: str | Wanted, **kwargs) -> Answer:
        answers = self(url, **kwargs)
        return answers[url.url if isinstance(url, Wanted) else url]

    @property
    def last_seconds(self) -> float:
        return self.calls[-1]
