'''Rules for structured citations returned by the Claude Messages API (A601-A613): each citation of
a response resolves to a block of its request, and says what that block says.

Here, that it resolves: an exchange that can be read (A601), a known citation type (A602), an
index that names a block (A603) of the kind the type cites (A604), a location inside it (A605).
What the citation says is checked in ``text_rules.py``, web search citations in
``web_rules.py``.'''

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import quoted
from pytest_citations.kinds.claude_exchanges.cited_text import _range_problem
from pytest_citations.kinds.claude_exchanges.model import FITS, Citation
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "claude-exchanges"
_KIND_NAMES = {"text": "a plain text document", "pdf": "a PDF document", "content": "a custom content document"}
_EXPECTED_TYPE = {kind: location for location, kind in FITS.items()}


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
