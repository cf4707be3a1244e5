"""What a citation cites, as the rules and ``claude import`` read it: the document it fits, the
bounds of its location and what is wrong with them, the text its range holds (a PDF's pages
extracted with pypdf), where else its ``cited_text`` may come from, and how a text is shown in a
message."""

from __future__ import annotations

import json
from typing import cast

from pytest_citations.core import pdf_text
from pytest_citations.kinds.claude_exchanges.model import FITS, Citation, Document, SearchResult
from pytest_citations.run import budget, dependencies


def _show(text: str, limit: int = 80) -> str:
    return json.dumps(text if len(text) <= limit else text[:limit] + "...", ensure_ascii=False)


def _fitting_document(c: Citation) -> Document | None:
    """The cited document, when it resolves and is of the kind the citation type cites."""
    doc = c.document
    if doc is None or FITS.get(c.type) != doc.kind:
        return None
    return doc


def _bounds(c: Citation) -> tuple[str, str, int, int, int | None] | None:
    """(start field, end field, start, end, upper bound) of a location whose target resolved."""
    data = c.data
    if c.type == "char_location":
        doc = _fitting_document(c)
        if doc is None or doc.text is None:
            return None
        return "start_char_index", "end_char_index", data["start_char_index"], data["end_char_index"], len(doc.text)
    if c.type == "content_block_location":
        doc = _fitting_document(c)
        if doc is None or doc.blocks is None:
            return None
        return "start_block_index", "end_block_index", data["start_block_index"], data["end_block_index"], len(doc.blocks)
    if c.type == "search_result_location":
        result = c.search_result
        if result is None:
            return None
        return "start_block_index", "end_block_index", data["start_block_index"], data["end_block_index"], len(result.blocks)
    if c.type == "page_location" and _fitting_document(c) is not None:
        return "start_page_number", "end_page_number", data["start_page_number"], data["end_page_number"], None
    return None


_NOT_EXTRACTED = ()  # the cache value of a PDF whose text could not be extracted
# Characters of PDF text the documents of one run hold at most, all together: each document keeps
# its pages for the run, and an exchange of a few kilobytes may carry dozens of PDFs that each give
# millions of characters (40 of them took 680 MB).
RUN_PDF_CHARACTERS = 16 << 20


def pdf_pages(doc: Document) -> list[str] | None:
    """The text of each page of a base64 PDF document, extracted with pypdf (the ``pdf`` extra) in
    a process of its own (:mod:`pytest_citations.core.pdf_text`); None when pypdf is not installed,
    the PDF is sent by URL, pypdf cannot read it, or not every page was read within the limits (a
    page range is then not known to be past the end)."""
    if doc.kind != "pdf" or doc.data is None:
        return None
    if doc.pages is None:
        held = budget.allowance("pdf characters", RUN_PDF_CHARACTERS)
        if held.spent:
            dependencies.note_run_limit()  # (what other documents held decided it)
            doc.pages = _NOT_EXTRACTED
            return None
        read = pdf_text.read(doc.data)
        if read.unread == pdf_text.EXTRA_MISSING:
            return None  # not cached: installing the extra changes the answer
        whole = read.pages is not None and read.partial is None
        doc.pages = read.pages if whole and read.pages else _NOT_EXTRACTED
        held.spend(sum(map(len, doc.pages)))
    return list(doc.pages) if doc.pages is not _NOT_EXTRACTED else None


def _normalize(text: str) -> str:
    return " ".join(text.split())


def pdf_cited_pages(c: Citation) -> str | None:
    """The extracted text of the pages ``[start_page_number, end_page_number)`` of a page_location's
    PDF, whitespace normalized, when the text was extracted and the page range is valid."""
    doc = _fitting_document(c)
    if c.type != "page_location" or doc is None or _range_problem(c) is not None:
        return None
    pages = pdf_pages(doc)
    if pages is None:
        return None
    return _normalize(" ".join(pages[c.data["start_page_number"] - 1 : c.data["end_page_number"] - 1]))


def _range_problem(c: Citation) -> str | None:
    bounds = _bounds(c)
    if bounds is None:
        return None
    start_name, end_name, start, end, upper = bounds
    low = 1 if c.type == "page_location" else 0
    if start < low:
        return f"{start_name} {start} is below {low}"
    if end <= start:
        return f"{end_name} {end} is not after {start_name} {start} (the end is exclusive, so the range is empty)"
    if c.type == "page_location":
        pages = pdf_pages(cast(Document, c.document))  # (the bounds of a page_location: its PDF resolved)
        if pages is not None and end > len(pages) + 1:
            return f"{end_name} {end} is past the end of the PDF ({len(pages)} pages)"
        return None
    if upper is not None and end > upper:
        unit = "characters" if c.type == "char_location" else "blocks"
        return f"{end_name} {end} is past the end of the cited text ({upper} {unit})"
    return None


def cited_range(c: Citation) -> str | None:
    """The text the citation's range holds, when its target resolved and the range is valid."""
    bounds = _bounds(c)
    if bounds is None or bounds[4] is None or c.type == "page_location" or _range_problem(c) is not None:
        return None
    _, _, start, end, _ = bounds
    if c.type == "char_location":
        return _bounded_text(c)[start:end]
    return "".join(_bounded_blocks(c)[start:end])


def _bounded_text(c: Citation) -> str:
    """The document text of a char_location that has bounds (:func:`_bounds` found the text)."""
    return cast(str, cast(Document, c.document).text)


def _bounded_blocks(c: Citation) -> list[str]:
    """The blocks of a block location that has bounds (:func:`_bounds` found them): its
    document's for a content_block_location, its search result's for a search_result_location."""
    if c.type == "content_block_location":
        return cast("list[str]", cast(Document, c.document).blocks)
    return cast(SearchResult, c.search_result).blocks


def _squeeze(text: str) -> str:
    return "".join(text.split())


def from_title_or_context(c: Citation) -> str | None:
    """``title`` or ``context`` when the cited text comes from there and not from the body."""
    cited = c.data["cited_text"].strip()
    if not cited:
        return None
    body: str | None
    if c.type == "search_result_location":
        result = c.search_result
        if result is None:
            return None
        fields, body = {"title": result.title}, "".join(result.blocks)
    elif c.type in FITS:
        doc = c.document
        if doc is None:
            return None
        fields, body = {"title": doc.title, "context": doc.context}, doc.body()
    else:
        return None
    if cited_range(c) == c.data["cited_text"]:
        return None  # the range holds it: it comes from the body
    for name, value in fields.items():
        if value and (cited == value.strip() or (body is not None and cited in value and cited not in body)):
            return name
    return None


def _utf16_slice(text: str, start: int, end: int) -> str | None:
    encoded = text.encode("utf-16-le")
    try:
        return encoded[2 * start : 2 * end].decode("utf-16-le")
    except UnicodeDecodeError:
        return None


def _mismatch(c: Citation) -> tuple[str, str] | None:
    """(held text, cited text) when the range is valid and its text differs from ``cited_text``."""
    held = cited_range(c)
    if held is None or held == c.data["cited_text"] or from_title_or_context(c) is not None:
        return None
    return held, c.data["cited_text"]


def _block_range(blocks: list[str], cited: str, limit: int = 200) -> tuple[int, int] | None:
    """The first block range whose joined texts are ``cited`` (only for up to ``limit`` blocks)."""
    if len(blocks) > limit:
        return None
    for start in range(len(blocks)):
        joined = ""
        for end in range(start, len(blocks)):
            joined += blocks[end]
            if joined == cited:
                return start, end + 1
            if len(joined) >= len(cited):
                break
    return None
