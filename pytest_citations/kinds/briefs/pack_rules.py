'''Quality rules on the evidence pack (brief-citation-contract.md §4): the shares of its
publishers and tiers (B325-B327), its size (B328), the age of its chunks (B329), and its stored
diversity figures, scores and tiers against what they are recomputed from (B330-B332).
docs/brief-quality.md explains each decision.'''

from __future__ import annotations

import datetime
from collections import Counter

from pytest_citations.core.diagnostics import quoted
from pytest_citations.core.timestamps import parse_iso_8601
from pytest_citations.kinds.briefs.citations import _int, _number, publisher_of, source_of, tier_of
from pytest_citations.kinds.briefs.model import Brief
from pytest_citations.rules import Finding, Option, rule

KIND = "briefs"


def pack_view(brief: Brief) -> dict | None:
    """The pack's chunks with publisher and tier, and the diversity figures recomputed from them."""
    if not brief.pack:
        return None
    if "pack_view" in brief.memo:
        return brief.memo["pack_view"]
    chunks = [c for c in brief.pack.get("chunks") or () if isinstance(c, dict)]
    publishers = Counter([publisher_of(brief, c) for c in chunks])
    chunk_tiers = [tier_of(brief, c) for c in chunks]
    tiers = Counter(chunk_tiers)
    total = len(chunks)

    def pct(count: int) -> float:
        return 100.0 * count / total if total else 0.0

    top = publishers.most_common(1)[0] if publishers else (None, 0)
    view = {
        "chunks": chunks,
        "tiers": chunk_tiers,  # each chunk's tier_of
        "total": total,
        "publishers": publishers,
        "top": top,
        "stats": {
            "unique_publishers": len(publishers),
            **{f"tier_{t}_pct": pct(tiers.get(t, 0)) for t in (1, 2, 3, 4)},
            "max_publisher_pct": pct(top[1]),
        },
        "name": f"evidence pack {brief.pack.get('pack_id', '?')}",
    }
    brief.memo["pack_view"] = view
    return view


def _pct(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") + "%"


_PACK_DOC_NOTE = (
    "The pack (§4.4) is the sidecar's `evidence_pack` or the store's `evidence_packs` row of the brief's\n"
    "synthesis. A chunk's publisher is its `publisher`, else its registry source's name up to \" - \", else\n"
    "its `source_id`; its tier is the registry's, else the chunk's `credibility_tier`."
)


def _diversity_settings(**options: str) -> str:
    lines = "\n".join(f"{k} = {v}" for k, v in options.items())
    return f"[tool.citations.rules.B328]\n{lines}\n" if lines else ""


@rule(
    "B325", "pack-publisher-dominance", kind=KIND,
    options={"max-publisher-pct": Option((int, float), 40, "the largest share of the pack one publisher may hold (%)")},
)
def pack_publisher_dominance(brief: Brief, ctx):
    """
    ## What it does
    Reports an evidence pack in which one publisher holds more than 40% of the chunks (setting
    `max-publisher-pct`). Spec §4.2. The pack (§4.4) is the sidecar's `evidence_pack` or the store's `evidence_packs` row of the brief's
    synthesis. A chunk's publisher is its `publisher`, else its registry source's name up to " - ", else
    its `source_id`; its tier is the registry's, else the chunk's `credibility_tier`.

    ## Why is this bad?
    A synthesis from a pack one publisher dominates repeats that publisher's narrative; the contract
    requires down-sampling it.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "reuters"}, {"chunk_id": "chunk_2", "source_id": "reuters"}, {"chunk_id": "chunk_3", "source_id": "reuters"}, {"chunk_id": "chunk_4", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_5", "source_id": "market_blog"}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "reuters"}, {"chunk_id": "chunk_2", "source_id": "reuters"}, {"chunk_id": "chunk_3", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_4", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_5", "source_id": "market_blog"}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Down-sample the dominant publisher and retrieve from others.
    """
    view = pack_view(brief)
    if not view or not view["total"]:
        return
    limit = ctx.options["max-publisher-pct"]
    for publisher, count in sorted(view["publishers"].items(), key=lambda item: (-item[1], item[0])):
        share = 100.0 * count / view["total"]
        if share > limit:
            yield Finding(f"{view['name']}: publisher {quoted(publisher)} holds {count} of {view['total']} chunks "
                          f"({_pct(share)}), over {_pct(limit)}")


@rule(
    "B326", "pack-low-credibility", kind=KIND,
    options={"min-tier-1-2-pct": Option((int, float), 50, "the least share of Tier 1 and 2 chunks (%)")},
)
def pack_low_credibility(brief: Brief, ctx):
    """
    ## What it does
    Reports an evidence pack whose Tier 1 and Tier 2 chunks are under 50% of it (setting
    `min-tier-1-2-pct`). Spec §4.2. The pack (§4.4) is the sidecar's `evidence_pack` or the store's `evidence_packs` row of the brief's
    synthesis. A chunk's publisher is its `publisher`, else its registry source's name up to " - ", else
    its `source_id`; its tier is the registry's, else the chunk's `credibility_tier`.

    ## Why is this bad?
    A pack of mostly secondary and low-trust sources cannot support a brief the reader will trust.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "market_blog"}, {"chunk_id": "chunk_3", "source_id": "market_blog"}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "reuters"}, {"chunk_id": "chunk_3", "source_id": "market_blog"}, {"chunk_id": "chunk_4", "source_id": "market_blog"}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Retrieve more Tier 1-2 evidence.
    """
    view = pack_view(brief)
    if not view or not view["total"]:
        return
    share = view["stats"]["tier_1_pct"] + view["stats"]["tier_2_pct"]
    if share < ctx.options["min-tier-1-2-pct"]:
        yield Finding(f"{view['name']}: Tier 1-2 chunks are {_pct(share)} of {view['total']}, "
                      f"under {_pct(ctx.options['min-tier-1-2-pct'])}")


@rule(
    "B327", "pack-tier-4-excess", kind=KIND,
    options={"max-tier-4-pct": Option((int, float), 15, "the largest share of Tier 4 chunks (%)")},
)
def pack_tier_4_excess(brief: Brief, ctx):
    """
    ## What it does
    Reports an evidence pack whose Tier 4 (monitor-only) chunks are over 15% of it (setting
    `max-tier-4-pct`). Spec §4.2. The pack (§4.4) is the sidecar's `evidence_pack` or the store's `evidence_packs` row of the brief's
    synthesis. A chunk's publisher is its `publisher`, else its registry source's name up to " - ", else
    its `source_id`; its tier is the registry's, else the chunk's `credibility_tier`.

    ## Why is this bad?
    Tier 4 sources are kept for minority-view discovery; they must not dominate retrieval.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_3", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_4", "source_id": "reuters"}, {"chunk_id": "chunk_5", "source_id": "reuters"}, {"chunk_id": "chunk_6", "source_id": "reuters"}, {"chunk_id": "chunk_7", "source_id": "zerohedge"}, {"chunk_id": "chunk_8", "source_id": "zerohedge"}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_3", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_4", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_5", "source_id": "reuters"}, {"chunk_id": "chunk_6", "source_id": "reuters"}, {"chunk_id": "chunk_7", "source_id": "reuters"}, {"chunk_id": "chunk_8", "source_id": "zerohedge"}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Down-sample the Tier 4 chunks.
    """
    view = pack_view(brief)
    if not view or not view["total"]:
        return
    share = view["stats"]["tier_4_pct"]
    if share > ctx.options["max-tier-4-pct"]:
        yield Finding(f"{view['name']}: Tier 4 chunks are {_pct(share)} of {view['total']}, "
                      f"over {_pct(ctx.options['max-tier-4-pct'])}")


@rule(
    "B328", "pack-size", kind=KIND,
    options={
        "min-chunks": Option(int, 20, "the fewest chunks a pack may hold (§4.1)"),
        "max-chunks": Option(int, 40, "the most chunks a pack may hold (§4.1; retrieval's default is 30)"),
    },
)
def pack_size(brief: Brief, ctx):
    """
    ## What it does
    Reports an evidence pack with fewer than 20 or more than 40 chunks (settings `min-chunks`,
    `max-chunks`; §4.1's retrieval default is 30). The pack (§4.4) is the sidecar's `evidence_pack` or the store's `evidence_packs` row of the brief's
    synthesis. A chunk's publisher is its `publisher`, else its registry source's name up to " - ", else
    its `source_id`; its tier is the registry's, else the chunk's `credibility_tier`.

    ## Why is this bad?
    A pack too small cannot be diverse; one too large was not bounded as the contract requires.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_3", "source_id": "reuters"}, {"chunk_id": "chunk_4", "source_id": "reuters"}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```toml title="pyproject.toml"
    [tool.citations.rules.B328]
    min-chunks = 4
    ```

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_3", "source_id": "reuters"}, {"chunk_id": "chunk_4", "source_id": "reuters"}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Retrieve within the configured bounds, or set them to the pipeline's.
    """
    view = pack_view(brief)
    if not view:
        return
    low, high = ctx.options["min-chunks"], ctx.options["max-chunks"]
    if not low <= view["total"] <= high:
        yield Finding(f"{view['name']} holds {view['total']} chunks, outside {low}-{high}")


@rule(
    "B329", "pack-stale-chunk", kind=KIND,
    options={
        "recency-days": Option(int, 30, "the oldest a chunk of a time-sensitive pack may be, in days before generated_at"),
        "time-sensitive": Option(bool, True, "treat packs as time-sensitive unless they say \"time_sensitive\": false"),
    },
)
def pack_stale_chunk(brief: Brief, ctx):
    """
    ## What it does
    Reports, in a time-sensitive evidence pack, chunks published more than 30 days before the pack's
    `generated_at` (setting `recency-days`; spec §4.1 and §6's abstain scenario 4). A chunk's date is
    its `published_at` (the store dates it by its document). A pack is time-sensitive unless it says
    `"time_sensitive": false` (setting `time-sensitive` flips the default).

    ## Why is this bad?
    Outdated evidence presented as today's is a false claim about the present.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases", "published_at": "2026-02-10T14:00:00Z"}, {"chunk_id": "chunk_2", "source_id": "reuters", "published_at": "2025-12-01T09:00:00Z"}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases", "published_at": "2026-02-10T14:00:00Z"}, {"chunk_id": "chunk_2", "source_id": "reuters", "published_at": "2026-01-20T09:00:00Z"}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Drop the stale chunks or mark the pack `"time_sensitive": false` when history is the point.
    """
    view = pack_view(brief)
    if not view or not brief.pack:  # (a view is only made of a pack)
        return
    sensitive = brief.pack.get("time_sensitive")
    if not (sensitive if isinstance(sensitive, bool) else ctx.options["time-sensitive"]):
        return
    generated = parse_iso_8601(brief.pack.get("generated_at"))
    if generated is None:
        return
    oldest = generated - datetime.timedelta(days=ctx.options["recency-days"])
    stale = []
    for chunk in view["chunks"]:
        published = parse_iso_8601(chunk.get("published_at"))
        if published is not None and published < oldest:
            stale.append(f"{chunk.get('chunk_id')} ({chunk.get('published_at')})")
    if stale:
        yield Finding(f"{view['name']}: {len(stale)} chunk{'s' if len(stale) > 1 else ''} older than "
                      f"{ctx.options['recency-days']} days before {brief.pack.get('generated_at')}: {', '.join(stale)}")


STAT_KEYS = ("unique_publishers", "tier_1_pct", "tier_2_pct", "tier_3_pct", "tier_4_pct", "max_publisher_pct")


@rule(
    "B330", "pack-diversity-stats-mismatch", kind=KIND,
    options={"tolerance": Option((int, float), 1.0, "percentage points a stored share may differ by (rounding)")},
)
def pack_diversity_stats_mismatch(brief: Brief, ctx):
    """
    ## What it does
    Recomputes an evidence pack's `diversity_stats` (§4.4) from its chunks and the registry and reports
    each stored figure that disagrees: `unique_publishers` exactly, the `*_pct` shares within 1
    percentage point (setting `tolerance`). The pack (§4.4) is the sidecar's `evidence_pack` or the store's `evidence_packs` row of the brief's
    synthesis. A chunk's publisher is its `publisher`, else its registry source's name up to " - ", else
    its `source_id`; its tier is the registry's, else the chunk's `credibility_tier`.

    ## Why is this bad?
    Retry logging and review rely on these figures (§3.2); stored stats that do not describe the pack
    hide the dominance or the low-tier share they exist to show.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "reuters"}], "diversity_stats": {"unique_publishers": 2, "tier_1_pct": 50, "tier_2_pct": 50, "tier_3_pct": 0, "tier_4_pct": 0, "max_publisher_pct": 35}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "reuters"}], "diversity_stats": {"unique_publishers": 2, "tier_1_pct": 50, "tier_2_pct": 50, "tier_3_pct": 0, "tier_4_pct": 0, "max_publisher_pct": 50}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Store the figures the pack has (or recompute them when the pack changes).
    """
    view = pack_view(brief)
    if not view or not brief.pack:  # (a view is only made of a pack)
        return
    stored = brief.pack.get("diversity_stats")
    if not isinstance(stored, dict):
        return
    for key in STAT_KEYS:
        value = _number(stored.get(key))
        if value is None:
            continue
        actual = view["stats"][key]
        if key == "unique_publishers":
            if value != actual:
                yield Finding(f"{view['name']}: diversity_stats.unique_publishers is {stored[key]}, "
                              f"the chunks have {actual} ({', '.join(sorted(view['publishers']))})")
        elif abs(value - actual) > ctx.options["tolerance"]:
            yield Finding(f"{view['name']}: diversity_stats.{key} is {stored[key]}, recomputed {_pct(actual)}")


SIMILARITY = ("semantic_similarity", "similarity")
RECENCY = ("recency_score", "recency")
CREDIBILITY = ("credibility_score", "credibility")


def _component(chunk: dict, names: tuple[str, ...]) -> float | None:
    """The first of ``names`` the chunk has, if a number."""
    for name in names:
        if name in chunk:
            return _number(chunk[name])
    return None


@rule(
    "B331", "pack-score-mismatch", kind=KIND,
    options={
        "weights": Option(list, [0.5, 0.3, 0.2], "weights of similarity, recency and credibility (§4.3)", items=(int, float)),
        "tolerance": Option((int, float), 0.005, "how far a stored score may be from the formula"),
    },
)
def pack_score_mismatch(brief: Brief, ctx):
    """
    ## What it does
    Reports a pack chunk whose stored `score` is not `0.5*similarity + 0.3*recency + 0.2*credibility`
    (spec §4.3; settings `weights`, `tolerance`) when all three components are stored
    (`semantic_similarity`/`similarity`, `recency_score`/`recency`, `credibility_score`/`credibility`).

    ## Why is this bad?
    A score that the formula does not give means retrieval ranked by something other than the
    contract's weighting, usually without the credibility term.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases", "score": 0.97, "similarity": 0.9, "recency": 1.0, "credibility": 1.0}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases", "score": 0.95, "similarity": 0.9, "recency": 1.0, "credibility": 1.0}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Store the score the formula gives, or the components it was computed from.
    """
    view = pack_view(brief)
    if not view:
        return
    weights = ctx.options["weights"]
    if len(weights) != 3:
        return
    tolerance = ctx.options["tolerance"]
    for chunk in view["chunks"]:
        score = _number(chunk.get("score"))
        if score is None:
            continue
        parts = [_component(chunk, SIMILARITY), _component(chunk, RECENCY), _component(chunk, CREDIBILITY)]
        if None in parts:
            continue
        expected = sum((weights[0] * parts[0], weights[1] * parts[1], weights[2] * parts[2]))  # added as sum() adds
        if abs(score - expected) > tolerance:
            yield Finding(f"{view['name']}: chunk {chunk.get('chunk_id')} has score {chunk['score']}, the formula gives "
                          f"{expected:.4f} ({weights[0]}*{parts[0]} + {weights[1]}*{parts[1]} + {weights[2]}*{parts[2]})")


@rule(
    "B332", "pack-credibility-mismatch", kind=KIND,
    options={"scores": Option(list, [1.0, 0.8, 0.6, 0.3], "credibility scores of Tiers 1-4 (§4.3)", items=(int, float))},
)
def pack_credibility_mismatch(brief: Brief, ctx):
    """
    ## What it does
    Reports a pack chunk whose stored `credibility_tier` is not its source's registry tier, or whose
    stored credibility score is not §4.3's for the tier (Tier 1: 1.0, 2: 0.8, 3: 0.6, 4: 0.3; setting
    `scores`).

    ## Why is this bad?
    A chunk ranked or counted at a tier its source does not have skews both the retrieval score and
    the diversity figures.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "market_blog", "credibility_tier": 2, "credibility_score": 0.8}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "market_blog", "credibility_tier": 3, "credibility_score": 0.6}]}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Store the registry's tier and the mapping's score.
    """
    view = pack_view(brief)
    if not view:
        return
    scores = ctx.options["scores"]
    for chunk, tier in zip(view["chunks"], view["tiers"], strict=True):
        source = source_of(brief, chunk.get("source_id"))
        registry_tier = _int(source.credibility_tier) if source is not None else None
        stored_tier = chunk.get("credibility_tier")
        if registry_tier is not None and stored_tier is not None and stored_tier != registry_tier:
            yield Finding(f"{view['name']}: chunk {chunk.get('chunk_id')} has credibility_tier {stored_tier}, "
                          f"the registry gives {source.id} Tier {registry_tier}")
        value = _component(chunk, CREDIBILITY)
        if value is not None and tier is not None and 1 <= tier <= len(scores) and abs(value - scores[tier - 1]) > 1e-9:
            yield Finding(f"{view['name']}: chunk {chunk.get('chunk_id')} has credibility score {value:g}, "
                          f"Tier {tier} maps to {scores[tier - 1]:g}")
