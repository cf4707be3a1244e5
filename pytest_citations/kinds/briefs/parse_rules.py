"""The rules under which the briefs kind's reader reports what it cannot read: the
reader reports through these rule objects (``RULE.report(finding)``); they have no check of their own."""

from pytest_citations.rules import rule

KIND = "briefs"


@rule("B319", "source-registry-invalid", kind=KIND, scope="engine")
def source_registry_invalid():
    """
    ## What it does
    Reports a source registry that cannot be read safely: a YAML syntax error, an anchor or alias, a
    tag outside the core schema, a duplicate key or source id, or no `sources:` list; an entry's
    `article_hosts` that is not a list of host names; and an item of the `source-hosts` setting that is
    not `"source_id = host"` or names a source the registry lacks.

    ## Why is this bad?
    Tiers and paywall policies from a registry that loaders read differently (or that can run code)
    cannot be trusted.

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
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        url: &u https://www.federalreserve.gov/
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
    Write the registry as plain YAML: a `sources:` list of mappings with unique ids; write hosts alone
    (`www.reuters.com`, not a URL).
    """
    pass


@rule("B318", "citation-objects-unreadable", kind=KIND, scope="engine")
def citation_objects_unreadable():
    """
    ## What it does
    Reports a sidecar `<brief>.citations.json` that is not strict JSON (duplicate keys, NaN, too
    deep; the message gives the line and column in the sidecar) or not of the shape
    `{"citations": {"1": {...}}}`, and an `evidence-store` that is missing, outside the repository
    or not a store built by `citations store init`.

    ## Why is this bad?
    The brief's citations cannot be resolved at all; every marker would otherwise look unresolved,
    or worse, pass unchecked.

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
    {"citations": {"1": {"id": "a"}, "1": {"id": "b"}}}
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

    ## Fix
    Write the sidecar as one JSON object mapping marker numbers to citation objects; build the store
    with `citations store init`.
    """
    pass
