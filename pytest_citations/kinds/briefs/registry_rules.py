'''Rules on a brief's citations against the source registry (B3xx, spec §4, §5 and §7.2): every
source listed (B311) and every URL on its source's site (B312), no quote span of a paywalled
source (B314), and the References tags the registry asks for (B315, B316); a registry that cannot
be read (B319).'''

from __future__ import annotations

from pytest_citations.core.diagnostics import quoted
from pytest_citations.kinds.briefs.citations import _at, _objects
from pytest_citations.kinds.briefs.model import Brief
from pytest_citations.rules import Finding, rule

KIND = "briefs"


@rule("B311", "unknown-source-id", kind=KIND)
def unknown_source_id(brief: Brief, ctx):
    """
    ## What it does
    Reports a citation whose `source_id` is not an `id` in the source registry
    (`source_registry.yaml` at the repository root, or the `registry` setting), and, once per brief,
    a brief whose citations name sources while that registry file does not exist: nothing the
    registry decides (source ids, URLs, tiers, paywall policies) can then be checked.

    ## Why is this bad?
    Tiers, tags and paywall policy all come from the registry: a source it does not list has none,
    so none of the contract's quality rules can apply to it.

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
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "fed_blog", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Use the registry's id for the source, or add the source to the registry; without a registry, add
    one, or point the `registry` setting at it.
    """
    objects = list(_objects(brief))
    if brief.registry is None:
        if objects and any(isinstance(c.get("source_id"), str) for _, c, _ in objects):
            yield _at(objects[0][2], (
                f"the source registry {brief.registry_rel} does not exist, so no citation's source_id, URL, tier or "
                "paywall policy can be checked: add it at the repository root, or set registry under "
                "[tool.citations.kinds.briefs] to the file that lists the sources"
            ))
        return
    for number, citation, marker in objects:
        source_id = citation.get("source_id")
        if isinstance(source_id, str) and source_id and source_id not in brief.registry.sources:
            yield _at(marker, f"citation [{number}]: source_id {quoted(source_id)} is not in {brief.registry.rel}")


@rule("B312", "url-registry-mismatch", kind=KIND)
def url_registry_mismatch(brief: Brief, ctx):
    """
    ## What it does
    Reports a citation whose `url` does not match its source's registry entry: the entry's `url` by
    scheme and host (the same host or a subdomain of it; a leading `www.` on the registry host is
    ignored; an `https` citation matches an `http` entry), or one of the hosts the source publishes on,
    named by the entry's `article_hosts` list or the `source-hosts` setting. With `url-match =
    "domain"` registrable domains are compared instead (`apps.bea.gov` matches `www.bea.gov`). The
    message says which of these would make the URL match.

    ## Why is this bad?
    A URL on another site than the source it claims is a mislabelled citation: its tier and paywall
    policy are someone else's.

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
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov.example.com/a",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Correct the `source_id` or the `url`. When the source does publish there (a registry naming a feed
    on another site, such as `reutersagency.com` for articles on `reuters.com`), list the host in the
    entry's `article_hosts: [reuters.com]`, or in the setting `source-hosts =
    ["reuters_business = reuters.com"]`; for sibling hosts of one domain set `url-match = "domain"`.
    """
    from pytest_citations.kinds.briefs.source_registry import source_url_matches

    if brief.registry is None:
        return
    mode = ctx.kind_options.get("url-match", "host")
    for number, citation, marker in _objects(brief):
        source = brief.registry.sources.get(citation.get("source_id"))
        url = citation.get("url")
        if source is None or not isinstance(url, str) or not url or not (isinstance(source.url, str) or source.article_hosts):
            continue
        if not source_url_matches(url, source, mode, brief.source_hosts.get(source.id, ())):
            listed = f"the registry URL of {source.id} ({source.url})" if isinstance(source.url, str) else f"the registry entry of {source.id}"
            if source.article_hosts:
                listed += f" nor its article_hosts ({', '.join(source.article_hosts)})"
            yield _at(marker, f"citation [{number}]: url {quoted(url, plain=True)} does not match {listed}{_how_to_match(url, source, mode, brief.registry.rel)}")


def _how_to_match(url: str, source, mode: str, registry_rel: str) -> str:
    """The end of B312's message: what would make ``url`` match ``source``, when it is a setting
    or a registry field."""
    from pytest_citations.kinds.briefs.source_registry import host_of, registrable_domain, url_matches

    host = host_of(url)
    if host is None:
        return ": it is not an http(s) URL with a host"
    listed = host_of(source.url) if isinstance(source.url, str) else None
    if listed is not None and url[:7].lower() == "http://" and url_matches("https://" + url[7:], source.url, mode):
        return ": the citation's URL is http, the registry's https"
    if mode == "host" and listed is not None and registrable_domain(host) == registrable_domain(listed):
        return (f": both hosts are on {registrable_domain(host)}: set url-match = \"domain\", "
                f"or list {host} in its article_hosts in {registry_rel}")
    return (f": if {source.id} publishes on {host}, list the host in its article_hosts in {registry_rel} "
            f"(or add \"{source.id} = {host}\" to the source-hosts setting)")


@rule("B314", "quote-span-on-paywalled-source", kind=KIND)
def quote_span_on_paywalled_source(brief: Brief, ctx):
    """
    ## What it does
    Reports a citation with a `quote_span` whose source the registry marks `paywall_policy:
    metadata_only`.

    ## Why is this bad?
    Spec §5: paywalled full text must never be stored, extracted or fabricated; only the headline or
    RSS snippet (`snippet_span`) may be cited.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - Stocks fell. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Financial Times. "Stocks tumble". Feb 10, 2026. https://www.ft.com/content/1 [Paywall]
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "ft_markets", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.ft.com/content/1",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z", "quote_span": {"start": 0, "end": 9, "text": "Stocks fell"}}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - Stocks fell. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Financial Times. "Stocks tumble". Feb 10, 2026. https://www.ft.com/content/1 [Paywall]
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "ft_markets", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.ft.com/content/1",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z", "snippet_span": {"text": "Stocks tumble"}}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Remove the `quote_span` (keep a `snippet_span`); `citations brief validate --fix` strips it.
    """
    if brief.registry is None:
        return
    for number, citation, marker in _objects(brief):
        source = brief.registry.sources.get(citation.get("source_id"))
        if source is not None and source.paywall_policy == "metadata_only" and citation.get("quote_span") is not None:
            yield _at(marker, f"citation [{number}]: quote_span on {source.id}, whose paywall_policy is metadata_only")


def _tag_rule(brief: Brief, tag: str, wants) -> list[Finding]:
    found: list[Finding] = []
    if brief.registry is None:
        return found
    for number, citation, _ in _objects(brief):
        source = brief.registry.sources.get(citation.get("source_id"))
        entry = brief.entry(number)
        if source is not None and entry is not None and entry.reference is not None and wants(source) and tag not in entry.tags:
            found.append(Finding(f"References entry [{number}] cites {source.id} and lacks the [{tag}] tag", entry.line, entry.col))
    return found


@rule("B315", "missing-paywall-tag", kind=KIND)
def missing_paywall_tag(brief: Brief, ctx):
    """
    ## What it does
    Reports a References entry citing a source whose registry `paywall_policy` is `metadata_only`
    without the `[Paywall]` tag.

    ## Why is this bad?
    Spec §5 and §7.2: the reader must know a link is paywalled and that the citation rests on the
    headline or snippet only.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - Stocks fell. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Financial Times. "Stocks tumble". Feb 10, 2026. https://www.ft.com/content/1
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "ft_markets", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.ft.com/content/1",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - Stocks fell. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Financial Times. "Stocks tumble". Feb 10, 2026. https://www.ft.com/content/1 [Paywall]
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "ft_markets", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.ft.com/content/1",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Append ` [Paywall]` to the entry.
    """
    yield from _tag_rule(brief, "Paywall", lambda s: s.paywall_policy == "metadata_only")


@rule("B316", "missing-monitor-only-tag", kind=KIND)
def missing_monitor_only_tag(brief: Brief, ctx):
    """
    ## What it does
    Reports a References entry citing a Tier 4 source (`credibility_tier: 4` in the registry) without
    the `[Monitor-only source]` tag.

    ## Why is this bad?
    Tier 4 sources are low-trust, kept for minority-view discovery; spec §7.2 requires the reader to
    be told.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - Deflation looms. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Zero Hedge. "Deflation warnings". Feb 11, 2026. https://www.zerohedge.com/a
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "zerohedge", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.zerohedge.com/a",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - Deflation looms. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Zero Hedge. "Deflation warnings". Feb 11, 2026. https://www.zerohedge.com/a [Monitor-only source]
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "zerohedge", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.zerohedge.com/a",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Append ` [Monitor-only source]` to the entry.
    """
    yield from _tag_rule(brief, "Monitor-only source", lambda s: s.credibility_tier == 4)


