"""The address guard of the online check: a cited URL may not make the checker reach a private
network, the machine it runs on or a cloud's metadata service.

The checkout is untrusted (docs/security.md), so every URL it cites, and every redirect a server
sends, may name ``http://169.254.169.254/``, ``http://localhost:6379/``, ``http://0x7f.1/`` or a
name whose DNS answer is ``10.0.0.5``. Two checks keep such a request from leaving:

- before any connection, a host that is an address (in any spelling ``getaddrinfo`` would accept:
  ``2130706433``, ``0177.0.0.1``, ``0x7f.1``, ``[::ffff:127.0.0.1]``) or a ``localhost`` name is
  checked (:meth:`AddressPolicy.refusal_of_host`);
- after DNS, :class:`GuardedResolver` refuses a name when *any* of its addresses is not global,
  and hands aiohttp only the addresses it checked, so the connection goes to nothing else (no
  second lookup that a rebinding DNS server could answer differently).

``allow`` (from the user's command line or settings of their own, never from the checkout) names
the host names, addresses and networks that may be fetched although they are not global.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
import urllib.parse
from collections.abc import Iterable, Mapping

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # embeds an IPv4 address in its last 32 bits (RFC 6052)
# What getaddrinfo takes for an IPv4 address besides the dotted quad: 2130706433, 0177.1, 0x7f.1
_NUMERIC_IPV4 = re.compile(r"(?:0[xX][0-9a-fA-F]*|[0-9]+)(?:\.(?:0[xX][0-9a-fA-F]*|[0-9]+)){0,3}\Z")
_LABEL = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)\Z")
_NUMERIC_FLAGS = socket.AI_NUMERICHOST | socket.AI_NUMERICSERV


class AddressRefused(OSError):
    """A host that is, or resolves to, an address the policy does not let the checker reach.
    (An OSError, so that aiohttp reports it as a failed lookup, wrapping it.)"""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def normal_host(host: str) -> str:
    """A host name as compared: lower case, without the trailing dot of a fully qualified name."""
    return host.rstrip(".").lower()


def literal_address(host: str) -> Address | None:
    """The address a host written as an address stands for (percent-escapes decoded, an IPv6
    zone kept, every numeric IPv4 spelling read as ``getaddrinfo`` reads it); None for a name."""
    text = urllib.parse.unquote(host.strip("[]"))
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if _NUMERIC_IPV4.match(text.rstrip(".")):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text.rstrip(".")))
        except OSError:
            return None
    return None


def is_localhost_name(host: str) -> bool:
    """``localhost`` and the names under it, which always mean this machine (RFC 6761)."""
    name = normal_host(host)
    return name == "localhost" or name.endswith(".localhost")


def is_host_name(host: str) -> bool:
    """Whether ``host`` is a name DNS could hold (letters, digits, ``-`` and ``_`` in labels of at
    most 63 characters, 253 in all): anything else is never looked up."""
    name = host[:-1] if host.endswith(".") else host
    return 0 < len(name) <= 253 and all(_LABEL.match(label) for label in name.split("."))


def why_not_global(address: Address) -> str | None:
    """Why the checker may not connect to ``address`` (a phrase such as "a loopback address"), or
    None for a global unicast address. IPv6 addresses that carry an IPv4 address (mapped, 6to4,
    Teredo, NAT64) are judged by it as well."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return why_not_global(address.ipv4_mapped)
        for carried in _carried_ipv4(address):
            reason = why_not_global(carried)
            if reason is not None:
                return reason
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv4Address) and address in _SHARED:
        return "a shared (carrier-grade NAT) address"
    if address.is_private:
        return "a private address"
    if address.is_reserved:
        return "a reserved address"
    if not address.is_global:
        return "not a global address"
    return None


def _carried_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    carried = []
    if address.sixtofour is not None:
        carried.append(address.sixtofour)
    if address.teredo is not None:
        carried.extend(address.teredo)
    if address in _NAT64:
        carried.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return carried


class AddressPolicy:
    """Which hosts and addresses may be fetched: every global address, and what ``allow`` names
    (host names, addresses, networks in CIDR notation)."""

    def __init__(self, allow: Iterable[str] = ()) -> None:
        self.names: set[str] = set()
        self.networks: list[Network] = []
        for item in allow:
            try:
                self.networks.append(ipaddress.ip_network(item.strip(), strict=False))
            except ValueError:
                self.names.add(normal_host(item.strip()))

    def allows_name(self, host: str) -> bool:
        return normal_host(host) in self.names

    def allows_address(self, address: Address) -> bool:
        candidates: list[Address] = [address]
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            candidates.append(address.ipv4_mapped)
        return any(candidate in network for candidate in candidates for network in self.networks)

    def refusal(self, address: Address, host: str | None = None) -> str | None:
        """The detail of refusing to connect to ``address`` (found for ``host``), or None when
        it may be reached."""
        reason = why_not_global(address)
        if reason is None or self.allows_address(address) or (host is not None and self.allows_name(host)):
            return None
        return f"refused: {address} is {reason}"

    def refusal_of_host(self, host: str) -> str | None:
        """The detail of refusing a URL's host before any lookup or connection: an address
        (however spelt) or a ``localhost`` name that the policy does not allow; None otherwise."""
        address = literal_address(host)
        if address is not None:
            return self.refusal(address, host)
        if is_localhost_name(host) and not self.allows_name(host):
            loopback = ipaddress.ip_address("127.0.0.1")
            if not self.allows_address(loopback):
                return f"refused: {normal_host(host)} is a loopback address"
        return None


# Lookups a run makes at once: the threads of the run's event loop's default executor, which runs
# them (the fetch makes it so), so that a lookup that holds a slot has a thread.
LOOKUPS_AT_ONCE = 8


class GuardedResolver(AbstractResolver):
    """The resolver the online check's connections go through: looks a name up with the system's
    resolver (or takes the address ``connect_to`` maps it to), and refuses the name when any of its
    addresses is one the policy does not allow. aiohttp connects to exactly the addresses returned.

    A checkout may cite many names whose DNS answers slowly, to hold every lookup thread while a
    third party's name waits for one. So a request looks its name up first (:meth:`look_up`), in one
    of :data:`LOOKUPS_AT_ONCE` slots, one per lookup thread: the wait for a slot is no part of the
    request's time, the lookup itself is. A slot is held until its lookup's thread is done, even
    when the request stopped waiting for it (a thread cannot be stopped), so that a slot always
    means a thread. What a lookup found, or the error it met, is what :meth:`resolve` then gives;
    a lookup that took too long is not kept (the next attempt looks again)."""

    def __init__(self, policy: AddressPolicy, connect_to: Mapping[tuple[str, int], tuple[str, int]],
                 inner: AbstractResolver | None = None) -> None:
        self._policy = policy
        self._connect_to = {(normal_host(host), port): target for (host, port), target in connect_to.items()}
        self._inner = inner
        self._found: dict[tuple[str, int], list[ResolveResult] | OSError] = {}
        self._slots = asyncio.Semaphore(LOOKUPS_AT_ONCE)

    async def look_up(self, host: str, port: int, timeout: float) -> None:
        """Look ``host`` up once a slot is free, within ``timeout`` (asyncio.TimeoutError past it),
        and keep what it gives for :meth:`resolve`."""
        key = (normal_host(host), port)
        if key in self._found:
            return
        await self._slots.acquire()
        if key in self._found:
            self._slots.release()
            return
        lookup = asyncio.ensure_future(self._checked(host, port, socket.AF_UNSPEC))
        lookup.add_done_callback(lambda done: self._done(key, done))
        try:
            await asyncio.wait_for(asyncio.shield(lookup), timeout)
        except (TimeoutError, asyncio.TimeoutError):  # (an OSError since 3.11: let through, nothing kept)
            raise
        except OSError:
            pass  # (kept by _done: resolve() raises it within the request, which reports it)

    def _done(self, key: tuple[str, int], lookup: asyncio.Future[list[ResolveResult]]) -> None:
        """A lookup's thread is done: its slot is free, and what it found is kept (also when the
        request stopped waiting for it), but a failure that may pass (a timeout) and a cancellation."""
        self._slots.release()
        if lookup.cancelled():
            return
        error = lookup.exception()
        if error is None:
            self._found[key] = lookup.result()
        elif isinstance(error, OSError) and not isinstance(error, TimeoutError):
            self._found[key] = error  # (no such host, a refused address: the request reports it)

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        found = self._found.get((normal_host(host), port))
        if isinstance(found, OSError):
            raise found
        return found if found is not None else await self._checked(host, port, family)

    async def _checked(self, host: str, port: int, family: socket.AddressFamily) -> list[ResolveResult]:
        target_host, target_port = self._connect_to.get((normal_host(host), port), (host, port))
        address = literal_address(target_host)
        if address is not None:
            results = [self._numeric(host, address, target_port)]
        else:
            refused = self._policy.refusal_of_host(target_host)
            if refused is not None:
                raise AddressRefused(refused)
            if self._inner is None:
                self._inner = ThreadedResolver()
            results = await self._inner.resolve(target_host, target_port, family)
        named = self._policy.allows_name(host) or self._policy.allows_name(target_host)
        for result in results:
            refused = None if named else self._policy.refusal(ipaddress.ip_address(result["host"]))
            if refused is not None:
                raise AddressRefused(refused)
        return results

    @staticmethod
    def _numeric(host: str, address: Address, port: int) -> ResolveResult:
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        return ResolveResult(hostname=host, host=str(address), port=port, family=family, proto=0, flags=_NUMERIC_FLAGS)

    async def close(self) -> None:
        if self._inner is not None:
            await self._inner.close()
