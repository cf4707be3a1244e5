'''Rules for url citations (U1xx): ``citation.v1`` records in ``citations.jsonl``.'''

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, TypeGuard, cast

from pytest_citations.core import sources
from pytest_citations.core.diagnostics import Edit, Fix, quoted
from pytest_citations.core.jsonlines import loads, type_name
from pytest_citations.core.timestamps import parse_iso_8601
from pytest_citations.kinds.url_citations.record import Record
from pytest_citations.kinds.url_citations.urls import (
    NotAbsoluteURL,
    cid_digest,
    cid_for,
    http_url_problem,
    normalizations,
)

# imported here, not where it is used: importing it registers the run-wide index of the cids the
# synthesis cites, which a cached result of a check that consulted it must find in a later run
from pytest_citations.kinds.url_citations.utilization import citing_places
from pytest_citations.rules import BUNDLED_SCHEMAS, Finding, Option, bundled_validator, rule
from pytest_citations.run import dependencies

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "url-citations"
STATUSES = ("valid", "invalid", "mismatch", "paywalled", "blocked")
_SCHEMA_FILE = BUNDLED_SCHEMAS / "citation.v1.schema.json"
_STRINGS = ("normalized_url", "cid", "url", "url_original", "status", "checked_at", "notes")
_OPTIONAL_STRINGS = ("title", "publisher", "evidence_snippet")
_FOUND_BY_STRINGS = ("perspective_id", "agent_type", "artifact_path")


def _normalized_original(record: Record, profile: str) -> str | None:
    """normalize(url_original) under ``profile`` (the form a fix writes), computed once per
    record; None if not absolute."""
    accepted = _accepted_normalizations(record, profile)
    return accepted[0] if accepted else None


def _accepted_normalizations(record: Record, profile: str) -> tuple[str, ...]:
    """Every ``normalized_url`` a producer of ``profile`` writes for the record's ``url_original``
    (see :func:`pytest_citations.kinds.url_citations.urls.normalizations`), computed once per record; none if it is
    not absolute."""
    memo = record.memo
    accepted = memo.get(profile, memo)  # the memo itself stands for "not computed yet"
    if accepted is memo:
        try:
            accepted = normalizations(record.data["url_original"], profile)
        except NotAbsoluteURL:
            accepted = ()
        memo[profile] = accepted
    return accepted


def _cid_digest(record: Record) -> bytes | None:
    """The 32 bytes a well-formed cid (``cid_`` + 64 lowercase hex digits) spells, else None;
    computed once per record, for U105, U106 and U113."""
    memo = record.memo
    digest = memo.get("cid digest", memo)  # the memo itself stands for "not computed yet"
    if digest is memo:
        digest = memo["cid digest"] = _digest(record.data.get("cid"))
    return digest


def _digest(cid) -> bytes | None:
    if not isinstance(cid, str) or len(cid) != 68 or not cid.startswith("cid_"):
        return None
    hex_digits = cid[4:]
    try:
        digest = bytes.fromhex(hex_digits)
    except ValueError:
        return None
    return digest if digest.hex() == hex_digits else None  # fromhex also takes uppercase and spaces


def _replace(record: Record, key: str, value) -> Edit | None:
    span = record.value_span(key)
    if span is None:
        return None
    return Edit(record.offset + span[0], record.offset + span[1], json.dumps(value, ensure_ascii=False))


_PLACES_SHOWN = 3


def _cid_kept(ctx: RuleContext, cid) -> str | None:
    """Why a fix must not rewrite ``cid``, as the end of the finding's message, or None when it
    may: the run's synthesis cites it, and a fix writes one file, so every reference would be left
    pointing at nothing (the cid and its references are for the user to rewrite together)."""
    places = citing_places(ctx.file.engine, ctx.rel, cid) if isinstance(cid, str) else []
    if not places:
        return None
    shown, previous = [], None
    for rel, line, col in places[:_PLACES_SHOWN]:
        shown.append(f"{line}:{col}" if rel == previous else f"{rel}:{line}:{col}")
        previous = rel
    if len(places) > _PLACES_SHOWN:
        shown.append(f"and {len(places) - _PLACES_SHOWN} more")
    return (
        f"; --fix leaves it, because the run's synthesis cites it ({', '.join(shown)}): "
        "a new cid would leave those references pointing at nothing"
    )


def _is_integer(value) -> TypeGuard[int | float]:
    if type(value) is int:  # the common case, first
        return True
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())


def _fast_valid(data: dict) -> bool:
    """The schema's verdict for the common case, without importing jsonschema (see tests). A
    required field that is missing reads as None, which is no string and no array."""
    if data.get("schema_version") != "citation.v1":
        return False
    for key in _STRINGS:
        if not isinstance(data.get(key), str):
            return False
    for key in _OPTIONAL_STRINGS:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            return False
    status = data.get("http_status")
    if status is not None and not _is_integer(status):
        return False
    found_by = data.get("found_by")
    if not isinstance(found_by, list):
        return False
    for entry in found_by:
        if not isinstance(entry, dict) or not _is_integer(entry.get("wave")):
            return False
        for key in _FOUND_BY_STRINGS:
            if not isinstance(entry.get(key), str):
                return False
    return True


@lru_cache(maxsize=1)
def _validator():
    return bundled_validator(_SCHEMA_FILE)


def _json_path(parts) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "record"


def schema_problems(data: dict) -> list[tuple[str, str]]:
    """(top-level key or "", message) for every schema violation, in a stable order."""
    problems = []
    missing: dict[str, list[str]] = {}
    for error in sorted(_validator().iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.validator)):
        path = list(error.absolute_path)
        where = _json_path(path)
        key = str(path[0]) if path else ""
        if error.validator == "required":
            missing.setdefault(where, []).append(error.message.split("'")[1])
            continue
        if error.validator == "type":
            expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
            message = f"{where} must be {' or '.join(expected)}, not {type_name(error.instance)}"
        elif error.validator == "const":
            message = f"{where} must be {error.validator_value!r}, not {quoted(error.instance)}"
        else:
            message = f"{where}: {error.message}"
        problems.append((key, message))
    for where, fields in missing.items():
        key = where.split("[")[0].split(".")[0] if where != "record" else ""
        noun = "field" if len(fields) == 1 else "fields"
        problems.append((key, f"{where} is missing required {noun}: {', '.join(fields)}"))
    return problems


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


@rule("U102", "schema-violation", kind=KIND)
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
    if record.passes:
        return ()
    if _fast_valid(record.data):
        return ()
    return [record.finding(message, key or None) for key, message in schema_problems(record.data)]


@rule("U103", "url-not-absolute", kind=KIND)
def url_not_absolute(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a record whose `url_original` is not an absolute URL (a scheme, `//` and a host), and
    one whose `url` is not an absolute `http` or `https` URL: a scheme of those two, `//`, a host,
    and no white space or control character anywhere.

    ## Why is this bad?
    Normalization starts by parsing `url_original` as an absolute URL; a relative or bare URL has no
    `normalized_url` and so no `cid`: it cannot be a citation. `url` is the address the source was
    fetched at, after redirects; a value that no HTTP client could have fetched (`not a url`, a
    path without a host, a URL with a raw space, which a URL library writes as `%20`) means the
    record was not written from a fetch, and a reader who follows it gets nowhere.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"example.com/doc","cid":"cid_cbe9adc3759755df2a301194d200677a282d5614b49bf5648a40a0de826bf63f","url":"example.com/doc","url_original":"example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ## Fix
    Record the URL exactly as extracted, with its scheme and host.
    """
    if record.passes:
        return ()
    findings: tuple[Finding, ...] = ()
    original = record.data.get("url_original")
    if isinstance(original, str) and _normalized_original(record, ctx.kind_options["url-profile"]) is None:
        message = f"url_original {quoted(original)} is not an absolute URL (scheme://host/...)"
        findings += (record.finding(message, "url_original"),)
    url = record.data.get("url")
    if isinstance(url, str) and (problem := http_url_problem(url)) is not None:
        findings += (record.finding(f"url {quoted(url)} is not an absolute http(s) URL{problem}", "url"),)
    return findings


_MAX_CACHED_TIMESTAMP = 64  # characters; a longer checked_at is parsed without being kept


@lru_cache(maxsize=1024)
def _cached_is_iso_8601(value: str) -> bool:
    return parse_iso_8601(value) is not None


def _is_iso_8601(value: str) -> bool:
    """Whether ``value`` is an ISO 8601 date or date-time. Verdicts on short values are cached, so
    a time stamped on many records is parsed once."""
    return _cached_is_iso_8601(value) if len(value) <= _MAX_CACHED_TIMESTAMP else parse_iso_8601(value) is not None


def _other_profile(profile: str) -> str:
    return "whatwg" if profile == "spec" else "spec"


@rule("U104", "normalized-url-mismatch", kind=KIND, fixable=True)
def normalized_url_mismatch(record: Record, ctx: RuleContext):
    """
    ## What it does
    Recomputes `normalized_url` from `url_original` with the spec's rules (lowercase scheme and
    host, drop the fragment, drop `utm_*`, `gclid` and `fbclid`, sort the query by key then value,
    drop default ports, drop one trailing `/` unless the path is `/`) and reports a record whose
    stored value differs.

    With `url-profile = "whatwg"` under `[tool.citations.kinds.url-citations]`, the expected value
    is the one WHATWG URL serialization gives (a host-only URL keeps `/`, IDN hosts in punycode,
    query re-encoded); the query may be written as `encodeURIComponent` writes it (a space is
    `%20`) or as `URLSearchParams` does (a space is `+`), and both are accepted. When a record
    fails under one profile but matches the other, the message says so.

    ## Why is this bad?
    The `cid` is the hash of `normalized_url`; if `normalized_url` is not derived deterministically,
    the same source gets two cids and deduplication, utilization and provenance all break.

    ## Example

    Bad (the `utm_source` parameter was kept):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc?utm_source=x","cid":"cid_166188634728119ce45151d499591ce629fab34e50276f690e07df37b9cc6782","url":"https://example.com/doc","url_original":"https://example.com/doc?utm_source=x","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc?utm_source=x","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ## Fix
    `citations check --fix` writes the recomputed `normalized_url` and the `cid` that goes with it.

    When the cid changes and the run's synthesis cites the record by its old cid (`[@cid_...]` or
    a bare 64-hex cid), the fix is not offered: the new cid would leave those references pointing
    at nothing. The message names where the cid is cited; rewrite the cid and those references
    together.
    """
    if record.passes:
        return ()
    data = record.data
    original, stored = data.get("url_original"), data.get("normalized_url")
    if not isinstance(original, str) or not isinstance(stored, str):
        return ()
    profile = ctx.kind_options["url-profile"]
    accepted = _accepted_normalizations(record, profile)
    if not accepted or stored in accepted:
        return ()
    expected = accepted[0]
    message = f"normalized_url {quoted(stored)} is not the {profile} normalization of url_original; expected {quoted(expected)}"
    if len(accepted) > 1:
        message += f" (or {quoted(accepted[1])}, the query as URLSearchParams writes it)"
    other = _other_profile(profile)
    if stored in _accepted_normalizations(record, other):
        message += (
            f' (it matches the {other} profile: set url-profile = "{other}" under'
            " [tool.citations.kinds.url-citations] if the producer writes URLs that way)"
        )
    edits = [_replace(record, "normalized_url", expected)]
    kept = None
    if isinstance(data.get("cid"), str) and data["cid"] != cid_for(expected):
        edits.append(_replace(record, "cid", cid_for(expected)))
        kept = _cid_kept(ctx, data["cid"])
    if kept:
        return (record.finding(message + kept, "normalized_url"),)
    fix = Fix("recompute normalized_url and cid", tuple(e for e in edits if e)) if all(edits) else None
    return (record.finding(message, "normalized_url", fix),)


@rule("U105", "cid-mismatch", kind=KIND, fixable=True)
def cid_mismatch(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a record whose `cid` is well formed but is not `cid_` + the SHA-256 of the record's own
    `normalized_url`. (Whether `normalized_url` itself is right is U104's question: the two are
    reported separately so you know which one drifted.)

    ## Why is this bad?
    The cid is the citation's identity across waves, briefs and utilization reports; a cid that is
    not the hash of its URL joins the record to the wrong source or to none.

    ## Example

    Bad (the cid of another URL):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_d6c5ed4260ccae517e1843d8d7eb99b74785219f43501e92b9df312a3fa2158d","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ## Fix
    `citations check --fix` writes the cid computed from `normalized_url`.

    When the run's synthesis cites the record by its old cid (`[@cid_...]` or a bare 64-hex cid),
    the fix is not offered: the new cid would leave those references pointing at nothing. The
    message names where the cid is cited; rewrite the cid and those references together.
    """
    if record.passes:
        return ()
    cid, normalized = record.data.get("cid"), record.data.get("normalized_url")
    if not isinstance(cid, str) or not isinstance(normalized, str):
        return ()
    digest = _cid_digest(record)
    if digest is None or digest == cid_digest(normalized):  # a malformed cid is U106's
        return ()
    expected = cid_for(normalized)
    message = f"cid is not the SHA-256 of normalized_url {quoted(normalized)}; expected {expected}"
    kept = _cid_kept(ctx, cid)
    if kept:
        return (record.finding(message + kept, "cid"),)
    edit = _replace(record, "cid", expected)
    fix = Fix("recompute cid from normalized_url", (edit,)) if edit else None
    return (record.finding(message, "cid", fix),)


@rule("U106", "cid-format", kind=KIND, fixable=True)
def cid_format(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a `cid` that is not `cid_` followed by exactly 64 lowercase hexadecimal digits, such as
    a placeholder (`cid_alpha`), an uppercase digest or a truncated one.

    ## Why is this bad?
    Consumers join on the exact cid string; `cid_ABC...` and `cid_abc...` are different keys, and a
    placeholder cid joins to nothing.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_alpha","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[],"notes":"ok"}
    ```

    ## Fix
    `citations check --fix` writes the cid computed from `normalized_url`.

    When the run's synthesis cites the record by its old cid (`[@cid_...]` or a bare 64-hex cid),
    the fix is not offered: the new cid would leave those references pointing at nothing. The
    message names where the cid is cited; rewrite the cid and those references together.
    """
    if record.passes:
        return ()
    cid = record.data.get("cid")
    if not isinstance(cid, str) or _cid_digest(record) is not None:
        return ()
    normalized = record.data.get("normalized_url")
    message = f"cid {quoted(cid)} is not 'cid_' followed by 64 lowercase hex digits"
    fix = None
    if isinstance(normalized, str):
        kept = _cid_kept(ctx, cid)
        if kept:
            return (record.finding(message + kept, "cid"),)
        edit = _replace(record, "cid", cid_for(normalized))
        fix = Fix("compute cid from normalized_url", (edit,)) if edit else None
    return (record.finding(message, "cid", fix),)


@rule("U107", "unknown-status", kind=KIND)
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
    if record.passes:
        return ()
    status = record.data.get("status")
    if isinstance(status, str) and status not in STATUSES:
        return (record.finding(f"status {quoted(status)} is not one of {', '.join(STATUSES)}", "status"),)
    return ()


@rule("U108", "checked-at-not-iso8601", kind=KIND)
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
    if record.passes:
        return ()
    value = record.data.get("checked_at")
    if isinstance(value, str) and not _is_iso_8601(value):
        return (record.finding(f"checked_at {quoted(value)} is not an ISO 8601 date or date-time", "checked_at"),)
    return ()


@rule("U109", "http-status-inconsistent", kind=KIND)
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
    if record.passes:
        return ()
    message = _http_status_problem(record.data.get("http_status"), record.data.get("status"))
    return (record.finding(message, "http_status"),) if message else ()


def _http_status_problem(code, status) -> str | None:
    """What is wrong with ``http_status`` ``code`` for ``status``, or None."""
    if not _is_integer(code):
        return None
    code = int(code)
    if not 100 <= code <= 599:
        return f"http_status {code} is not an HTTP status code (100-599)"
    if status == "valid" and code >= 400:
        return f"status is 'valid' but http_status is {code}"
    if status == "invalid" and 200 <= code < 300:
        return f"status is 'invalid' but http_status is {code} (success)"
    return None


def _found_by(record: Record) -> list:
    """The ``found_by`` array (empty when it is not one); its entries may be of any type."""
    entries = record.data.get("found_by")
    return entries if isinstance(entries, list) else []


@rule(
    "U110",
    "found-by-wave",
    kind=KIND,
    options={"allowed-waves": Option(list, [1, 2], "wave numbers a found_by entry may carry", items=int)},
)
def found_by_wave(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a `found_by[].wave` that is not 1 or 2 (configurable with `allowed-waves` under
    `[tool.citations.rules.U110]`).

    ## Why is this bad?
    Provenance points at a wave's output; a wave that the run does not have cannot have found the
    source.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":3,"perspective_id":"p1","agent_type":"ClaudeResearcher","artifact_path":"wave-3/p1.md"}],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":2,"perspective_id":"p1","agent_type":"ClaudeResearcher","artifact_path":"wave-2/p1.md"}],"notes":"ok"}
    ```

    ## Fix
    Record the wave that produced the artifact.
    """
    if record.passes:
        return ()
    allowed = ctx.options["allowed-waves"]
    findings: tuple[Finding, ...] = ()
    for index, entry in enumerate(_found_by(record)):
        wave = entry.get("wave") if isinstance(entry, dict) else None
        if _is_integer(wave) and int(wave) not in allowed:
            expected = " or ".join(str(w) for w in allowed)
            findings += (record.finding(f"found_by[{index}].wave is {wave}; expected {expected}", "found_by", index=index),)
    return findings


def run_directory(rel: str) -> PurePosixPath:
    """The run folder of a citations file: the parent of its ``citations/`` folder, else its folder."""
    folder = PurePosixPath(rel).parent
    return folder.parent if folder.name == "citations" else folder


_MAX_CACHED_ARTIFACTS = 4096  # verdicts kept per file; a file naming more paths resolves some again


def _artifact_verdict(ctx: RuleContext, artifact_path: str) -> str:
    """``ok``, ``missing``, ``loop`` (a symlink loop) or ``escapes`` for an artifact path, cached per
    file. The check depends on the path (a wave output deleted, renamed or restored changes the
    verdict: the result cache, --since and --staged must know it was looked at)."""
    cache = ctx.state.get("artifacts")
    if cache is None:
        cache = ctx.state["artifacts"] = {}
    verdict = cache.get(artifact_path)
    if verdict is None:
        if len(cache) >= _MAX_CACHED_ARTIFACTS:
            cache.clear()
        run_dir = run_directory(ctx.rel)
        verdict = cache[artifact_path] = _resolve_artifact(ctx.root, run_dir, artifact_path)
        if verdict != "escapes":  # (a path out of the run is never looked at)
            dependencies.note_path(ctx.root, run_dir / artifact_path)
    return verdict


def _resolve_artifact(root: Path, run_dir: PurePosixPath, artifact_path: str) -> str:
    if not artifact_path or PurePosixPath(artifact_path).is_absolute() or "\\" in artifact_path or "\0" in artifact_path:
        return "escapes"
    try:
        base = (root / run_dir).resolve()
        target = sources.resolve(base / artifact_path)
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a name too long
        return "loop" if sources.is_symlink_loop(exc) else "missing"
    if not target.is_relative_to(base) or not target.is_relative_to(root):
        return "escapes"
    return "ok" if target.is_file() else "missing"


@rule("U111", "artifact-path-missing", kind=KIND)
def artifact_path_missing(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a `found_by[].artifact_path` that names no file under the run directory (the parent of
    the `citations/` folder that holds `citations.jsonl`; for a file elsewhere, its own folder).
    A path whose symlinks loop is reported as one that cannot be resolved, a symlink loop.

    ## Why is this bad?
    Provenance that points at nothing cannot be audited: nobody can see which wave output cited
    the source, or whether it was cited at all.

    ## Example

    Bad (no `wave-1/p9.md` in the run):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":1,"perspective_id":"p9","agent_type":"ClaudeResearcher","artifact_path":"wave-1/p9.md"}],"notes":"ok"}
    ```

    ```markdown title="run/wave-1/p1.md"
    Sources:
    - https://example.com/doc
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":1,"perspective_id":"p1","agent_type":"ClaudeResearcher","artifact_path":"wave-1/p1.md"}],"notes":"ok"}
    ```

    ```markdown title="run/wave-1/p1.md"
    Sources:
    - https://example.com/doc
    ```

    ## Fix
    Point `artifact_path` at the wave output, relative to the run directory, and commit that output.
    """
    if record.passes:
        return ()
    findings: tuple[Finding, ...] = ()
    for index, entry in enumerate(_found_by(record)):
        path = entry.get("artifact_path") if isinstance(entry, dict) else None
        verdict = _artifact_verdict(ctx, path) if isinstance(path, str) else "ok"
        if verdict in ("missing", "loop"):
            run_dir = run_directory(ctx.rel).as_posix()
            problem = "cannot be resolved under the run directory {!r}: a symlink loop" if verdict == "loop" else (
                "does not exist under the run directory {!r}"
            )
            message = f"found_by[{index}].artifact_path {quoted(path)} " + problem.format(run_dir)
            findings += (record.finding(message, "found_by", index=index),)
    return findings


@rule("U112", "artifact-path-escapes", kind=KIND)
def artifact_path_escapes(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a `found_by[].artifact_path` that is absolute, uses `\\`, or resolves (through `..` or
    a symlink) outside the run directory. The target is never opened.

    ## Why is this bad?
    Provenance must stay inside the run it describes; a path out of it either points at another
    run's evidence or at something that is not evidence at all.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":1,"perspective_id":"p1","agent_type":"ClaudeResearcher","artifact_path":"../other-run/wave-1/p1.md"}],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":1,"perspective_id":"p1","agent_type":"ClaudeResearcher","artifact_path":"wave-1/p1.md"}],"notes":"ok"}
    ```

    ## Fix
    Use a path relative to the run directory, without `..`.
    """
    if record.passes:
        return ()
    findings: tuple[Finding, ...] = ()
    for index, entry in enumerate(_found_by(record)):
        path = entry.get("artifact_path") if isinstance(entry, dict) else None
        if isinstance(path, str) and _artifact_verdict(ctx, path) == "escapes":
            run_dir = run_directory(ctx.rel).as_posix()
            message = f"found_by[{index}].artifact_path {quoted(path)} escapes the run directory {run_dir!r}"
            findings += (record.finding(message, "found_by", index=index),)
    return findings


class FirstLines:
    """The line on which each cid of a file first appeared.

    A dict of a million cid strings and their line numbers takes about 200 MB. Once a file has
    shown more than ``small`` cids, each well-formed one is kept in about 40 bytes instead: its
    32-byte digest and an 8-byte line number, appended to one of ``2**bits`` byte arrays chosen by
    the digest's hash (so that no file can pile its cids into one). Other cids stay in the dict.
    """

    _ENTRY = 40  # digest, then the line number (8 bytes, little-endian)

    def __init__(self, bits: int = 16, small: int = 4096) -> None:
        self._bits, self._mask, self._small = bits, (1 << bits) - 1, small
        self._lines: dict[str, int] = {}  # every cid while the file is small, then the malformed ones
        self._buckets: list[bytearray] | None = None

    def first(self, cid: str, digest: bytes | None, line: int) -> int:
        """The line ``cid`` (whose digest is ``digest``, None if it is not well formed) first
        appeared on: ``line`` itself when it is new, and now recorded."""
        if digest is None or self._buckets is None:
            first = self._lines.setdefault(cid, line)
            if self._buckets is None and len(self._lines) > self._small:
                self._compact()
            return first
        bucket = self._buckets[hash(digest) & self._mask]
        at = bucket.find(digest)
        while at != -1:
            if at % self._ENTRY == 0:
                return int.from_bytes(bucket[at + 32 : at + self._ENTRY], "little")
            at = bucket.find(digest, at + 1)  # a match across two entries
        bucket += digest + line.to_bytes(8, "little")
        return line

    def _compact(self) -> None:
        """Move the well-formed cids out of the dict into the byte arrays."""
        self._buckets = [bytearray() for _ in range(1 << self._bits)]
        lines, self._lines = self._lines, {}
        for cid, line in lines.items():
            digest = _digest(cid)
            if digest is None:
                self._lines[cid] = line
            else:
                self._buckets[hash(digest) & self._mask] += digest + line.to_bytes(8, "little")


def _first_lines(ctx: RuleContext) -> FirstLines:
    """U113's index of the line each cid of the file first appeared on."""
    first_seen = ctx.state.get("cids")
    if first_seen is None:
        first_seen = ctx.state["cids"] = FirstLines()
    return first_seen


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


@rule("U113", "duplicate-cid", kind=KIND, fixable=True)
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


_ANSWERED_HERE = frozenset(f"U{number}" for number in range(102, 114))  # the rules record_passes answers for


def record_passes(record: Record, contexts: dict[str, Any]) -> bool:
    """Whether none of the rules in ``contexts`` (code -> its RuleContext) reports anything for
    ``record``, in one pass over the record instead of one call per rule.

    False says only "run the rules": it is also the answer for anything out of the common way
    (a record the schema refuses, a rule not enabled whose question is asked anyway). True is
    only given when each rule's own test passes, with the rules' own helpers, and after doing to
    the rules' state what their checks do (U113 remembers the cid's line). The verdict on
    U102-U112 is kept in ``record.passes``, with which each of them returns at once."""
    any_context = next(iter(contexts.values()), None)
    if any_context is None:
        return True
    waves = contexts.get("U110")
    artifacts = contexts.get("U111") or contexts.get("U112")
    profile = any_context.kind_options["url-profile"]
    record.passes = _passes_checks(record, profile, waves.options["allowed-waves"] if waves else None, artifacts)
    if not record.passes or not _ANSWERED_HERE.issuperset(contexts):  # another package's rule runs itself
        return False
    return "U113" not in contexts or _first_appearance(record, contexts["U113"])



def _passes_checks(record: Record, profile: str, allowed_waves, artifacts) -> bool:
    """Whether none of U102-U112 reports anything for ``record``: ``allowed_waves`` None skips the
    test of waves, ``artifacts`` (the rule context whose verdicts to use) None that of paths."""
    data = record.data
    if not _fast_valid(data):  # U102; every field below has its schema type from here on
        return False
    status, normalized = data["status"], data["normalized_url"]
    if status not in STATUSES or not _is_iso_8601(data["checked_at"]):  # U107, U108
        return False
    if _http_status_problem(data.get("http_status"), status) is not None:  # U109
        return False
    digest = _cid_digest(record)
    if digest is None or digest != cid_digest(normalized):  # U106, U105
        return False
    if normalized not in _accepted_normalizations(record, profile):  # U103, U104
        return False
    if http_url_problem(data["url"]) is not None:  # U103
        return False
    for entry in data["found_by"]:  # U110, U111, U112
        if allowed_waves is not None and int(entry["wave"]) not in allowed_waves:
            return False
        if artifacts is not None and _artifact_verdict(artifacts, entry["artifact_path"]) != "ok":
            return False
    return True


def _first_appearance(record: Record, ctx: RuleContext) -> bool:
    """U113 (``ctx`` its context): whether the record's cid appears here first, remembered as
    U113's check does."""
    return _first_lines(ctx).first(record.data["cid"], _cid_digest(record), record.line) == record.line
