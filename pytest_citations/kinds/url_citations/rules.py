'''Rules for url citations (U1xx): ``citation.v1`` records in ``citations.jsonl``.

Here, a record's form and the outcome of its check: one JSON object a line (U101), the schema
(U102), a known ``status`` (U107), ``checked_at`` in ISO 8601 (U108) and an ``http_status`` that
agrees with the status (U109). The URL and its cid are checked in ``url_rules.py``, provenance in
``provenance_rules.py``, duplicates in ``duplicate_rules.py``.

Each rule declares beside its check the check's cheap test of a record it finds nothing in
(``passes=``, see :func:`pytest_citations.rules.rule`): the rule runner calls the check only for a
record that test does not pass. The tests are written for the common record, whose fields have
their schema types: of another they may say False or raise (a missing key, a value of another
type), and the check decides. What several of them derive is kept in ``record.memo``.'''

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import quoted
from pytest_citations.kinds.url_citations.fields import STATUSES, _http_status_problem, _is_iso_8601
from pytest_citations.kinds.url_citations.record import Record
from pytest_citations.kinds.url_citations.schema import _fast_valid, schema_problems
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "url-citations"


def _schema_valid(record: Record, ctx: RuleContext) -> bool:
    """U102 finds nothing: the record passes the schema's test of the common case."""
    return _fast_valid(record.data)


@rule("U102", "schema-violation", kind=KIND, passes=_schema_valid)
def schema_violation(record: Record, ctx: RuleContext):
    """
    ## What it does
    Checks each record against the bundled `citation.v1` JSON Schema (draft 2020-12): required
    fields present, fields of the right type, `found_by[]` entries complete. The message names the
    JSON path of the problem.

    ## Why is this bad?
    Readers of `citations.jsonl` rely on every required field; a record without `url_original` or
    `found_by` cannot be re-normalized or traced back to the wave output that cited it. Optional
    fields may be `null`.

    ## Example

    Bad (`found_by` is missing):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","title":null,"found_by":[],"notes":"ok"}
    ```

    ## Fix
    Have the producer write every required field. The schema ships with the package as
    `pytest_citations/schemas/citation.v1.schema.json`.
    """
    if _fast_valid(record.data):
        return ()
    return [record.finding(message, key or None) for key, message in schema_problems(record.data)]


def _status_known(record: Record, ctx: RuleContext) -> bool:
    """U107 finds nothing: the status is one of the five."""
    return record.data.get("status") in STATUSES


@rule("U107", "unknown-status", kind=KIND, passes=_status_known)
def unknown_status(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a `status` that is not one of `valid`, `invalid`, `mismatch`, `paywalled`, `blocked`
    (exact, lowercase).

    ## Why is this bad?
    Gates downstream decide what may be cited by status; an unknown value (`ok`, `Valid`) is read
    as none of them and the citation is either dropped or, worse, trusted by default.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"ok","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ## Fix
    Use one of the five statuses.
    """
    status = record.data.get("status")
    if isinstance(status, str) and status not in STATUSES:
        return (record.finding(f"status {quoted(status)} is not one of {', '.join(STATUSES)}", "status"),)
    return ()


def _checked_at_iso8601(record: Record, ctx: RuleContext) -> bool:
    """U108 finds nothing: ``checked_at`` is an ISO 8601 string."""
    value = record.data.get("checked_at")
    return isinstance(value, str) and _is_iso_8601(value)


@rule("U108", "checked-at-not-iso8601", kind=KIND, passes=_checked_at_iso8601)
def checked_at_not_iso8601(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a `checked_at` that is not an ISO 8601 date or date-time (`2026-02-13`,
    `2026-02-13T12:35:00Z`, `2026-02-14T00:00:00.000+02:00`) with real calendar values.

    ## Why is this bad?
    `checked_at` says how fresh the validation is; a value such as `Feb 13` or `2026-02-30` cannot
    be compared, so stale checks go unnoticed.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"13/02/2026 12:35","found_by":[],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ## Fix
    Write timestamps in ISO 8601, preferably UTC with `Z`.
    """
    value = record.data.get("checked_at")
    if isinstance(value, str) and not _is_iso_8601(value):
        return (record.finding(f"checked_at {quoted(value)} is not an ISO 8601 date or date-time", "checked_at"),)
    return ()


def _http_status_consistent(record: Record, ctx: RuleContext) -> bool:
    """U109 finds nothing: ``http_status`` agrees with ``status``."""
    return _http_status_problem(record.data.get("http_status"), record.data.get("status")) is None


@rule("U109", "http-status-inconsistent", kind=KIND, passes=_http_status_consistent)
def http_status_inconsistent(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports an `http_status` that contradicts `status`: `valid` with a 4xx or 5xx code, `invalid`
    with a 2xx code, or any code outside 100-599. `paywalled`, `blocked` and `mismatch` accept any
    real code (paywalls answer 200, 401, 402 or 403).

    ## Why is this bad?
    A `valid` citation whose last fetch returned 404 is a phantom citation with a green label.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","http_status":404,"found_by":[],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"invalid","checked_at":"2026-02-13T12:35:00Z","http_status":404,"found_by":[],"notes":"404"}
    ```

    ## Fix
    Re-validate the URL and record the status the response supports.
    """
    message = _http_status_problem(record.data.get("http_status"), record.data.get("status"))
    return (record.finding(message, "http_status"),) if message else ()
