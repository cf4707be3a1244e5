"""The URL a ``citation.v1`` record cites, for the online rules: its ``url`` (the canonical URL
after redirects, as its producer found it), else its ``url_original``, with what the record says
the producer's own fetch found (``status``, ``http_status``)."""

from __future__ import annotations

from collections.abc import Iterator

from pytest_citations.kinds.url_citations.record import Record
from pytest_citations.online.web_citation import RecordedCheck, WebCitation


def web_citations(record: Record) -> Iterator[WebCitation]:
    data = record.data
    key = "url" if isinstance(data.get("url"), str) and data["url"].strip() else "url_original"
    url = data.get(key)
    if not isinstance(url, str) or not url.strip():
        return
    recorded = RecordedCheck(data.get("status"), data.get("http_status"), record.offset, record.value_span)
    yield WebCitation(url.strip(), record.line, record.col(key), "the record", context=record.text, recorded=recorded)
