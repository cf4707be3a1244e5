"""A valid ``citation.v1`` record for a URL, for tests to vary one field at a time."""

from __future__ import annotations

from pytest_citations.kinds.url_citations.urls import cid_for, normalize_spec


def valid_record(url: str, **fields) -> dict:
    """The record of ``url`` with every field valid, then ``fields`` put over it."""
    normalized = normalize_spec(url)
    record = {
        "schema_version": "citation.v1", "normalized_url": normalized, "cid": cid_for(normalized), "url": normalized,
        "url_original": url, "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "http_status": 200,
        "found_by": [{"wave": 1, "perspective_id": "p1", "agent_type": "A", "artifact_path": "wave-1/p1.md"}],
        "notes": "ok",
    }
    record.update(fields)
    return record
