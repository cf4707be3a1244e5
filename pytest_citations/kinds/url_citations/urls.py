"""URL normalization and cid computation for ``citation.v1`` records.

``normalize_url(url, profile="spec")`` applies the spec's seven steps literally and nothing else:
no percent decoding or re-encoding, no IDNA, no path resolution. The ``whatwg`` profile reproduces
what producers built on WHATWG URL serialization write, so that their records can be checked as
their owners wrote them; such producers write a query in one of two ways, and
:func:`normalizations` gives every ``normalized_url`` a profile accepts.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from pytest_citations.kinds.url_citations.errors import NotAbsoluteURL

PROFILES = ("spec", "whatwg")
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def cid_for(normalized_url: str) -> str:
    """``cid_`` + lowercase hex SHA-256 of the UTF-8 bytes of ``normalized_url``."""
    return "cid_" + cid_digest(normalized_url).hex()


def cid_digest(normalized_url: str) -> bytes:
    """The 32 bytes whose hex digits follow ``cid_`` in :func:`cid_for` (``normalized_url``)."""
    return hashlib.sha256(normalized_url.encode("utf-8")).digest()


_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*\n?://([^/?#]*)([^?#]*)(?:\?([^#]*))?")
"""scheme ``://`` authority, path, ``?`` query; the fragment is not captured. The scheme may end in
one newline, as the ``^...$`` pattern this profile has always checked it with let through."""
_TRACKING_PREFIXES = ("utm_", "gclid=", "fbclid=")  # a pair whose key is utm_*, gclid or fbclid ...
_TRACKING_PAIRS = frozenset({"gclid", "fbclid"})  # ... or that is one of these keys without a value


def _host_and_port(authority: str) -> tuple[str, str, str | None]:
    """(userinfo with its ``@``, host, port or None) as written."""
    userinfo, at, hostport = authority.rpartition("@")
    userinfo += at
    if hostport.startswith("["):
        close = hostport.find("]")
        host, after = (hostport[: close + 1], hostport[close + 1 :]) if close != -1 else (hostport, "")
    else:
        host, colon, port = hostport.partition(":")
        after = colon + port
    if after.startswith(":"):
        return userinfo, host, after[1:]
    return userinfo, host, None


def _origin(prefix: str) -> str | None:
    """``scheme://authority`` normalized (steps 2 and 6), or None when there is no host."""
    scheme, _, authority = prefix.partition("://")
    userinfo, host, port = _host_and_port(authority)
    if not host:
        return None
    scheme = scheme.lower()
    if port is not None and _DEFAULT_PORTS.get(scheme) == port:
        port = None
    return f"{scheme}://{userinfo}{host.lower()}" + (f":{port}" if port is not None else "")


_MAX_CACHED_ORIGIN = 300  # characters of scheme://authority; longer ones are not kept in the cache
_cached_origin = lru_cache(maxsize=4096)(_origin)
"""The records of one file cite few distinct hosts; the bounds keep a hostile file's memory small."""


def _key_then_value(pair: str) -> tuple[str, str]:
    key, _, value = pair.partition("=")
    return key, value


def _sorted_query(query: str) -> str:
    """Steps 4 and 5: drop empty and tracking pairs, sort the rest by key, then value (stable)."""
    kept = [
        pair for pair in query.split("&") if pair and not pair.startswith(_TRACKING_PREFIXES) and pair not in _TRACKING_PAIRS
    ]
    if len(kept) > 1:
        kept.sort(key=_key_then_value)
    return "&".join(kept)


def normalize_spec(url: str) -> str:
    """The spec's normalization, step by step, on the URL as written."""
    match = _ABSOLUTE.match(url)
    if match is None:
        raise NotAbsoluteURL(f"not an absolute URL: {url!r}")
    end = match.end(1)  # of the authority
    origin = _cached_origin(url[:end]) if end <= _MAX_CACHED_ORIGIN else _origin(url[:end])
    if origin is None:
        raise NotAbsoluteURL(f"URL has no host: {url!r}")
    path, query = match.group(2, 3)
    if path not in ("", "/") and path.endswith("/"):
        path = path[:-1]
    query = _sorted_query(query) if query else ""
    return f"{origin}{path}?{query}" if query else origin + path


def normalize_url(url: str, profile: str = "spec") -> str:
    """Normalize ``url`` under ``profile`` (``spec`` or ``whatwg``); raises NotAbsoluteURL."""
    return normalizations(url, profile)[0]


def normalizations(url: str, profile: str = "spec") -> tuple[str, ...]:
    """Every ``normalized_url`` a producer of ``profile`` writes for ``url``, the one
    :func:`normalize_url` gives first (and a fix writes): one under ``spec``; under ``whatwg``, the
    query as ``encodeURIComponent`` writes it and, where it differs, as ``URLSearchParams`` does.
    Raises NotAbsoluteURL."""
    if profile == "spec":
        return (normalize_spec(url),)
    if profile == "whatwg":
        from pytest_citations.kinds.url_citations.whatwg import whatwg_normalizations

        return whatwg_normalizations(url)
    raise ValueError(f"unknown url profile {profile!r}; expected one of {PROFILES}")


_HTTP_URL = re.compile(r"https?://([^/?#]*)", re.IGNORECASE)
_SPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")
_PLAIN_HTTP_URL = re.compile(
    r"https?://[^\s\x00-\x1f\x7f/?#@\[:]+(?::[^\s\x00-\x1f\x7f/?#@]*)?(?:[/?#][^\s\x00-\x1f\x7f]*)?", re.IGNORECASE
)
"""An http(s) URL whose authority is a host and maybe a port (no userinfo, no brackets), with no
white space or control character anywhere: one that :func:`http_url_problem` passes, told by one
match; any other URL is looked at part by part."""


def http_url_problem(url: str) -> str | None:
    """None when ``url`` is an absolute http or https URL: the scheme (in any case), ``://``, a
    host, and no white space or control character anywhere (a URL library writes them escaped).
    Otherwise what is wrong, as the end of a sentence: ``""`` for a URL of another shape, or
    ``": it holds white space"``, ``": it holds a control character"``."""
    if _PLAIN_HTTP_URL.fullmatch(url) is not None:
        return None
    return _http_url_problem_by_parts(url)


def _http_url_problem_by_parts(url: str) -> str | None:
    match = _HTTP_URL.match(url)
    if match is None or not _host_and_port(match.group(1))[1]:
        return ""
    odd = _SPACE_OR_CONTROL.search(url)
    if odd is None:
        return None
    return ": it holds white space" if odd.group().isspace() else ": it holds a control character"
