"""The URLs a brief cites, for the online rules: each cited object's ``url``, at the marker that
first cites it, with its ``quote_span.text`` (text the brief says the page holds) and the source
registry's ``paywall_policy`` for its source; and each References entry's URL that no cited object
of its number names, at the entry (one tagged ``[Paywall]`` is expected to be paywalled)."""

from __future__ import annotations

from collections.abc import Iterator

from pytest_citations.kinds.briefs.citations import _objects, source_of
from pytest_citations.kinds.briefs.model import Brief
from pytest_citations.online.web_citation import WebCitation


def web_citations(brief: Brief) -> Iterator[WebCitation]:
    yield from _cited_objects(brief)
    yield from _references(brief)


def _cited_objects(brief: Brief) -> Iterator[WebCitation]:
    for number, citation, marker in _objects(brief):
        url = citation.get("url")
        if not isinstance(url, str) or not url.strip() or marker is None:
            continue
        span = citation.get("quote_span")
        quote = span.get("text") if isinstance(span, dict) else None
        source_id = citation.get("source_id")
        source = source_of(brief, source_id)
        policy = source.paywall_policy if source is not None and isinstance(source.paywall_policy, str) else None
        yield WebCitation(
            url.strip(), marker.line, marker.col, f"citation [{number}]",
            quote=quote if isinstance(quote, str) and quote.strip() else None,
            paywall_policy=policy, source_id=source_id if isinstance(source_id, str) else None,
        )


def _references(brief: Brief) -> Iterator[WebCitation]:
    named = {(number, citation.get("url", "").strip()) for number, citation, _ in _objects(brief)
             if isinstance(citation.get("url"), str)}
    for entry in brief.entries:
        reference = entry.reference
        if reference is None or (entry.number, reference.url) in named:
            continue
        policy = "metadata_only" if "Paywall" in reference.tags else None
        yield WebCitation(reference.url, entry.line, entry.col, f"reference [{entry.number}]", paywall_policy=policy)
