'''Rules for the synthesis of a research run (U114-U116): every cited URL or cid has a record in
the run's ``citations/citations.jsonl``, and the records it cites are usable.'''

from __future__ import annotations

from pytest_citations.core.diagnostics import Severity, quoted
from pytest_citations.kinds.synthesis.model import Cited
from pytest_citations.rules import Finding, Option, rule

KIND = "synthesis"
STATUSES = ("valid", "invalid", "mismatch", "paywalled", "blocked")


def _what(cited: Cited) -> str:
    return f"`{cited.ref.text}`"


@rule("U114", "phantom-citation", kind=KIND)
def phantom_citation(cited: Cited, ctx):
    """
    ## What it does
    Reports a URL or cid cited in the synthesis of a research run that has no record in the
    run's `citations/citations.jsonl` (a phantom citation). A cid is cited bare when it is `cid_` +
    64 hex digits, or as an `@cid_...` key of a bracketed citation group whatever follows `cid_`
    (`[@cid_alpha]` cites the record whose `cid` is `cid_alpha`; `[see @cid_a, p. 3; @cid_b]` cites
    both, as in Pandoc's citation syntax). A URL matches a record when its normalized form equals the
    record's `normalized_url`, or the normalized `url` or `url_original`; a cid matches the
    record's `cid`. References in code and HTML comments are not citations.

    ## Why is this bad?
    `citations.jsonl` is where every URL is validated before synthesis. A URL that reached the
    synthesis without a record was never checked: it may be dead, paywalled or invented by a model.

    ## Example

    Bad (the synthesis cites a URL the run never recorded):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ```markdown title="run/synthesis.md"
    Prices fell sharply ([source](https://example.com/other)).
    ```

    Good (tracking parameters and the fragment do not matter):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ```markdown title="run/synthesis.md"
    Prices fell sharply ([source](https://Example.com/doc?utm_source=x#part-2)).
    ```

    ## Fix
    Add the URL to the run's validation (so it gets a record and a status), or remove the claim
    that cites it.
    """
    if cited.record is not None:
        return
    if cited.ref.cid is None and cited.ref.normalized is None:
        yield _finding(cited, f"{_what(cited)} is cited but is not an absolute URL, so it cannot match a record in {cited.run.citations} (phantom citation)")
        return
    yield _finding(cited, f"{_what(cited)} is cited but has no record in {cited.run.citations} (phantom citation)")


def _finding(cited: Cited, message: str) -> Finding:
    return Finding(message, cited.ref.line, cited.ref.col)


def _status_rule(cited: Cited, ctx):
    record = cited.record
    if record is None or record.status not in ctx.options["statuses"]:
        return
    yield _finding(
        cited,
        f"{_what(cited)} is cited but its record ({cited.run.citations}:{record.line}) has status {quoted(record.status)}",
    )


_STATUS_OPTION_HELP = "record statuses this rule reports when cited (one of: " + ", ".join(STATUSES) + ")"


@rule(
    "U115",
    "cited-invalid-record",
    kind=KIND,
    options={"statuses": Option(list, ["invalid", "mismatch"], _STATUS_OPTION_HELP, items=str)},
)
def cited_invalid_record(cited: Cited, ctx):
    """
    ## What it does
    Reports a URL or cid cited in a run's synthesis whose record in `citations/citations.jsonl` has
    a status in this rule's `statuses` option (by default `invalid` and `mismatch`): the URL was
    checked and failed.

    ## Why is this bad?
    A claim backed by a dead page, or by a page that does not say what the claim says, is not
    backed at all.

    ## Example

    Bad (the cited record is `invalid`):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"invalid","checked_at":"2026-02-13T12:35:00Z","http_status":404,"found_by":[],"notes":"404"}
    ```

    ```markdown title="run/synthesis.md"
    Prices fell sharply (https://example.com/doc).
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","http_status":200,"found_by":[],"notes":"ok"}
    ```

    ```markdown title="run/synthesis.md"
    Prices fell sharply (https://example.com/doc).
    ```

    ## Fix
    Cite a source whose record is `valid`, or drop the claim. To report a status as a warning
    instead, move it from this rule's `statuses` to U116's:

    ```toml
    [tool.citations.rules.U115]
    statuses = ["invalid"]
    [tool.citations.rules.U116]
    statuses = ["mismatch", "blocked", "paywalled"]
    ```
    """
    yield from _status_rule(cited, ctx)


@rule(
    "U116",
    "cited-restricted-record",
    kind=KIND,
    severity=Severity.WARNING,
    options={"statuses": Option(list, ["blocked"], _STATUS_OPTION_HELP, items=str)},
)
def cited_restricted_record(cited: Cited, ctx):
    """
    ## What it does
    Warns about a URL or cid cited in a run's synthesis whose record in `citations/citations.jsonl`
    has a status in this rule's `statuses` option (by default `blocked`): the page exists but its
    text could not be read. A `paywalled` record is not reported by default: its page was reached
    and is what the record says, and the research pipelines that write `citation.v1` records count
    `valid` and `paywalled` records alike as validated; add `paywalled` to `statuses` to be told.

    ## Why is this bad?
    Nobody verified that a blocked page says what the synthesis claims. It may be the best source
    there is, so this is a warning; make it an error by moving the status to U115.

    ## Example

    Bad (the cited record is `blocked`):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"blocked","checked_at":"2026-02-13T12:35:00Z","http_status":403,"found_by":[],"notes":"blocked"}
    ```

    ```markdown title="run/synthesis.md"
    See cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db for details.
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ```markdown title="run/synthesis.md"
    See cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db for details.
    ```

    ## Fix
    Prefer a source whose record is `valid`; if this one must stay, say in the synthesis that its
    text was not verified.
    """
    yield from _status_rule(cited, ctx)
