'''Rules on what a citation says (A606-A610, A613): its ``cited_text`` is what its range holds
(A606; A607 warns when only white space differs) and comes from the body, not the title or
context (A609); its title is the document's (A608), its source and title the search result's
(A610); and a warning when its text cannot be checked from the exchange (A613).'''

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from pytest_citations.core.diagnostics import Severity, quoted
from pytest_citations.kinds.claude_exchanges.cited_text import (
    _block_range,
    _bounded_blocks,
    _bounded_text,
    _bounds,
    _mismatch,
    _normalize,
    _show,
    _squeeze,
    _utf16_slice,
    from_title_or_context,
    pdf_cited_pages,
    pdf_pages,
)
from pytest_citations.kinds.claude_exchanges.model import Citation, Document
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "claude-exchanges"


@rule("A606", "cited-text-mismatch", kind=KIND)
def cited_text_mismatch(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a citation whose `cited_text` is not exactly the text its range holds: for
    `char_location`, `text[start_char_index:end_char_index]` of the document (code points); for
    `content_block_location` and `search_result_location`, the texts of the blocks
    `start_block_index` up to (not including) `end_block_index`, joined with nothing between them.
    The message says where `cited_text` does occur, and when only a UTF-16 slice of the text would
    match. A difference in whitespace only is A607 instead. With the `pdf` extra installed
    (`pip install 'pytest-citations[pdf]'`), a `page_location` of a base64 PDF is checked too: the
    text pypdf extracts from the pages `start_page_number` up to (not including)
    `end_page_number` must contain `cited_text`, whitespace normalized on both sides. PDF text
    extraction is approximate (ligatures, hyphenation, column order), so a miss names the pages to
    look at.

    ## Why is this bad?
    The quote and the pointer disagree: either the quote is not in the source, or the pointer (which
    is what gets stored) points elsewhere. An off-by-one end is the classic.

    ## Example

    Bad (the end is one character short):

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 35}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    ## Fix
    Record the response as received. A producer that computes offsets must slice by code points
    (Python `str`), not UTF-16 units (JavaScript strings) or bytes.
    """
    if c.type == "page_location":
        pages = pdf_cited_pages(c)
        if pages is not None and from_title_or_context(c) is None and _normalize(c.data["cited_text"]) not in pages:
            start, end = c.data["start_page_number"], c.data["end_page_number"]
            shown = f"page {start}" if end == start + 1 else f"pages {start}-{end - 1}"
            yield c.finding(f"cited_text {_show(c.data['cited_text'])} is not in the text extracted from {shown} "
                            f"(pages [{start}, {end})) of document {cast(Document, c.document).index} "
                            "(PDF text extraction is approximate)")
        return
    found = _mismatch(c)
    if found is None:
        return
    held, cited = found
    if _squeeze(held) == _squeeze(cited):
        return  # A607
    bounds = cast("tuple[str, str, int, int, int | None]", _bounds(c))  # (a mismatch has a valid range)
    start_name, end_name, start, end, _ = bounds
    message = f"cited_text {_show(cited)} is not what [{start}, {end}) holds: {_show(held)}"
    if c.type == "char_location":
        text = _bounded_text(c)
        if _utf16_slice(text, start, end) == cited:
            message += " (only a UTF-16 slice matches: count code points, not UTF-16 units)"
        else:
            at = text.find(cited) if cited else -1
            if at >= 0:
                message += f"; cited_text occurs at [{at}, {at + len(cited)})"
    else:
        found_at = _block_range(_bounded_blocks(c), cited)
        if found_at is not None:
            message += f"; cited_text is blocks [{found_at[0]}, {found_at[1]})"
    yield c.finding(message)


@rule("A607", "cited-text-whitespace-difference", kind=KIND, severity=Severity.WARNING)
def cited_text_whitespace_difference(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Warns about a citation whose `cited_text` differs from the text its range holds in whitespace
    only (spaces, tabs, line ends added, removed or changed).

    ## Why is this bad?
    The quote is the source's, but not byte for byte: a tool that looks it up exactly will not find
    it. This is milder than A606, since the words are right.

    ## Example

    Bad (a line end became a space):

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green.\\nThe sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "Both.", "citations": [{"type": "char_location", "cited_text": "The grass is green. The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 0, "end_char_index": 36}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green.\\nThe sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "Both.", "citations": [{"type": "char_location", "cited_text": "The grass is green.\\nThe sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 0, "end_char_index": 36}]}]}}
    ```

    ## Fix
    Keep `cited_text` exactly as the API returned it; do not reflow or strip it.
    """
    found = _mismatch(c)
    if found is None:
        return
    held, cited = found
    if _squeeze(held) == _squeeze(cited):
        start, end = cast("tuple[str, str, int, int, int | None]", _bounds(c))[2:4]  # (a mismatch has a valid range)
        yield c.finding(f"cited_text differs from what [{start}, {end}) holds in whitespace only: {_show(held)}")


@rule("A608", "document-title-mismatch", kind=KIND)
def document_title_mismatch(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a citation whose `document_title` is not the `title` of the document it cites, or is
    not null when that document has no title.

    ## Why is this bad?
    The title is how a reader (and the stored citation object) names the source; a wrong one
    credits another document.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Weather", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    ## Fix
    Pair the response with its own request, or give the document the title it was sent with.
    """
    doc = c.document
    if doc is None:
        return
    cited = c.data["document_title"]
    if cited != doc.title:
        expected = "null (the document has no title)" if doc.title is None else _show(doc.title)
        shown = "null" if cited is None else _show(cited)
        yield c.finding(f"document_title {shown} is not the title of document {doc.index}: expected {expected}")


@rule("A609", "cited-text-from-title-or-context", kind=KIND)
def cited_text_from_title_or_context(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a citation whose `cited_text` comes from the cited document's `title` or `context`
    (or a search result's `title`) and not from its body.

    ## Why is this bad?
    The API never cites a title or context: they are metadata the caller wrote, not evidence. A
    quote taken from them proves nothing about the source.

    ## Example

    Bad (the title is quoted as evidence):

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Output rose in March."}, "title": "Record growth in Q1", "context": "Trusted source"}]}]}, "response": {"content": [{"type": "text", "text": "Growth was a record.", "citations": [{"type": "char_location", "cited_text": "Record growth in Q1", "document_index": 0, "document_title": "Record growth in Q1", "start_char_index": 0, "end_char_index": 19}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Output rose in March."}, "title": "Record growth in Q1", "context": "Trusted source"}]}]}, "response": {"content": [{"type": "text", "text": "Output rose.", "citations": [{"type": "char_location", "cited_text": "Output rose in March.", "document_index": 0, "document_title": "Record growth in Q1", "start_char_index": 0, "end_char_index": 21}]}]}}
    ```

    ## Fix
    Cite the body of the document; drop the claim if only its title supports it.
    """
    name = from_title_or_context(c)
    if name is not None:
        yield c.finding(f"cited_text {_show(c.data['cited_text'].strip())} comes from the {name}, not the body, of the cited source")


@rule("A610", "search-result-mismatch", kind=KIND)
def search_result_mismatch(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a `search_result_location` whose `source` or `title` is not that of the
    `search_result` block its `search_result_index` names.

    ## Why is this bad?
    `source` is what a reader follows to check the claim: a different one sends them to a page that
    was never searched.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "search_result", "source": "https://kb.example.com/heat", "title": "Heat pumps", "content": [{"type": "text", "text": "Heat pumps move heat."}]}]}]}, "response": {"content": [{"type": "text", "text": "They move heat.", "citations": [{"type": "search_result_location", "cited_text": "Heat pumps move heat.", "search_result_index": 0, "source": "https://kb.example.com/cold", "title": "Heat pumps", "start_block_index": 0, "end_block_index": 1}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "search_result", "source": "https://kb.example.com/heat", "title": "Heat pumps", "content": [{"type": "text", "text": "Heat pumps move heat."}]}]}]}, "response": {"content": [{"type": "text", "text": "They move heat.", "citations": [{"type": "search_result_location", "cited_text": "Heat pumps move heat.", "search_result_index": 0, "source": "https://kb.example.com/heat", "title": "Heat pumps", "start_block_index": 0, "end_block_index": 1}]}]}}
    ```

    ## Fix
    Pair the response with its own request; count only `search_result` blocks.
    """
    result = c.search_result
    if result is None:
        return
    for name, expected in (("source", result.source), ("title", result.title)):
        cited = c.data[name]
        if cited != expected:
            shown = "null" if cited is None else _show(cited)
            want = "null" if expected is None else _show(expected)
            yield c.finding(f"{name} {shown} is not the {name} of search result {result.index}: expected {want}")


@rule("A613", "unverifiable-citation", kind=KIND, severity=Severity.WARNING)
def unverifiable_citation(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Warns about a citation whose text cannot be checked from the exchange: a `page_location` whose
    PDF text is not extracted (the `pdf` extra, pypdf, is not installed, or pypdf cannot read the
    PDF) or a citation of a document whose text is not in the request (`source.type` `file`, or a
    `url` PDF). Its index, type and title are still checked; its `cited_text` is reported as
    unverified, never as passed.

    ## Why is this bad?
    A citation nobody checked may quote anything. It may well be right, so this is a warning; a
    pipeline that needs every quote proven sends its sources as plain text documents.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"}, "title": "Report"}]}]}, "response": {"content": [{"type": "text", "text": "Output rose.", "citations": [{"type": "page_location", "cited_text": "Output rose in March.", "document_index": 0, "document_title": "Report", "start_page_number": 1, "end_page_number": 2}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Output rose in March."}, "title": "Report"}]}]}, "response": {"content": [{"type": "text", "text": "Output rose.", "citations": [{"type": "char_location", "cited_text": "Output rose in March.", "document_index": 0, "document_title": "Report", "start_char_index": 0, "end_char_index": 21}]}]}}
    ```

    ## Fix
    Send the text of sources you need verified as plain text documents, install the `pdf` extra
    to check base64 PDFs, or accept the warning.
    """
    doc = c.document
    if doc is None:
        return
    if c.type == "page_location" and doc.kind == "pdf":
        if pdf_pages(doc) is not None:
            return  # verified by A605/A606 against the extracted text
        yield c.finding(f"page_location of document {doc.index} cannot be verified: PDF text is not extracted, "
                        "so its cited_text is unverified")
    elif doc.kind == "other":
        yield c.finding(f"{c.type} of document {doc.index} cannot be verified: the document's text is not in the "
                        f"request (source type {quoted(doc.source_type or 'unknown')})")
