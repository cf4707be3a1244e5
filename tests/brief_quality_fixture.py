"""Build fixtures/brief-quality-repo from mvp-agent's real daily-brief payloads and source registry.

``python tests/brief_quality_fixture.py`` rewrites the fixture's ``evidence/import.json``, its two
briefs and ``source_registry.yaml``; then ``citations store init`` + ``citations store import``
build ``evidence/store.sqlite``. tests/kinds/briefs/test_brief_quality.py proves the committed files are what this
builds from the real data. Every document of the payloads is imported as published; the seeded
brief adds one document of its own (a Tier 3 source, marked ``seeded`` in its title) and a
re-chunking of the Reuters article that lets one publisher dominate its evidence pack.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parent.parent
FIXTURE = PROJECT / "fixtures" / "brief-quality-repo"
REALDATA = PROJECT.parent / "shared" / "realdata" / "mvp-agent" / "artifacts"
PAYLOADS = REALDATA / "runtime" / "daily_brief_fixture_payloads.json"
REGISTRY = REALDATA / "modelling" / "source_registry.yaml"
GENERATED_AT = "2026-03-10T16:00:00Z"
TIERS = {
    "fed_press_releases": 1, "us_bls_news": 1, "us_bea_news": 1,
    "reuters_business": 2, "wsj_markets": 2, "jpmorgan_am_research": 2, "macrovoices": 3,
}
SCORES = {1: 1.0, 2: 0.8, 3: 0.6, 4: 0.3}
QUOTES = {
    "fed_press_releases": "inflation progress remains uneven",
    "us_bls_news": "wage growth cooled",
    "us_bea_news": "real consumer spending growth softened",
    "reuters_business": "Treasury yields drifted lower",
    "jpmorgan_am_research": "a minority of allocators still expects a harder landing",
}
SEEDED_DOC = {
    "url": "https://www.macrovoices.com/show-notes/2026-03-10-yields",
    "title": "Seeded: yields slide as growth cools",
    "published_at": "2026-03-10T17:00:00Z",
    "fetched_at": "2026-03-10T17:05:00Z",
    "body_text": "Treasury yields fell 12 basis points on Tuesday as investors priced a cooler economy.",
}


def normalized(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload's fields under one set of names (the J.P. Morgan feed uses its own)."""
    return {
        "url": payload.get("url") or payload.get("canonical_url"),
        "title": payload.get("title") or payload.get("headline"),
        "published_at": payload["published_at"],
        "fetched_at": payload["fetched_at"],
        "text": payload.get("body_text") or payload.get("text"),
        "snippet": payload.get("summary") or payload.get("snippet"),
    }


def _split(text: str, parts: int) -> list[str]:
    words = text.split(" ")
    size = -(-len(words) // parts)
    return [" ".join(words[i : i + size]) + (" " if i + size < len(words) else "") for i in range(0, len(words), size)]


def rows(payloads: dict[str, list[dict]], registry: dict[str, dict]) -> dict[str, list[dict]]:
    docs = {source_id: normalized(items[0]) for source_id, items in payloads.items()}
    docs["macrovoices"] = normalized(SEEDED_DOC)
    tables: dict[str, list[dict]] = {k: [] for k in (
        "sources", "documents", "chunks", "citations", "evidence_packs", "evidence_pack_chunks", "syntheses",
        "synthesis_markers",
    )}
    for source_id in docs:
        entry = registry[source_id]
        tables["sources"].append({k: entry.get(k) for k in ("id", "name", "url", "credibility_tier", "paywall_policy", "tags")})
    for source_id, doc in docs.items():
        full = registry[source_id]["paywall_policy"] == "full"
        tables["documents"].append({"id": f"doc_{source_id}", "source_id": source_id, "url": doc["url"], "title": doc["title"],
                                    "published_at": doc["published_at"], "fetched_at": doc["fetched_at"]})
        tables["chunks"].append({"id": f"chunk_{source_id}", "doc_id": f"doc_{source_id}", "ordinal": 0,
                                 "text": doc["text"] if full else None})
    pieces = _split(docs["reuters_business"]["text"], 4)
    for ordinal, piece in enumerate(pieces, start=1):
        tables["chunks"].append({"id": f"chunk_reuters_business_p{ordinal}", "doc_id": "doc_reuters_business",
                                 "ordinal": ordinal, "text": piece})

    def citation(source_id: str, cite_id: str | None = None, quote: str | None = None) -> dict:
        doc = docs[source_id]
        publisher = registry[source_id]["name"].split(" - ")[0]
        item = {"id": cite_id or f"cite_{source_id}", "source_id": source_id, "publisher": publisher,
                "doc_id": f"doc_{source_id}", "chunk_id": f"chunk_{source_id}", "url": doc["url"], "title": doc["title"],
                "published_at": doc["published_at"], "fetched_at": doc["fetched_at"]}
        if source_id in QUOTES:
            start = doc["text"].index(QUOTES[source_id])
            item["quote_span"] = {"start": start, "end": start + len(QUOTES[source_id]), "text": quote or QUOTES[source_id]}
        else:
            item["snippet_span"] = {"text": doc["snippet"]}
        return item

    for source_id in docs:
        tables["citations"].append(citation(source_id))
    # the seeded brief's quote of the Fed statement drops one word
    tables["citations"].append(citation("fed_press_releases", "cite_fed_misquoted", "inflation progress remains even"))

    def pack(pack_id: str, chunks: list[tuple[str, str]]) -> None:
        publishers: dict[str, int] = {}
        tiers = {1: 0, 2: 0, 3: 0, 4: 0}
        for rank, (chunk_id, source_id) in enumerate(chunks):
            tier = TIERS[source_id]
            similarity = round(0.95 - 0.05 * rank, 2)
            score = round(0.5 * similarity + 0.3 * 1.0 + 0.2 * SCORES[tier], 4)
            tables["evidence_pack_chunks"].append({"pack_id": pack_id, "chunk_id": chunk_id, "source_id": source_id,
                                                   "score": score, "credibility_tier": tier})
            name = registry[source_id]["name"].split(" - ")[0]
            publishers[name] = publishers.get(name, 0) + 1
            tiers[tier] += 1
        total = len(chunks)
        tables["evidence_packs"].append({
            "pack_id": pack_id, "query": "What moved US macro and markets on 2026-03-10?", "generated_at": GENERATED_AT,
            "unique_publishers": len(publishers),
            **{f"tier_{t}_pct": round(100 * n / total, 1) for t, n in tiers.items()},
            "max_publisher_pct": round(100 * max(publishers.values()) / total, 1),
        })

    real = [s for s in payloads]
    pack("pack_2026_03_10", [(f"chunk_{s}", s) for s in real])
    pack("pack_2026_03_10_seeded", [
        ("chunk_fed_press_releases", "fed_press_releases"), ("chunk_us_bls_news", "us_bls_news"),
        ("chunk_us_bea_news", "us_bea_news"),
        *[(f"chunk_reuters_business_p{i}", "reuters_business") for i in range(1, len(pieces) + 1)],
        ("chunk_macrovoices", "macrovoices"),
    ])
    for synthesis, path, pack_id, markers in (
        ("syn_2026_03_10", "briefs/2026-03-10.md", "pack_2026_03_10", GOOD_MARKERS),
        ("syn_2026_03_10_seeded", "briefs/2026-03-10-seeded.md", "pack_2026_03_10_seeded", SEEDED_MARKERS),
    ):
        tables["syntheses"].append({"id": synthesis, "brief_path": path, "pack_id": pack_id, "generated_at": GENERATED_AT})
        for number, cite_id in enumerate(markers, start=1):
            tables["synthesis_markers"].append({"synthesis_id": synthesis, "marker": number, "citation_id": cite_id})
    return tables


GOOD_MARKERS = ["cite_fed_press_releases", "cite_us_bls_news", "cite_us_bea_news", "cite_reuters_business",
                "cite_wsj_markets", "cite_jpmorgan_am_research"]
SEEDED_MARKERS = ["cite_fed_misquoted", "cite_us_bls_news", "cite_us_bea_news", "cite_reuters_business",
                  "cite_wsj_markets", "cite_jpmorgan_am_research", "cite_macrovoices"]

_CLAIMS = """\
# Daily Brief - 2026-03-10

## Prevailing View
- On March 10 the Federal Reserve kept policy settings unchanged, saying inflation progress remains uneven. [1]
- Payroll growth moderated in February and wage growth cooled. [2]
- Personal income rose in February while real consumer spending growth softened. [3]
{prevailing}
## Counterarguments
- Bond investors questioned whether softer growth justified steady policy expectations. [4]
- Investors watched for confirmation that growth is cooling without tipping into contraction. [5]
{counter}
## Minority View
- A minority of allocators still expects a harder landing, challenging the quick-cut consensus. [6]

## What to Watch
- Next inflation data and labor-market revisions. [2][6]

## References
{references}
"""


def _reference(number: int, cite: dict, registry: dict[str, dict]) -> str:
    import datetime

    entry = registry[cite["source_id"]]
    date = datetime.date.fromisoformat(cite["published_at"][:10])
    tags = " [Paywall]" if entry["paywall_policy"] == "metadata_only" else ""
    tags += " [Monitor-only source]" if entry["credibility_tier"] == 4 else ""
    return f'[{number}] {cite["publisher"]}. "{cite["title"]}". Published {date:%b} {date.day}, {date.year}. {cite["url"]}{tags}'


def briefs(tables: dict[str, list[dict]], registry: dict[str, dict]) -> dict[str, str]:
    cites = {c["id"]: c for c in tables["citations"]}

    def references(markers: list[str]) -> str:
        return "\n".join(_reference(n, cites[c], registry) for n, c in enumerate(markers, start=1))

    good = _CLAIMS.format(prevailing="", counter="", references=references(GOOD_MARKERS))
    seeded = _CLAIMS.format(
        prevailing="- Treasury yields fell 12 basis points as investors priced a cooler economy. [7]\n",
        counter="- The Fed is expected to keep rates on hold while growth cools, bond investors said. [4]\n",
        references=references(SEEDED_MARKERS),
    )
    return {"briefs/2026-03-10.md": good, "briefs/2026-03-10-seeded.md": seeded}


def registry_entries(text: str) -> dict[str, dict]:
    from pytest_citations.kinds.briefs import source_registry as registry

    parsed = registry.parse("source_registry.yaml", text)
    return {
        s.id: {"id": s.id, "name": s.name, "url": s.url, "credibility_tier": s.credibility_tier,
               "paywall_policy": s.paywall_policy, "tags": list(s.tags)}
        for s in parsed.sources.values()
    }


def build() -> dict[str, str]:
    """Every generated file of the fixture: path -> text."""
    registry_text = REGISTRY.read_text(encoding="utf-8")
    entries = registry_entries(registry_text)
    tables = rows(json.loads(PAYLOADS.read_text(encoding="utf-8")), entries)
    files = {"source_registry.yaml": registry_text, "evidence/import.json": json.dumps(tables, indent=2) + "\n"}
    files.update(briefs(tables, entries))
    return files


if __name__ == "__main__":
    for rel, text in build().items():
        target = FIXTURE / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target}")
