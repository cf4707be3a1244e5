'''Rules on a record's URL and its cid (U103-U106): an absolute ``url_original`` and ``url``
(U103), ``normalized_url`` the normalization of ``url_original`` (U104), and the cid the SHA-256 of
``normalized_url`` (U105), written in its one form (U106). A fix that would change a cid the run's
synthesis cites is withheld.'''

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import Edit, Fix, quoted
from pytest_citations.kinds.url_citations.fields import _accepted_normalizations, _cid_digest, _normalized_original
from pytest_citations.kinds.url_citations.record import Record
from pytest_citations.kinds.url_citations.urls import cid_digest, cid_for, http_url_problem

# imported here, not where it is used: importing it registers the run-wide index of the cids the
# synthesis cites, which a cached result of a check that consulted it must find in a later run
from pytest_citations.kinds.url_citations.utilization import citing_places
from pytest_citations.rules import Finding, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "url-citations"


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


def _urls_absolute(record: Record, ctx: RuleContext) -> bool:
    """U103 finds nothing: ``url_original`` has a normalization and ``url`` is an http(s) URL."""
    accepted = _accepted_normalizations(record, ctx.file.kind_options["url-profile"])
    return bool(accepted) and http_url_problem(record.data["url"]) is None


@rule("U103", "url-not-absolute", kind=KIND, passes=_urls_absolute)
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
    findings: tuple[Finding, ...] = ()
    original = record.data.get("url_original")
    if isinstance(original, str) and _normalized_original(record, ctx.kind_options["url-profile"]) is None:
        message = f"url_original {quoted(original)} is not an absolute URL (scheme://host/...)"
        findings += (record.finding(message, "url_original"),)
    url = record.data.get("url")
    if isinstance(url, str) and (problem := http_url_problem(url)) is not None:
        findings += (record.finding(f"url {quoted(url)} is not an absolute http(s) URL{problem}", "url"),)
    return findings


def _other_profile(profile: str) -> str:
    return "whatwg" if profile == "spec" else "spec"


def _normalized_url_accepted(record: Record, ctx: RuleContext) -> bool:
    """U104 finds nothing: ``normalized_url`` is one the profile accepts for ``url_original``."""
    return record.data["normalized_url"] in _accepted_normalizations(record, ctx.file.kind_options["url-profile"])


@rule("U104", "normalized-url-mismatch", kind=KIND, fixable=True, passes=_normalized_url_accepted)
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


def _cid_matches(record: Record, ctx: RuleContext) -> bool:
    """U105 finds nothing: the cid spells the digest of ``normalized_url`` (or is malformed, which
    is U106's)."""
    digest = _cid_digest(record)
    return digest is None or digest == cid_digest(record.data["normalized_url"])


@rule("U105", "cid-mismatch", kind=KIND, fixable=True, passes=_cid_matches)
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


def _cid_well_formed(record: Record, ctx: RuleContext) -> bool:
    """U106 finds nothing: the cid is well formed."""
    return _cid_digest(record) is not None


@rule("U106", "cid-format", kind=KIND, fixable=True, passes=_cid_well_formed)
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
