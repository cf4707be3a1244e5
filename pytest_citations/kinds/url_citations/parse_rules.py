"""The rules under which the url-citations kind's reader reports what it cannot read: the
reader reports through these rule objects (``RULE.report(finding)``); they have no check of their own."""

from pytest_citations.rules import rule

KIND = "url-citations"


@rule("U101", "invalid-json-line", kind=KIND, scope="engine")
def invalid_json_line():
    """
    ## What it does
    Reports a line of `citations.jsonl` that is not one JSON object: broken JSON, a duplicate key,
    `NaN` or `Infinity`, nesting too deep, or a value that is not an object. Blank lines are
    allowed. Every other line is still checked.

    ## Why is this bad?
    Readers of JSON Lines either stop at the bad line or skip it silently; both lose a citation.
    Duplicate keys are read differently by different JSON libraries.

    ## Example

    Bad (a trailing comma):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc",}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ## Fix
    Have the producer serialize each record with a JSON library, one record per line.
    """
