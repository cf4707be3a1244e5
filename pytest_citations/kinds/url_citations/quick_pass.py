"""The records' quick pass (the kind's ``quick_pass``, see ``model.py``): whether none of the url
rules reports anything for a record, told in one call with the rules' own helpers. It is on the
hot path: one pass over each record, nothing computed that a rule would not compute."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_citations.kinds.url_citations.fields import (
    STATUSES,
    _accepted_normalizations,
    _cid_digest,
    _http_status_problem,
    _is_iso_8601,
)
from pytest_citations.kinds.url_citations.first_lines import _first_lines
from pytest_citations.kinds.url_citations.provenance import _artifact_verdict
from pytest_citations.kinds.url_citations.record import Record
from pytest_citations.kinds.url_citations.schema import _fast_valid
from pytest_citations.kinds.url_citations.urls import cid_digest, http_url_problem

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext


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
