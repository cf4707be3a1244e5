'''Rules for structured citations returned by the Claude Messages API (A601-A613): each citation of
a response resolves to a block of its request, and says what that block says.'''

from __future__ import annotations

import json
from typing import TYPE_CHECKING, cast
from urllib.parse import urlsplit

from pytest_citations.core.diagnostics import Severity, quoted
from pytest_citations.kinds.claude_exchanges.model import FITS, Citation, Document, SearchResult
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "claude-exchanges"
WEB_CITED_TEXT_LIMIT = 150
_KIND_NAMES = {"text": "a plain text document", "pdf": "a PDF document", "content": "a custom content document"}
_EXPECTED_TYPE = {kind: location for location, kind in FITS.items()}


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


def pdf_pages(doc: Document) -> list[str] | None:
    """The text of each page of a base64 PDF document, extracted with pypdf (the ``pdf`` extra);
    None when pypdf is not installed, the PDF is sent by URL, or pypdf cannot read it."""
    if doc.kind != "pdf" or doc.data is None:
        return None
    if doc.pages is None:
        try:
            import pypdf
        except ImportError:
            return None  # not cached: installing the extra changes the answer
        import io
        import logging

        logger = logging.getLogger("pypdf")
        level = logger.level
        logger.setLevel(logging.CRITICAL)  # a malformed PDF is reported as unverifiable, not logged
        try:
            reader = pypdf.PdfReader(io.BytesIO(doc.data))
            doc.pages = [page.extract_text() or "" for page in reader.pages] or _NOT_EXTRACTED
        except Exception:  # pypdf raises many kinds of errors on a broken PDF
            doc.pages = _NOT_EXTRACTED
        finally:
            logger.setLevel(level)
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


@rule("A601", "invalid-exchange", kind=KIND, scope="engine")
def invalid_exchange():
    """
    ## What it does
    Reports an exchange file that cannot be read as `{"request": ..., "response": ...}`: JSON that
    does not parse (with the line and column), a duplicate key, `NaN`, nesting deeper than 500
    levels, a field of the wrong type (`messages` that is not an array, a `document_index` that is
    a string) or a citation without a field its type requires. In JSONL every other line is still
    checked. Extra fields (such as `file_id`) are tolerated.

    ## Why is this bad?
    A citation that cannot be read cannot be checked, and a pipeline that stores it anyway stores a
    pointer to nothing.

    ## Example

    Bad (`document_index` is a string):

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": "0", "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    ## Fix
    Store the request and response bodies exactly as sent and received (for example
    `message.model_dump(mode="json")` with the Python SDK), not a hand-edited copy.
    """


@rule("A602", "unknown-citation-type", kind=KIND, scope="engine")
def unknown_citation_type():
    """
    ## What it does
    Reports a citation whose `type` is not one of the documented types: `char_location`,
    `page_location`, `content_block_location`, `search_result_location`,
    `web_search_result_location`.

    ## Why is this bad?
    Nothing says what the fields of an unknown type mean, so the citation cannot be checked; it is
    usually a typo or a new API shape this tool does not know yet.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "character_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    ## Fix
    Use the type the API returned; if the API added a type, upgrade pytest-citations.
    """


@rule("A603", "unresolved-citation-index", kind=KIND)
def unresolved_citation_index(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a citation whose `document_index` is not the index of a `document` block of the
    request, or whose `search_result_index` is not the index of a `search_result` block. Both count
    from 0 over the blocks of that type only, in order across all messages (blocks inside a
    `tool_result` included).

    ## Why is this bad?
    The citation points at a source the model was never given: whatever it quotes is unverifiable.
    Counting every content block, or restarting at each message, is the usual producer bug.

    ## Example

    Bad (the second document is index 1; there is no index 2):

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green."}, "title": "Grass"}]}, {"role": "assistant", "content": "Noted."}, {"role": "user", "content": [{"type": "text", "text": "And this one?"}, {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The sky is blue."}, "title": "Sky"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 2, "document_title": "Sky", "start_char_index": 0, "end_char_index": 16}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green."}, "title": "Grass"}]}, {"role": "assistant", "content": "Noted."}, {"role": "user", "content": [{"type": "text", "text": "And this one?"}, {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The sky is blue."}, "title": "Sky"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 1, "document_title": "Sky", "start_char_index": 0, "end_char_index": 16}]}]}}
    ```

    ## Fix
    Record the request exactly as sent; if the response was paired with the wrong request, pair it
    with its own.
    """
    if c.type in FITS:
        count = len(c.exchange.documents)
        index = c.data["document_index"]
        if not 0 <= index < count:
            yield c.finding(f"document_index {index} does not resolve: the request has {_count(count, 'document block')}")
    elif c.type == "search_result_location":
        count = len(c.exchange.search_results)
        index = c.data["search_result_index"]
        if not 0 <= index < count:
            yield c.finding(f"search_result_index {index} does not resolve: the request has {_count(count, 'search_result block')}")


def _count(count: int, what: str) -> str:
    if count == 0:
        return f"no {what}s"
    return f"{count} {what}{'s' if count != 1 else ''} (indices 0-{count - 1})"


@rule("A604", "citation-type-mismatch", kind=KIND)
def citation_type_mismatch(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a citation whose type does not fit the kind of document it cites: a plain text
    document (`source.type` `text`) is cited with `char_location`, a PDF (`base64` with
    `application/pdf`, or `url`) with `page_location`, a custom content document (`content`)
    with `content_block_location`.

    ## Why is this bad?
    The API never mixes them, so a mismatch means the citation was edited or paired with another
    request, and its indices mean something else than they seem to.

    ## Example

    Bad (a plain text document cited by blocks):

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "content_block_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_block_index": 0, "end_block_index": 1}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    ## Fix
    Pair the response with the request that produced it.
    """
    doc = c.document
    if doc is None or doc.kind not in _EXPECTED_TYPE or FITS[c.type] == doc.kind:
        return
    yield c.finding(
        f"{c.type} cites document {doc.index}, {_KIND_NAMES[doc.kind]} (source type {quoted(doc.source_type)}), "
        f"which is cited with {_EXPECTED_TYPE[doc.kind]}"
    )


@rule("A605", "location-out-of-range", kind=KIND)
def location_out_of_range(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a location that is not a non-empty range inside what it cites. Character indices count
    from 0 with an exclusive end: `0 <= start_char_index < end_char_index <= len(text)`, in code
    points. Block indices (`content_block_location`, `search_result_location`) count from 0 with
    an exclusive end, up to the number of blocks. Page numbers count from 1 with an exclusive end
    page.

    ## Why is this bad?
    A range past the end of the source, or an empty one, quotes nothing the source holds.

    ## Example

    Bad (the text has 36 characters):

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 37}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    ## Fix
    Record the response as received; a producer that re-computes offsets must count code points
    from 0 and make the end exclusive.
    """
    problem = _range_problem(c)
    if problem is not None:
        yield c.finding(f"{c.type}: {problem}")


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


@rule("A611", "invalid-web-citation", kind=KIND)
def invalid_web_citation(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a `web_search_result_location` whose `url` is not an absolute `http` or `https` URL, or
    whose `cited_text` is longer than the 150 characters the API returns at most.

    ## Why is this bad?
    A reader cannot follow such a URL, and a longer quote was not returned by the API: it was added
    afterwards and nobody checked it against the page.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "How efficient are heat pumps?"}]}, "response": {"content": [{"type": "text", "text": "Very.", "citations": [{"type": "web_search_result_location", "cited_text": "Heat pumps are efficient.", "url": "ftp://www.iea.org/reports/heat-pumps", "title": "Heat pumps", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "How efficient are heat pumps?"}]}, "response": {"content": [{"type": "text", "text": "Very.", "citations": [{"type": "web_search_result_location", "cited_text": "Heat pumps are efficient.", "url": "https://www.iea.org/reports/heat-pumps", "title": "Heat pumps", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ## Fix
    Record the response as received.
    """
    if c.type != "web_search_result_location":
        return
    url = c.data["url"]
    try:
        parts = urlsplit(url)
        good = parts.scheme in ("http", "https") and bool(parts.netloc)
    except ValueError:
        good = False
    if not good:
        yield c.finding(f"url {_show(url)} is not an absolute http(s) URL")
    length = len(c.data["cited_text"])
    if length > WEB_CITED_TEXT_LIMIT:
        yield c.finding(f"cited_text has {length} characters, over the {WEB_CITED_TEXT_LIMIT} a web search citation holds")


@rule("A612", "web-url-not-in-results", kind=KIND)
def web_url_not_in_results(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a `web_search_result_location` whose `url` is not among the `web_search_result`s of the
    exchange's `web_search_tool_result` blocks (in the response or earlier turns), when the exchange
    holds any.

    ## Why is this bad?
    The model can only cite pages its searches returned; a URL that is not among them was added or
    changed after the fact.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "How efficient are heat pumps?"}]}, "response": {"content": [{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://www.iea.org/reports/heat-pumps", "title": "Heat pumps", "encrypted_content": "EqgfCioIARgBIiQ", "page_age": null}]}, {"type": "text", "text": "Very.", "citations": [{"type": "web_search_result_location", "cited_text": "Heat pumps are efficient.", "url": "https://www.example.com/heat-pumps", "title": "Heat pumps", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "How efficient are heat pumps?"}]}, "response": {"content": [{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://www.iea.org/reports/heat-pumps", "title": "Heat pumps", "encrypted_content": "EqgfCioIARgBIiQ", "page_age": null}]}, {"type": "text", "text": "Very.", "citations": [{"type": "web_search_result_location", "cited_text": "Heat pumps are efficient.", "url": "https://www.iea.org/reports/heat-pumps", "title": "Heat pumps", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ## Fix
    Record the whole response, search results included, and cite only what it returned.
    """
    if c.type != "web_search_result_location" or not c.exchange.has_web_results:
        return
    if c.data["url"] not in c.exchange.web_urls:
        yield c.finding(f"url {_show(c.data['url'])} is not among the {len(c.exchange.web_urls)} web search results of the exchange")


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
