"""robots.txt for the online check: what a site lets the checker fetch (RFC 9309).

The checker fetches a site's robots.txt once per run (or takes it from the response cache), reads
at most :data:`MAX_SIZE` of it (the limit RFC 9309 lets a crawler set), and asks
:mod:`urllib.robotparser` about each URL for the product token of its user agent (the part before
the first ``/``: ``pytest-citations``). How the answer for robots.txt itself decides:

- 2xx: its rules;
- 4xx (not 429): no rules, everything allowed (the site has no robots.txt);
- 429 and 5xx, after the fetch's retries: the site is taken as disallowing everything for this run
  (RFC 9309 2.3.1.4), and such an answer is never cached;
- a redirect chain that cannot be followed (too long, a loop, a refused scheme): "unavailable",
  everything allowed, as for 4xx;
- no answer at all (no such host, connection refused, timeout): the cited URL gets that outcome,
  since the page is on the same host (see :mod:`pytest_citations.online.fetch`).
"""

from __future__ import annotations

from urllib.robotparser import RobotFileParser

from yarl import URL

MAX_SIZE = 500 * 1024
MAX_REDIRECTS = 5  # RFC 9309 asks a crawler to follow at least five


class Rules:
    """The rules of one site's robots.txt (or none: everything allowed)."""

    def __init__(self, text: str | None) -> None:
        self.text = text
        self._parser: RobotFileParser | None = None
        if text is not None:
            self._parser = RobotFileParser()
            self._parser.parse(text.splitlines())

    @classmethod
    def from_body(cls, body: bytes) -> Rules:
        """The rules of a robots.txt body: UTF-8 (RFC 9309; a byte order mark skipped), undecodable bytes replaced, and at
        most :data:`MAX_SIZE` of it."""
        return cls(body[:MAX_SIZE].decode("utf-8-sig", "replace"))

    def allows(self, url: str, user_agent: str) -> bool:
        return self._parser is None or self._parser.can_fetch(product_token(user_agent), url)


def product_token(user_agent: str) -> str:
    """The name a robots.txt groups rules under: ``pytest-citations/0.1.0 (...)`` -> ``pytest-citations``."""
    return user_agent.split("/", 1)[0].strip() or user_agent


def robots_url(url: URL) -> URL:
    """The robots.txt of the site (scheme, host and port) of ``url``."""
    return url.origin().join(URL("/robots.txt"))


def disallowed_path(url: URL) -> str:
    """The part of ``url`` that robots.txt rules match (its path and query), for a message."""
    path = url.raw_path or "/"
    return f"{path}?{url.raw_query_string}" if url.raw_query_string else path
