"""``source_registry.yaml`` (brief-citation-contract.md): sources with tiers, tags, paywall policy
and URLs, read with the safe event reader of :mod:`pytest_citations.frontmatter` (nothing is ever
constructed from a tag; anchors, aliases and duplicate keys are reported, not resolved).

A citation URL matches its source's registry URL by scheme and host: the same host or a subdomain
of it (a leading ``www.`` of the registry host is ignored, and an ``https`` citation matches an
``http`` registry entry). With ``url-match = "domain"`` the registrable domains are compared
instead, for feeds whose articles live on sibling hosts (``apps.bea.gov`` -> ``www.bea.gov``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from pytest_citations import frontmatter

# second-level labels under which a registrable domain takes three labels (gov.au, co.uk, ...)
_SECOND_LEVEL = {"ac", "co", "com", "edu", "gov", "go", "gob", "mil", "net", "nic", "or", "org", "ne"}


@dataclass(frozen=True)
class Source:
    id: str
    name: Any
    url: Any
    tags: tuple[str, ...]
    credibility_tier: Any
    paywall_policy: Any


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
        )
    return registry


def registrable_domain(host: str) -> str:
    labels = host.split(".")
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


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
