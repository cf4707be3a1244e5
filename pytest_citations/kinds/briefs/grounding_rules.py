'''Quality rules on grounding (brief-citation-contract.md §1 and §5): a quote span true to the
stored text (B322) and inside it (B323), and no full text of a paywalled source under any field
(B324). docs/brief-quality.md explains each decision.'''

from __future__ import annotations

from typing import Any, cast

from pytest_citations.kinds.briefs.citations import _int, _objects, source_of
from pytest_citations.kinds.briefs.model import Brief, Marker
from pytest_citations.kinds.briefs.resolution import chunk_text
from pytest_citations.kinds.briefs.rule_docs import _cite, _doc, _example
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
@_doc(
    "Reports a citation whose `quote_span.text` is not the stored text at `[start:end)` (code-point\n"
    "offsets into the stored chunk, or into the document when no chunk text is stored). The text\n"
    "comes from the evidence store's `chunks.text`, else from the sidecar's `chunks` / `documents`\n"
    'maps (`{"chunks": {"chunk_1": {"text": "..."}}}`). The message gives the first differing offset\n'
    "and both texts, escaped (invisible characters shown as `\\uXXXX`).",
    "A quote is the strongest evidence a brief offers; one that is not in the source is fabricated,\n"
    "however close it reads.",
    _example("- The Fed kept policy unchanged. [1]",
             [_cite(1, "fed_press_releases", quote_span={"start": 16, "end": 57, "text": _QUOTE_TEXT})],
             chunks=_QUOTE_CHUNKS),
    _example("- The Fed kept policy unchanged. [1]",
             [_cite(1, "fed_press_releases", quote_span={"start": 16, "end": 57, "text": "officials kept policy settings unchanged."})],
             chunks=_QUOTE_CHUNKS),
    "Quote the stored text exactly, with the offsets it has there.",
)
def quote_span_mismatch(brief: Brief, ctx):
    for marker, kind, message in _quote_checks(brief):
        if kind == "text":
            yield Finding(message, marker.line, marker.col)


@rule("B323", "quote-span-out-of-range", kind=KIND)
@_doc(
    "Reports a citation whose `quote_span` offsets are not integers with `0 <= start <= end <= length`\n"
    "of the stored chunk (or document) text.",
    "Offsets outside the text cannot locate the quote: the span was computed against another text,\n"
    "or the stored text was truncated.",
    _example("- The Fed kept policy unchanged. [1]",
             [_cite(1, "fed_press_releases", quote_span={"start": 16, "end": 90, "text": _QUOTE_TEXT})],
             chunks=_QUOTE_CHUNKS),
    _example("- The Fed kept policy unchanged. [1]",
             [_cite(1, "fed_press_releases", quote_span={"start": 16, "end": 57, "text": "officials kept policy settings unchanged."})],
             chunks=_QUOTE_CHUNKS),
    "Recompute the offsets against the stored text.",
)
def quote_span_out_of_range(brief: Brief, ctx):
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
@_doc(
    "Reports a citation of a `paywall_policy: metadata_only` source that carries full text under a\n"
    "field other than `quote_span` (B314 reports that one): `body_text`, `excerpt`, `full_text`... (setting\n"
    "`fields`), or any object with a `text` other than `snippet_span`.",
    "Spec §5: paywalled full text must never be stored or fabricated, whatever the field is called.",
    _example("- Stocks fell on inflation data. [1]",
             [_cite(1, "ft_markets", excerpt="Stocks tumbled on Tuesday after consumer prices rose faster than forecast.")]),
    _example("- Stocks fell on inflation data. [1]",
             [_cite(1, "ft_markets", snippet_span={"text": "Stocks tumble as CPI exceeds forecasts"})]),
    "Remove the field (keep a `snippet_span`); `citations brief validate --fix` strips it.",
)
def paywalled_full_text(brief: Brief, ctx):
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
