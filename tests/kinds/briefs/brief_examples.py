"""The files of brief examples: a brief of cited claims, its sidecar, the source registry, the
evidence store and pack, as the brief tests build them."""

from __future__ import annotations

import json
from typing import Any

# -- a brief of cited claims, its sidecar and the source registry, as files of an example --------------

_CLAIMS = """\
### Counterarguments
- [Insufficient evidence to assess this claim]

### Minority View
- [Conflicting reports; unable to confirm]

### What to Watch
- [Data not yet available as of Feb 11, 2026]
"""
_REF1 = '[1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm'
_REGISTRY = """\
sources:
  - id: fed_press_releases
    url: https://www.federalreserve.gov/feeds/press_all.xml
    credibility_tier: 1
    paywall_policy: full
  - id: ft_markets
    url: https://www.ft.com/markets
    credibility_tier: 2
    paywall_policy: metadata_only
  - id: zerohedge
    url: https://www.zerohedge.com/s/RSS
    credibility_tier: 4
    paywall_policy: full
"""


def _brief(prevailing: str, references: str = _REF1) -> str:
    return f"### Prevailing View\n{prevailing}\n\n{_CLAIMS}\n### References\n{references}\n"


def _files(brief: str, sidecar: str | None = None, registry: bool = False) -> str:
    parts = [f'```markdown title="brief.md"\n{brief}```\n']
    if sidecar is not None:
        parts.append(f'```json title="brief.citations.json"\n{sidecar}```\n')
    if registry:
        parts.append(f'```yaml title="source_registry.yaml"\n{_REGISTRY}```\n')
    return "\n".join(parts)


# -- the quality rules' files: a registry of every tier, citations and packs of its sources -------------

_QREGISTRY = """\
sources:
  - id: fed_press_releases
    name: Federal Reserve - Press Releases
    url: https://www.federalreserve.gov/feeds/press_all.xml
    tags: [policy_centralbank, macro_data, rates]
    credibility_tier: 1
    paywall_policy: full
  - id: bls_schedule
    name: U.S. Bureau of Labor Statistics - Release Schedule
    url: https://www.bls.gov/schedule/
    tags: [macro_data, event_calendar]
    credibility_tier: 1
    paywall_policy: full
  - id: reuters
    name: Reuters - Business
    url: https://www.reuters.com/business/
    tags: [market_narrative]
    credibility_tier: 2
    paywall_policy: full
  - id: ft_markets
    name: Financial Times - Markets
    url: https://www.ft.com/markets
    tags: [market_narrative]
    credibility_tier: 2
    paywall_policy: metadata_only
  - id: market_blog
    name: Market Blog
    url: https://www.marketblog.example/
    tags: [market_narrative]
    credibility_tier: 3
    paywall_policy: full
  - id: zerohedge
    name: Zero Hedge
    url: https://www.zerohedge.com/
    tags: [contrarian]
    credibility_tier: 4
    paywall_policy: full
"""
_SOURCES = {
    "fed_press_releases": ("Federal Reserve", "https://www.federalreserve.gov/a.htm"),
    "bls_schedule": ("U.S. Bureau of Labor Statistics", "https://www.bls.gov/schedule/"),
    "reuters": ("Reuters", "https://www.reuters.com/business/b"),
    "ft_markets": ("Financial Times", "https://www.ft.com/content/c"),
    "market_blog": ("Market Blog", "https://www.marketblog.example/d"),
    "zerohedge": ("Zero Hedge", "https://www.zerohedge.com/e"),
}


def _cite(number: int, source_id: str, **extra: Any) -> dict:
    publisher, url = _SOURCES[source_id]
    return {
        "id": f"cite_{number}", "source_id": source_id, "publisher": publisher, "doc_id": f"doc_{number}",
        "chunk_id": f"chunk_{number}", "url": url, "title": f"Title {number}",
        "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z", **extra,
    }


def _refs(*sources: str) -> str:
    lines = []
    for number, source_id in enumerate(sources, start=1):
        publisher, url = _SOURCES[source_id]
        tags = " [Paywall]" if source_id == "ft_markets" else " [Monitor-only source]" if source_id == "zerohedge" else ""
        lines.append(f'[{number}] {publisher}. "Title {number}". Feb 10, 2026. {url}{tags}')
    return "\n".join(lines)


def _sidecar(citations: list[dict], **more: Any) -> str:
    lines = [f'  "{n}": {json.dumps(c)}' for n, c in enumerate(citations, start=1)]
    text = '{"citations": {\n' + ",\n".join(lines) + "\n}"
    for key, value in more.items():
        text += f',\n"{key}": {json.dumps(value)}'
    return text + "}\n"


def _pack(counts: list[tuple[str, int]], **extra: Any) -> dict:
    """A pack of chunks given as (source_id, how many), or as ``chunks=[...]``."""
    items, number = [], 0
    for source_id, count in counts:
        for _ in range(count):
            number += 1
            items.append({"chunk_id": f"chunk_{number}", "source_id": source_id})
    return {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": items, **extra}
