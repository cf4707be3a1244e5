'''Quality rules on grounding (brief-citation-contract.md §1 and §5): a quote span true to the
stored text (B322) and inside it (B323), and no full text of a paywalled source under any field
(B324). docs/brief-quality.md explains each decision.'''

from __future__ import annotations

from typing import Any, cast

from pytest_citations.kinds.briefs.citations import _int, _objects, source_of
from pytest_citations.kinds.briefs.model import Brief, Marker
from pytest_citations.kinds.briefs.resolution import chunk_text
from pytest_citations.rules import Finding, Option, rule

KIND = "briefs"


def escaped(text: str, limit: int = 160) -> str:
    """A double-quoted, escaped rendering: control, format and other invisible characters shown."""
    out = []
    for char in text[:limit]:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char != " " and (not char.isprintable() or char.isspace()):
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        else:
            out.append(char)
    return '"' + "".join(out) + ('..."' if len(text) > limit else '"')


def _quote_checks(brief: Brief) -> list[tuple[Any, str, str]]:
    """(marker, problem kind, message) for every citation's quote_span; computed once per brief
    for the two rules that report them."""
    if "quote_checks" not in brief.memo:
        brief.memo["quote_checks"] = list(_check_quotes(brief))
    return brief.memo["quote_checks"]


def _check_quotes(brief: Brief):
    for number, citation, marker in _objects(brief):
        span = citation.get("quote_span")
        if not isinstance(span, dict):
            continue
        stored = chunk_text(brief, citation.get("chunk_id"), citation.get("doc_id"))
        if stored is None:
            continue
        text, what = stored
        start, end, quoted = _int(span.get("start")), _int(span.get("end")), span.get("text")
        if start is None or end is None or start < 0 or end < start or end > len(text):
            yield marker, "range", (
                f"citation [{number}]: quote_span [{span.get('start')}:{span.get('end')}) is outside the stored "
                f"text of {what} ({len(text)} code points)"
            )
            continue
        if not isinstance(quoted, str):
            continue
        actual = text[start:end]
        if actual != quoted:
            first = next((i for i, (a, b) in enumerate(zip(quoted, actual, strict=False)) if a != b), min(len(quoted), len(actual)))
            yield marker, "text", (
                f"citation [{number}]: quote_span text differs from {what} [{start}:{end}) at offset {start + first}: "
                f"quoted {escaped(quoted)}, stored {escaped(actual)}"
            )


_QUOTE_TEXT = "Officials kept policy settings unchanged."
_QUOTE_CHUNKS = {"chunk_1": {"text": "Federal Reserve officials kept policy settings unchanged."}}


@rule("B322", "quote-span-mismatch", kind=KIND)
def quote_span_mismatch(brief: Brief, ctx):
    r"""
    ## What it does
    Reports a citation whose `quote_span.text` is not the stored text at `[start:end)` (code-point
    offsets into the stored chunk, or into the document when no chunk text is stored). The text
    comes from the evidence store's `chunks.text`, else from the sidecar's `chunks` / `documents`
    maps (`{"chunks": {"chunk_1": {"text": "..."}}}`). The message gives the first differing offset
    and both texts, escaped (invisible characters shown as `\uXXXX`).

    ## Why is this bad?
    A quote is the strongest evidence a brief offers; one that is not in the source is fabricated,
    however close it reads.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed kept policy unchanged. [1]

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
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z", "quote_span": {"start": 16, "end": 57, "text": "Officials kept policy settings unchanged."}}
    },
    "chunks": {"chunk_1": {"text": "Federal Reserve officials kept policy settings unchanged."}}}
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
    - The Fed kept policy unchanged. [1]

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
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z", "quote_span": {"start": 16, "end": 57, "text": "officials kept policy settings unchanged."}}
    },
    "chunks": {"chunk_1": {"text": "Federal Reserve officials kept policy settings unchanged."}}}
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
    Quote the stored text exactly, with the offsets it has there.
    """
    for marker, kind, message in _quote_checks(brief):
        if kind == "text":
            yield Finding(message, marker.line, marker.col)


@rule("B323", "quote-span-out-of-range", kind=KIND)
def quote_span_out_of_range(brief: Brief, ctx):
    """
    ## What it does
    Reports a citation whose `quote_span` offsets are not integers with `0 <= start <= end <= length`
    of the stored chunk (or document) text.

    ## Why is this bad?
    Offsets outside the text cannot locate the quote: the span was computed against another text,
    or the stored text was truncated.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed kept policy unchanged. [1]

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
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z", "quote_span": {"start": 16, "end": 90, "text": "Officials kept policy settings unchanged."}}
    },
    "chunks": {"chunk_1": {"text": "Federal Reserve officials kept policy settings unchanged."}}}
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
    - The Fed kept policy unchanged. [1]

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
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z", "quote_span": {"start": 16, "end": 57, "text": "officials kept policy settings unchanged."}}
    },
    "chunks": {"chunk_1": {"text": "Federal Reserve officials kept policy settings unchanged."}}}
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
    Recompute the offsets against the stored text.
    """
    for marker, kind, message in _quote_checks(brief):
        if kind == "range":
            yield Finding(message, marker.line, marker.col)


FULL_TEXT_FIELDS = [
    "quote", "quote_text", "quotation", "full_text", "fulltext", "body", "body_text", "text", "content",
    "excerpt", "passage", "extract", "extracted_text", "article_text",
]


def paywalled_full_text_fields(citation: dict, names: list[str]) -> list[str]:
    """Fields other than ``quote_span`` (B314) and ``snippet_span`` that carry full text."""
    found = []
    for key, value in citation.items():
        if key in ("quote_span", "snippet_span"):
            continue
        if key in names and value not in (None, "", {}, []):
            found.append(key)
        elif isinstance(value, dict) and isinstance(value.get("text"), str) and value["text"].strip():
            found.append(key)  # a span under another name
    return found


@rule(
    "B324", "paywalled-full-text", kind=KIND,
    options={"fields": Option(list, FULL_TEXT_FIELDS, "citation fields that hold full text", items=str)},
)
def paywalled_full_text(brief: Brief, ctx):
    """
    ## What it does
    Reports a citation of a `paywall_policy: metadata_only` source that carries full text under a
    field other than `quote_span` (B314 reports that one): `body_text`, `excerpt`, `full_text`... (setting
    `fields`), or any object with a `text` other than `snippet_span`.

    ## Why is this bad?
    Spec §5: paywalled full text must never be stored or fabricated, whatever the field is called.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - Stocks fell on inflation data. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Financial Times. "Title 1". Feb 10, 2026. https://www.ft.com/content/c [Paywall]
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "ft_markets", "publisher": "Financial Times", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.ft.com/content/c", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z", "excerpt": "Stocks tumbled on Tuesday after consumer prices rose faster than forecast."}
    }}
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
    - Stocks fell on inflation data. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Financial Times. "Title 1". Feb 10, 2026. https://www.ft.com/content/c [Paywall]
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "ft_markets", "publisher": "Financial Times", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.ft.com/content/c", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z", "snippet_span": {"text": "Stocks tumble as CPI exceeds forecasts"}}
    }}
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
    Remove the field (keep a `snippet_span`); `citations brief validate --fix` strips it.
    """
    if brief.registry is None:
        return
    for number in brief.cited_numbers():
        citation = (brief.citations or {}).get(str(number))
        if not isinstance(citation, dict):
            continue
        source = source_of(brief, citation.get("source_id"))
        if source is None or source.paywall_policy != "metadata_only":
            continue
        fields = paywalled_full_text_fields(citation, ctx.options["fields"])
        if fields:
            marker = cast(Marker, brief.first_marker(number))  # (a cited number has a first marker)
            shown = ", ".join(fields)
            yield Finding(
                f"citation [{number}]: {shown} carr{'ies' if len(fields) == 1 else 'y'} text of {source.id}, "
                "whose paywall_policy is metadata_only: only snippet_span is allowed",
                marker.line, marker.col,
            )
