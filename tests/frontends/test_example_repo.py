"""The shipped example repository: every finding, exactly, as the README's main job shows it."""

from __future__ import annotations

from conftest import PROJECT
from pytest_citations.engine import Engine

EXAMPLE = PROJECT / "fixtures" / "example-repo"
SOLID = "research-runs/2026-02-13-solid-state-batteries/citations/citations.jsonl"
EV = "research-runs/2026-01-30-ev-market/citations/citations.jsonl"
RUN = "research-runs/2026-02-13-solid-state-batteries"

EXPECTED = [
    (EV, 2, 53, "U104", "normalized_url 'https://ev-volumes.com/' is not the spec normalization of url_original; "
     "expected 'https://ev-volumes.com' (it matches the whatwg profile: set url-profile = \"whatwg\" under "
     "[tool.citations.kinds.url-citations] if the producer writes URLs that way)"),
    (SOLID, 1, 53, "U104", "normalized_url 'https://www.energy.gov/eere/vehicles/articles/solid-state-battery-pilot-lines"
     "?utm_source=newsletter&utm_medium=email' is not the spec normalization of url_original; expected "
     "'https://www.energy.gov/eere/vehicles/articles/solid-state-battery-pilot-lines'"),
    (SOLID, 3, 115, "U105", "cid is not the SHA-256 of normalized_url 'https://batteries.example.org/reports/2025/scale-up'; "
     "expected cid_29c66f75a9dd14ab172ddb40405ff5239a40d3985a33a5fa5ed596c52abf21c6"),
    (SOLID, 4, 96, "U106", "cid 'cid_25FDEFCA06C027405BA41022B37DC5D5A1F15721C38D73CA65F1AC30FE110CB0' is not 'cid_' "
     "followed by 64 lowercase hex digits"),
    (SOLID, 5, 405, "U107", "status 'ok' is not one of valid, invalid, mismatch, paywalled, blocked"),
    (SOLID, 5, 425, "U108", "checked_at '2026-02-30T09:12:00Z' is not an ISO 8601 date or date-time"),
    (SOLID, 6, 371, "U109", "status is 'valid' but http_status is 404"),
    (SOLID, 7, 698, "U110", "found_by[1].wave is 3; expected 1 or 2"),
    (SOLID, 7, 698, "U111", f"found_by[1].artifact_path 'wave-3/p4.md' does not exist under the run directory '{RUN}'"),
    (SOLID, 8, 114, "U113", "cid cid_d06d03fe036db1219f4f59dad8f9771e87b6f9c86ea31d0d785bb17457fd3c76 already appears on "
     "line 2: merge the records"),
    (SOLID, 9, 462, "U112", f"found_by[0].artifact_path '../2026-01-30-ev-market/wave-1/p1.md' escapes the run directory '{RUN}'"),
    (SOLID, 10, 234, "U103", "url_original '/docs/solid-state-faq' is not an absolute URL (scheme://host/...)"),
    (SOLID, 11, 1, "U102", "record is missing required fields: found_by, notes"),
    (SOLID, 12, 118, "U101", "invalid JSON: unterminated string starting at column 118"),
]


def test_every_finding_in_the_example_repository():
    report = Engine.load(EXAMPLE).check([EXAMPLE])
    assert report.files == [EV, SOLID]
    assert [(d.path, d.line, d.col, d.code, d.message) for d in report.diagnostics] == EXPECTED


def test_every_url_rule_fires_on_the_example_repository():
    report = Engine.load(EXAMPLE).check([EXAMPLE])
    fired = {d.code for d in report.diagnostics}
    assert fired == {f"U{n}" for n in range(101, 114)}


def test_whatwg_profile_accepts_the_whatwg_producer(tmp_path):
    engine = Engine.load(EXAMPLE)
    engine.config.kinds["url-citations"].options["url-profile"] = "whatwg"
    assert engine.check([EXAMPLE / EV]).diagnostics == []
