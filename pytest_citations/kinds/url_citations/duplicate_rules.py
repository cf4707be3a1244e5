'''U113: a cid that appears a second time in one file, and the fix that merges the second record
into the first.'''

from __future__ import annotations

import json
from typing import TYPE_CHECKING, cast

from pytest_citations.core import sources
from pytest_citations.core.diagnostics import Edit, Fix
from pytest_citations.core.jsonlines import loads
from pytest_citations.kinds.url_citations.fields import _cid_digest
from pytest_citations.kinds.url_citations.first_lines import _first_lines
from pytest_citations.kinds.url_citations.record import Record
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "url-citations"


def _merge_fix(ctx: RuleContext, first_line: int, record: Record) -> Fix | None:
    """Union the duplicate's found_by into the first record and delete the duplicate's line."""
    source = ctx.file.source
    if source is None:
        return None
    start = source.line_starts[first_line - 1]
    text = source.line_text(first_line)
    first = Record(sources.Line(first_line, start, text), loads(text))
    kept, extra = first.data.get("found_by"), record.data.get("found_by")
    if not isinstance(kept, list) or not isinstance(extra, list):
        return None
    seen = {json.dumps(entry, sort_keys=True) for entry in kept}
    union = list(kept)
    for entry in extra:
        if json.dumps(entry, sort_keys=True) not in seen:
            seen.add(json.dumps(entry, sort_keys=True))
            union.append(entry)
    edits = []
    if union != kept:
        span = cast("tuple[int, int]", first.value_span("found_by"))  # (its found_by is a list: it is there)
        compact = ", " not in first.text
        text = json.dumps(union, ensure_ascii=False, separators=(",", ":") if compact else None)
        edits.append(Edit(start + span[0], start + span[1], text))
    starts = source.line_starts
    if record.line < len(starts):
        edits.append(Edit(record.offset, starts[record.line], ""))
    else:  # the last line, without a final line end: take the line end before it
        edits.append(Edit(record.offset - len(source.newline), len(source.text), ""))
    return Fix(f"merge into the record on line {first_line}", tuple(edits))


def _cid_first_here(record: Record, ctx: RuleContext) -> bool:
    """U113 finds nothing: the record's cid first appears on its line (or is no string). Like the
    check, it remembers the line; the check asked after it finds the same line remembered."""
    cid = record.data.get("cid")
    return not isinstance(cid, str) or _first_lines(ctx).first(cid, _cid_digest(record), record.line) == record.line


@rule("U113", "duplicate-cid", kind=KIND, fixable=True, passes=_cid_first_here)
def duplicate_cid(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a record whose `cid` already appeared earlier in the same file.

    ## Why is this bad?
    `citations.jsonl` holds one record per source: a second record for the same cid splits its
    provenance and double-counts it in utilization.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc#intro","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ## Fix
    `citations check --fix` merges each duplicate into the first record with its cid: the
    `found_by` lists are united (first record's entries first) and the duplicate line is removed.
    """
    cid = record.data.get("cid")
    if not isinstance(cid, str):
        return ()
    first_line = _first_lines(ctx).first(cid, _cid_digest(record), record.line)
    if first_line == record.line:
        return ()
    fix = _merge_fix(ctx, first_line, record)
    return (record.finding(f"cid {cid} already appears on line {first_line}: merge the records", "cid", fix),)
