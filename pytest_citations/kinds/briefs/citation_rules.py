'''Rules on a brief's stored citation objects (B3xx, spec §1 and §2): an object stored for every
marker (B307) with every required field (B308), its document and chunk in the evidence store
(B309; B310 warns when none is configured), its timestamps in order (B313) and its URL the one
its References entry shows (B336); a sidecar or store that cannot be read (B318).'''

from __future__ import annotations

import operator
import re
from typing import cast

from pytest_citations.core.diagnostics import Severity, quoted
from pytest_citations.core.timestamps import parse_iso_8601
from pytest_citations.kinds.briefs.citations import _at, _objects
from pytest_citations.kinds.briefs.model import REQUIRED_FIELDS, Brief, Entry
from pytest_citations.kinds.briefs.resolution import sidecar_candidates
from pytest_citations.rules import Finding, rule

KIND = "briefs"


_REQUIRED_VALUES = operator.itemgetter(*REQUIRED_FIELDS)


def _has_every_field(citation: dict) -> bool:
    """Whether every required field of ``citation`` is a string with more than blanks, in C calls
    (B308 tests them one by one only for a citation that fails this): a missing field raises
    KeyError, a value that is no string TypeError (``str.strip`` takes strings only)."""
    try:
        return all(map(str.strip, _REQUIRED_VALUES(citation)))
    except (KeyError, TypeError):
        return False


@rule("B307", "missing-citation-object", kind=KIND)
def missing_citation_object(brief: Brief, ctx):
    """
    ## What it does
    Reports a marker `[N]` with no stored citation object (spec §1): neither the brief's sidecar
    `<brief>.citations.json` (`{"citations": {"N": {...}}}`) nor the evidence store holds one for it.

    ## Why is this bad?
    The rendered `[N]` is presentation only; the validator works on stored objects (§2). A marker
    with no object cites evidence nobody retrieved.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1][2]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    [2] Reuters. "Fed holds". Feb 10, 2026. https://www.reuters.com/b
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
    Store the citation object under the marker's number, or remove the marker.
    """
    numbers = brief.cited_numbers()
    if brief.citations is None:
        if numbers and brief.citation_source is None:  # an unreadable sidecar is B318's
            marker = brief.first_marker(numbers[0])
            yield _at(marker, f"no stored citation objects: no sidecar {sidecar_candidates(brief.rel)[0]} and no synthesis for this brief in an evidence store")
        return
    for number in numbers:
        if str(number) not in brief.citations:
            yield _at(brief.first_marker(number), f"marker [{number}] has no stored citation object in {brief.citation_source}")


@rule("B308", "citation-missing-field", kind=KIND)
def citation_missing_field(brief: Brief, ctx):
    """
    ## What it does
    Reports a stored citation object that lacks a required field of spec §1 (`id`, `source_id`,
    `publisher`, `doc_id`, `chunk_id`, `url`, `title`, `published_at`, `fetched_at`) or holds one that
    is not a non-empty string.

    ## Why is this bad?
    Without its URL or publication date a citation cannot be verified; without `source_id` it cannot
    be checked against the registry. The contract rejects such citations.

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
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": null,
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
    Store every required field; `citations brief validate --fix` removes the citation from the bullet.
    """
    for number, citation, marker in _objects(brief):
        if _has_every_field(citation):
            continue
        missing = [f for f in REQUIRED_FIELDS if not (isinstance(value := citation.get(f), str) and value.strip())]
        if missing:
            yield _at(marker, f"citation [{number}] lacks required field{'s' if len(missing) > 1 else ''} {', '.join(missing)}")


@rule("B309", "citation-not-in-store", kind=KIND)
def citation_not_in_store(brief: Brief, ctx):
    """
    ## What it does
    With an evidence store configured (`evidence-store`), reports a citation whose `doc_id` is not a
    stored document, whose `chunk_id` is not a stored chunk, or whose chunk belongs to another
    document. The store is opened read-only.

    ## Why is this bad?
    A citation must point at evidence that was actually retrieved and stored; an id the store does
    not hold is fabricated or was lost.

    ## Example

    Bad:

    ```toml title="pyproject.toml"
    [tool.citations.kinds.briefs]
    evidence-store = "evidence.sql"
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

    ```sql title="evidence.sql"
    CREATE TABLE documents (id TEXT PRIMARY KEY, source_id TEXT, url TEXT, title TEXT,
                            published_at TEXT, fetched_at TEXT);
    CREATE TABLE chunks (id TEXT PRIMARY KEY, doc_id TEXT, ordinal INTEGER, text TEXT);
    CREATE TABLE citations (id TEXT PRIMARY KEY);
    CREATE TABLE syntheses (id TEXT PRIMARY KEY, brief_path TEXT);
    CREATE TABLE synthesis_markers (synthesis_id TEXT, marker INTEGER, citation_id TEXT);
    INSERT INTO documents (id, source_id, url) VALUES ('doc_2', 'fed_press_releases', 'https://www.federalreserve.gov/a.htm');
    INSERT INTO chunks (id, doc_id) VALUES ('chunk_2', 'doc_2');
    ```

    Good:

    ```toml title="pyproject.toml"
    [tool.citations.kinds.briefs]
    evidence-store = "evidence.sql"
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

    ```sql title="evidence.sql"
    CREATE TABLE documents (id TEXT PRIMARY KEY, source_id TEXT, url TEXT, title TEXT,
                            published_at TEXT, fetched_at TEXT);
    CREATE TABLE chunks (id TEXT PRIMARY KEY, doc_id TEXT, ordinal INTEGER, text TEXT);
    CREATE TABLE citations (id TEXT PRIMARY KEY);
    CREATE TABLE syntheses (id TEXT PRIMARY KEY, brief_path TEXT);
    CREATE TABLE synthesis_markers (synthesis_id TEXT, marker INTEGER, citation_id TEXT);
    INSERT INTO documents (id, source_id, url) VALUES ('doc_1', 'fed_press_releases', 'https://www.federalreserve.gov/a.htm');
    INSERT INTO chunks (id, doc_id) VALUES ('chunk_1', 'doc_1');
    ```

    ## Fix
    Cite the stored document and chunk the claim came from.
    """
    store = brief.store
    if store is None:
        return
    objects = _objects(brief)
    if not store.holds_every_id():
        store.preload(*([c[key] for _, c, _ in objects if isinstance(c.get(key), str) and c[key]] for key in ("doc_id", "chunk_id")))
    for number, citation, marker in objects:
        doc_id, chunk_id = citation.get("doc_id"), citation.get("chunk_id")
        if isinstance(doc_id, str) and doc_id and not store.has_document(doc_id):
            yield _at(marker, f"citation [{number}]: doc_id {quoted(doc_id)} is not in the evidence store {store.rel}")
        if isinstance(chunk_id, str) and chunk_id:
            owner = store.chunk_document(chunk_id)
            if owner is None:
                yield _at(marker, f"citation [{number}]: chunk_id {quoted(chunk_id)} is not in the evidence store {store.rel}")
            elif isinstance(doc_id, str) and owner != doc_id:
                yield _at(marker, f"citation [{number}]: chunk_id {quoted(chunk_id)} belongs to document {quoted(owner)}, not {quoted(doc_id)}")


@rule("B310", "evidence-store-not-configured", kind=KIND, severity=Severity.WARNING)
def evidence_store_not_configured(brief: Brief, ctx):
    """
    ## What it does
    Warns, once per brief, that no evidence store is configured, so `doc_id`/`chunk_id` resolution
    (spec §3 step 3) cannot be proven. Set `evidence-store` under `[tool.citations.kinds.briefs]`.

    ## Why is this bad?
    A sidecar says which document and chunk a citation names, but only the store can say that they
    exist. A check that cannot prove it must say so rather than pass.

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

    ```toml title="pyproject.toml"
    [tool.citations.kinds.briefs]
    evidence-store = "evidence.sql"
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

    ```sql title="evidence.sql"
    CREATE TABLE documents (id TEXT PRIMARY KEY, source_id TEXT, url TEXT, title TEXT,
                            published_at TEXT, fetched_at TEXT);
    CREATE TABLE chunks (id TEXT PRIMARY KEY, doc_id TEXT, ordinal INTEGER, text TEXT);
    CREATE TABLE citations (id TEXT PRIMARY KEY);
    CREATE TABLE syntheses (id TEXT PRIMARY KEY, brief_path TEXT);
    CREATE TABLE synthesis_markers (synthesis_id TEXT, marker INTEGER, citation_id TEXT);
    INSERT INTO documents (id, source_id, url) VALUES ('doc_1', 'fed_press_releases', 'https://www.federalreserve.gov/a.htm');
    INSERT INTO chunks (id, doc_id) VALUES ('chunk_1', 'doc_1');
    ```

    ## Fix
    Build a store with `citations store init` and `citations store import`, and name it in the settings.
    """
    if brief.store is None and not ctx.kind_options.get("evidence-store") and brief.citations:
        marker = brief.first_marker(brief.cited_numbers()[0]) if brief.cited_numbers() else None
        line, col = (marker.line, marker.col) if marker else (1, 1)
        yield Finding("no evidence store is configured: doc_id/chunk_id resolution is not proven for this brief", line, col)


@rule("B313", "invalid-citation-timestamp", kind=KIND)
def invalid_citation_timestamp(brief: Brief, ctx):
    """
    ## What it does
    Reports a citation whose `published_at` or `fetched_at` is not an ISO 8601 date or date-time,
    or whose `fetched_at` is before its `published_at`.

    ## Why is this bad?
    Recency rules and the reader's trust depend on these dates; a document cannot have been fetched
    before it was published.

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
       "fetched_at": "2026-02-09T02:15:00Z"}}}
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
    Store the timestamps as ISO 8601 (`2026-02-10T14:00:00Z`), as published and as fetched.
    """
    for number, citation, marker in _objects(brief):
        moments = {}
        for key in ("published_at", "fetched_at"):
            value = citation.get(key)
            if value is None or value == "":
                continue  # B308 reports a missing field
            moments[key] = parse_iso_8601(value)
            if moments[key] is None:
                yield _at(marker, f"citation [{number}]: {key} {quoted(value)} is not an ISO 8601 date-time")
        published, fetched = moments.get("published_at"), moments.get("fetched_at")
        if published and fetched and fetched < published:
            yield _at(
                marker,
                f"citation [{number}]: fetched_at {citation['fetched_at']} is before published_at {citation['published_at']}",
            )


@rule("B336", "reference-url-mismatch", kind=KIND)
def reference_url_mismatch(brief: Brief, ctx):
    """
    ## What it does
    Reports a References entry whose URL is not its stored citation object's `url`: a URL on another
    site, or another page of the same site. The two are compared as spec normalization compares URLs
    (`citations-jsonl-v1.md`: the case of scheme and host, default ports, tracking parameters, the
    fragment, a trailing slash), a leading `www.` and the scheme aside. An entry that shortens its URL
    with an ellipsis, as spec §7.2 and §10 do (`https://www.federalreserve.gov/...`), must name the
    citation's site and begin its URL; `https://...` names none and is not compared. The publisher,
    title and date of the entry are not compared (docs/briefs.md says why).

    ## Why is this bad?
    The validator checks the stored object, but the reader follows the printed URL (spec §11.6: the
    user can verify). An entry that links elsewhere sends the reader to a page the claim was never
    checked against: a phantom citation in all but name.

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
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.reuters.com/a
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
    Print the stored citation's URL in the entry, or store the object of the page the entry names.
    """
    citations = brief.citations or {}
    for number in dict.fromkeys(entry.number for entry in brief.entries):
        entry = cast(Entry, brief.entry(number))  # (the number of an entry has a first entry)
        citation = citations.get(str(number))
        stored = citation.get("url") if isinstance(citation, dict) else None
        if entry.url is None or not isinstance(stored, str):
            continue  # an entry not in §7.2's form is B305's, a missing object B307's, a missing url B308's
        problem = _reference_url_problem(entry.url, stored)
        if problem is not None:
            yield Finding(f"References entry [{number}] {problem}", entry.line, entry.col)


def _reference_url_problem(shown: str, stored: str) -> str | None:
    """How the URL an entry shows differs from its citation's stored URL; None when it does not
    (or either names no http(s) host: the entry's ``https://...``, a stored url B308/B312 report)."""
    from pytest_citations.kinds.briefs.source_registry import host_of

    elided = shown.endswith(("...", "\u2026"))
    written = shown.rstrip(".\u2026") if elided else shown
    shown_host, stored_host = host_of(written), host_of(stored)
    if shown_host is None or stored_host is None:
        return None
    if _site(shown_host) != _site(stored_host):
        return (f"links to {shown_host} ({quoted(shown, plain=True)}), but its stored citation object's url is on "
                f"{stored_host} ({quoted(stored, plain=True)})")
    if elided:
        if _address_on_site(stored, normalize=False).startswith(_address_on_site(written, normalize=False)):
            return None
        return f"links to {quoted(shown, plain=True)}, which does not begin its stored citation object's url {quoted(stored, plain=True)}"
    if _address_on_site(shown) == _address_on_site(stored):
        return None
    return f"links to {quoted(shown, plain=True)}, not to its stored citation object's url {quoted(stored, plain=True)}"


def _site(host: str) -> str:
    """A host without its leading ``www.``: the same site for a reader."""
    return host[4:] if host.startswith("www.") else host


_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")


def _address_on_site(url: str, normalize: bool = True) -> str:
    """What follows a URL's scheme and host (path, query, fragment), after spec normalization
    (``normalize``, when the URL allows it)."""
    url = _normalized(url.strip()) if normalize else url.strip()
    found = _AUTHORITY.match(url)
    return url[found.end() :] if found else url


def _normalized(url: str) -> str:
    """``url`` under the url-citations spec's normalization; as it is when it is no absolute URL."""
    from pytest_citations.kinds.url_citations.urls import NotAbsoluteURL, normalize_url

    try:
        return normalize_url(url)
    except NotAbsoluteURL:
        return url


