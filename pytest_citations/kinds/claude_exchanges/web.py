"""The URL a Claude ``web_search_result_location`` citation cites, for the online rules, with its
``cited_text``: the text the response says the page holds."""

from __future__ import annotations

from collections.abc import Iterator

from pytest_citations.kinds.claude_exchanges.model import Citation
from pytest_citations.online.web_citation import WebCitation


def web_citations(citation: Citation) -> Iterator[WebCitation]:
    if citation.type != "web_search_result_location":
        return
    url, cited = citation.data.get("url"), citation.data.get("cited_text")
    if not isinstance(url, str) or not url.strip():
        return
    quote = cited if isinstance(cited, str) and cited.strip() else None
    yield WebCitation(url.strip(), citation.line, citation.col, f"the citation at {citation.where}",
                      quote=quote, context=citation.context)
