"""What the url rules and their predicates ask of a record's fields, each answered the same
way for all of them: the ``normalized_url`` values a producer writes for ``url_original`` and the
digest a cid spells (both kept in the record's memo), whether a value is a JSON integer, whether a
time stamp is ISO 8601, and what in ``http_status`` contradicts ``status``."""

from __future__ import annotations

from functools import lru_cache
from typing import TypeGuard

from pytest_citations.core.timestamps import parse_iso_8601
from pytest_citations.kinds.url_citations.record import Record
from pytest_citations.kinds.url_citations.urls import NotAbsoluteURL, normalizations

STATUSES = ("valid", "invalid", "mismatch", "paywalled", "blocked")


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


def _is_integer(value) -> TypeGuard[int | float]:
    if type(value) is int:  # the common case, first
        return True
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())


_MAX_CACHED_TIMESTAMP = 64  # characters; a longer checked_at is parsed without being kept


@lru_cache(maxsize=1024)
def _cached_is_iso_8601(value: str) -> bool:
    return parse_iso_8601(value) is not None


def _is_iso_8601(value: str) -> bool:
    """Whether ``value`` is an ISO 8601 date or date-time. Verdicts on short values are cached, so
    a time stamped on many records is parsed once."""
    return _cached_is_iso_8601(value) if len(value) <= _MAX_CACHED_TIMESTAMP else parse_iso_8601(value) is not None


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
