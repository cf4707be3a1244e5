"""``source_registry.yaml`` (brief-citation-contract.md): sources with tiers, tags, paywall policy
and URLs, read with the safe event reader of :mod:`pytest_citations.core.frontmatter` (nothing is ever
constructed from a tag; anchors, aliases and duplicate keys are reported, not resolved).

A citation URL matches its source's registry URL by scheme and host: the same host or a subdomain
of it (a leading ``www.`` of the registry host is ignored, and an ``https`` citation matches an
``http`` registry entry). With ``url-match = "domain"`` the registrable domains are compared
instead, for feeds whose articles live on sibling hosts (``apps.bea.gov`` -> ``www.bea.gov``).
A registry names feeds, and a source's articles may live on another site altogether
(``www.reutersagency.com/feed`` for articles on ``www.reuters.com``): an entry's ``article_hosts``
(and the kind setting ``source-hosts``) names those hosts, matched the same way.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from pytest_citations.core import frontmatter

# second-level labels under which a registrable domain takes three labels (gov.au, co.uk, gc.ca, ...)
_SECOND_LEVEL = {
    "ac", "co", "com", "edu", "gov", "go", "gob", "mil", "net", "nic", "or", "org", "ne",
    "gc", "gouv", "govt", "gv", "int", "ltd", "plc", "sch", "police", "lg", "ed", "ad",
}
# hosts whose subdomains belong to different owners (a site each): each subdomain is its own domain
_SHARED_HOSTS = {
    "github.io", "gitlab.io", "blogspot.com", "wordpress.com", "substack.com", "medium.com", "tumblr.com",
    "ghost.io", "netlify.app", "vercel.app", "pages.dev", "web.app", "firebaseapp.com", "herokuapp.com",
    "appspot.com", "azurewebsites.net", "cloudfront.net", "amazonaws.com",
}


@dataclass(frozen=True)
class Source:
    id: str
    name: Any
    url: Any
    tags: tuple[str, ...]
    credibility_tier: Any
    paywall_policy: Any
    article_hosts: tuple[str, ...] = ()  # hosts the source's articles live on besides its URL's


@dataclass
class Registry:
    rel: str
    sources: dict[str, Source] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # "line:col: message"

    @functools.cached_property
    def tiers(self) -> dict[str, int]:
        """Each source's ``credibility_tier`` that is an integer (not a boolean), by source id; read
        once, as the registry is not changed once parsed (every citation and chunk asks)."""
        return {
            source_id: source.credibility_tier
            for source_id, source in self.sources.items()
            if isinstance(source.credibility_tier, int) and not isinstance(source.credibility_tier, bool)
        }


def parse(rel: str, text: str) -> Registry:
    registry = Registry(rel)
    root, problems = frontmatter.parse_yaml(text)
    for problem in problems:
        registry.problems.append(f"{problem.line}:{problem.col}: {problem.message.replace(' in front matter', '')}")
    if root is None:
        return registry
    values = root.value if root is not None and isinstance(root.value, dict) else None
    entries = values.get("sources") if values else None
    if entries is None or not isinstance(entries.value, list):
        registry.problems.append("1:1: the registry has no `sources:` list")
        return registry
    for item in entries.value:
        fields = item.plain() if isinstance(item.value, dict) else None
        if not fields or not isinstance(fields.get("id"), str):
            registry.problems.append(f"{item.line}:{item.col}: a source without a string id")
            continue
        if fields["id"] in registry.sources:
            registry.problems.append(f"{item.line}:{item.col}: source id {fields['id']!r} is declared twice")
            continue
        tags = fields.get("tags")
        registry.sources[fields["id"]] = Source(
            fields["id"],
            fields.get("name"),
            fields.get("url"),
            tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else (),
            fields.get("credibility_tier"),
            fields.get("paywall_policy"),
            _article_hosts(fields["id"], item.value.get(ARTICLE_HOSTS), registry.problems),
        )
    return registry


ARTICLE_HOSTS = "article_hosts"  # the entry's field naming the hosts its articles live on


def _article_hosts(source_id: str, node, problems: list[str]) -> tuple[str, ...]:
    """The host names of an entry's ``article_hosts`` list (``node``, None when there is none),
    lowercased; each value that is not a host name is a problem, and left out."""
    if node is None:
        return ()
    if not isinstance(node.value, list):
        problems.append(
            f"{node.line}:{node.col}: {ARTICLE_HOSTS} of {source_id} must be a list of host names, not {_yaml_kind(node.value)}"
        )
        return ()
    hosts = []
    for value in node.value:
        problem = host_problem(value.value)
        if problem is None:
            hosts.append(normal_host(value.value))
        else:
            problems.append(f"{value.line}:{value.col}: {ARTICLE_HOSTS} of {source_id}: {problem}")
    return tuple(hosts)


def _yaml_kind(value: Any) -> str:
    """What a YAML value is, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "an empty string" if not value.strip() else "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, dict) else "a date"


# A host name as a registry or setting writes one: labels of anything but blanks and the characters
# that end a URL's host (``/?#@:[]%``), the last one perhaps followed by a dot.
_HOST_NAME = re.compile(r"[^\s/?#@:\[\]%.]+(?:\.[^\s/?#@:\[\]%.]+)*\.?")


def host_problem(value: Any) -> str | None:
    """Why ``value`` is not a host name such as ``www.reuters.com`` (None when it is one)."""
    if not isinstance(value, str) or not value.strip():
        return f"expected a host name, got {_yaml_kind(value)}"
    text = value.strip()
    if "://" in text:
        found = _scheme_host(text)
        hint = f": write its host alone ({found[1]})" if found else ""
        return f"{text!r} is a URL{hint}"
    if text.startswith("*."):
        return f"{text!r}: a host matches its subdomains already: write {text[2:]}"
    if not _HOST_NAME.fullmatch(text):
        return f"{text!r} is not a host name (no port, path or blanks)"
    return None


def normal_host(host: str) -> str:
    """A host name as hosts are compared: without blanks around it or a final dot, lowercased."""
    return host.strip().rstrip(".").lower()


def source_hosts_setting(items: list[str], registry: Registry | None) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """The kind setting ``source-hosts`` (``"source_id = host"`` items) as hosts by source id, and
    a problem for each item that names no host, or a source the ``registry`` lacks."""
    hosts: dict[str, list[str]] = {}
    problems = []
    for item in items:
        source_id, equals, host = (part.strip() for part in item.partition("="))
        if not equals or not source_id:
            problems.append(f"{item!r} is not \"source_id = host\"")
        elif (problem := host_problem(host)) is not None:
            problems.append(f"{item!r}: {problem}")
        elif registry is not None and source_id not in registry.sources:
            problems.append(f"{item!r} names {source_id}, which is not in {registry.rel}")
        else:
            hosts.setdefault(source_id, []).append(normal_host(host))
    return {source_id: tuple(found) for source_id, found in hosts.items()}, problems


def registrable_domain(host: str) -> str:
    """The part of ``host`` its owner registered: the last two labels (``bea.gov``), three under a
    country's generic second level (``bankofengland.co.uk``, ``statcan.gc.ca``), one more under a
    host whose subdomains are different sites (``someone.github.io``); an IP address is its own."""
    if _is_address(host):
        return host
    labels = host.split(".")
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        return ".".join(labels[-3:])
    if len(labels) >= 3 and ".".join(labels[-2:]) in _SHARED_HOSTS:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def _is_address(host: str) -> bool:
    """Whether ``host`` is an IP address (an IPv6 one comes without its brackets from urlsplit)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


# An ASCII http(s) URL whose host part holds no userinfo, IPv6 brackets, percent sign or blank,
# nor any blank after it: urlsplit would take its scheme and host as they stand (see _scheme_host).
_PLAIN_HTTP_URL = re.compile(r"(https?)://([^/?#@\[\]%\s]*)(?:[/?#]\S*)?")


@functools.lru_cache(maxsize=8192)
def _scheme_host(url: str) -> tuple[str, str] | None:
    """(scheme, host) of an http(s) URL, lowercased; cached: a registry URL is compared with
    every citation of its source, and a document is cited by many briefs. A plain URL's are cut
    from its text (a fifth of what urlsplit costs: a large corpus cites more URLs than the cache
    holds), any other's read from urlsplit."""
    stripped = url.strip()
    plain = _PLAIN_HTTP_URL.fullmatch(stripped) if stripped.isascii() else None
    if plain is not None:
        host = plain.group(2).partition(":")[0].rstrip(".").lower()
        return (plain.group(1), host) if host else None
    try:
        parts = urlsplit(stripped)
        host = (parts.hostname or "").rstrip(".")
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    return parts.scheme.lower(), host.lower()


@functools.lru_cache(maxsize=16384)
def url_matches(url: str, registry_url: str, mode: str = "host") -> bool:
    """Whether a citation ``url`` belongs to the source whose registry URL is ``registry_url``
    (cached: a document is cited by many briefs)."""
    cited, listed = _scheme_host(url), _scheme_host(registry_url)
    if cited is None or listed is None:
        return False
    if cited[0] != listed[0] and not (cited[0] == "https" and listed[0] == "http"):
        return False
    host, base = cited[1], listed[1]
    if mode == "domain":
        return registrable_domain(host) == registrable_domain(base)
    base = base[4:] if base.startswith("www.") else base
    return host == base or host.endswith("." + base)


def host_of(url: str) -> str | None:
    """The lowercased host of an http(s) URL, None for any other text."""
    found = _scheme_host(url)
    return found[1] if found else None


def source_url_matches(url: str, source: Source, mode: str = "host", extra_hosts: tuple[str, ...] = ()) -> bool:
    """Whether a citation ``url`` belongs to ``source``: its registry URL, one of its
    ``article_hosts`` or one of ``extra_hosts`` (the ``source-hosts`` setting's) matches. A host
    alone matches a URL of either scheme."""
    if isinstance(source.url, str) and url_matches(url, source.url, mode):
        return True
    return any(url_matches(url, f"http://{host}/", mode) for host in (*source.article_hosts, *extra_hosts))
