"""The url rules' shared verdict on a record (every rule but U113 returns at once for a record that
passes it) and the kind's one-call check of a record (``quick_pass``) say a record passes only
when every rule, each running its whole test, reports nothing for it; and they leave the rules'
state as the rules would.

Each file is checked three ways (see :data:`WAYS`), with fresh rule contexts each time: all must
give the same findings, in the same order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_citations.contexts import FileContext, RuleContext
from pytest_citations.engine import Engine
from pytest_citations.kinds import Reported
from pytest_citations.kinds.url_citations import quick_pass, rules
from pytest_citations.kinds.url_citations.model import KIND
from pytest_citations.kinds.url_citations.urls import cid_for
from url_records import valid_record

REALDATA = Path("/work/shared/realdata")


def _contexts(engine: Engine, file: FileContext) -> dict[str, RuleContext]:
    return {r.code: RuleContext(file, engine.config.rule_options.get(r.code, {})) for r in engine.runner.enabled_rules(KIND)}


WAYS = ("plain", "shared", "quick")
"""How the rules are run over a file: each doing its whole test (``plain``, the reference); as
the engine runs them, sharing one verdict per record (``shared``); as an engine that asks the
kind's ``quick_pass`` first runs them (``quick``)."""


def findings(path: Path, way: str) -> tuple[list, int]:
    """(the rules' findings, how many records were passed without them) for the citations file
    ``path``, with fresh rule contexts."""
    engine = Engine.load(path.parent)
    rel = path.resolve().relative_to(engine.config.root).as_posix()
    checks = {r.code: r.check for r in engine.runner.enabled_rules(KIND)}
    file = FileContext(engine, rel, KIND)
    contexts = _contexts(engine, file)
    found, passed = [], 0
    for record in KIND.units(file):
        if isinstance(record, Reported):
            continue
        if way == "plain":
            record.passes = False  # as if asked and refused: every rule runs its own test
        elif way == "quick" and KIND.quick_pass(record, contexts):
            passed += 1
            continue
        for code, ctx in contexts.items():
            found.extend((code, f.line, f.col, f.message) for f in checks[code](record, ctx) or ())
    return found, passed


def all_ways(path: Path) -> tuple[list, int]:
    """The plain findings and the records quick_pass passed, after checking that every way gives
    the plain findings."""
    results = {way: findings(path, way) for way in WAYS}
    for way in WAYS:
        assert results[way][0] == results["plain"][0], way
    return results["plain"][0], results["quick"][1]


def _write_run(root: Path, lines: list[str], pyproject: str = "") -> Path:
    run = root / "run"
    (run / "citations").mkdir(parents=True, exist_ok=True)
    (run / "wave-1").mkdir(exist_ok=True)
    (run / "wave-1" / "p1.md").write_text("x\n")
    (root / "pyproject.toml").write_text("[tool.citations]\n" + pyproject)
    (run / "citations" / "citations.jsonl").write_text("\n".join(lines) + "\n")
    return run / "citations" / "citations.jsonl"


GOOD_ENTRY = {"wave": 1, "perspective_id": "p1", "agent_type": "A", "artifact_path": "wave-1/p1.md"}
UPPER = "cid_" + cid_for("https://b.example/")[4:].upper()
TRICKY = [
    valid_record("https://a.example/x?utm_source=1"),
    valid_record("https://a.example/x?utm_source=2"),  # the cid of line 1 again
    valid_record("https://b.example/", cid=UPPER),
    valid_record("https://c.example/", cid="cid_alpha"),
    valid_record("https://d.example/", checked_at="2026-02-30", status="ok", http_status=404),
    valid_record("https://d.example/2", status="Valid"),
    valid_record("https://d.example/3", checked_at="13/02/2026"),
    valid_record("https://d.example/4", http_status=404),
    valid_record("https://d.example/5", status="invalid", http_status=204),
    valid_record("https://d.example/6", http_status=99),
    valid_record("https://d.example/7", http_status=404.0),
    valid_record("https://d.example/8", http_status=None, title=None, publisher=None, evidence_snippet=None),
    valid_record("https://d.example/9", http_status=True),
    valid_record("https://e.example/", found_by=[{"wave": 3, "perspective_id": "p", "agent_type": "A", "artifact_path": "../x.md"}]),
    valid_record("https://e.example/2", found_by=[{"wave": 2.0, "perspective_id": "p", "agent_type": "A", "artifact_path": "wave-1/p1.md"}]),
    valid_record("https://e.example/3", found_by=[{"wave": 1, "perspective_id": "p", "agent_type": "A", "artifact_path": "wave-1/p9.md"}]),
    valid_record("https://e.example/4", found_by=[{"wave": 1, "perspective_id": "p", "agent_type": "A", "artifact_path": "/etc/passwd"}]),
    valid_record("https://e.example/5", found_by=[{"wave": 1, "perspective_id": "p", "agent_type": "A", "artifact_path": "a\\b"}]),
    valid_record("https://e.example/6", found_by=[]),
    valid_record("https://e.example/10", found_by=[GOOD_ENTRY, {**GOOD_ENTRY, "wave": 3}]),
    valid_record("https://e.example/11", found_by=[GOOD_ENTRY, {**GOOD_ENTRY, "artifact_path": "wave-1/p9.md"}]),
    valid_record("https://e.example/12", found_by=[GOOD_ENTRY, {**GOOD_ENTRY, "artifact_path": "../../x.md"}]),
    valid_record("https://e.example/13", found_by=[GOOD_ENTRY, {**GOOD_ENTRY, "agent_type": None}]),
    valid_record("https://e.example/7", found_by=[{"wave": 1}]),
    valid_record("https://e.example/8", found_by=["x"]),
    valid_record("https://e.example/9", found_by={}),
    valid_record("https://f.example/", normalized_url="https://F.example/", title=5),
    valid_record("https://f.example/2", normalized_url="https://f.example/2/"),
    valid_record("https://g.example/", url_original="example.com/doc"),
    valid_record("https://g.example/2", url_original="HTTPS://G.example:443/2/#x"),
    valid_record("https://g.example/3", schema_version="citation.v2"),
    valid_record("https://g.example/4", notes=None),
    {"schema_version": "citation.v1"},
    valid_record("https://h.example/", cid=cid_for("https://other.example/")),
    valid_record("https://h.example/2"),
    valid_record("https://h.example/2", cid=cid_for("https://h.example/2")),  # a duplicate of the line before
]


def test_tricky_records_give_the_same_findings_every_way(tmp_path):
    path = _write_run(tmp_path, [json.dumps(record) for record in TRICKY])
    plain, passed = all_ways(path)
    assert len({code for code, *_ in plain}) >= 11  # the file trips almost every rule
    assert 0 < passed < len(TRICKY)


def test_settings_of_the_rules_are_the_ones_asked(tmp_path):
    lines = [json.dumps(valid_record("https://a.example/", found_by=[
        {"wave": 3, "perspective_id": "p", "agent_type": "A", "artifact_path": "wave-1/p1.md"}]))]
    lines.append(json.dumps(valid_record("https://a.example/?b=1&a=2", normalized_url="https://a.example/?b=1&a=2")))
    path = _write_run(tmp_path, lines, '\n[tool.citations.rules.U110]\nallowed-waves = [3]\n'
                                      '[tool.citations.kinds.url-citations]\nurl-profile = "whatwg"\n')
    all_ways(path)


def test_rules_not_enabled_are_not_asked(tmp_path):
    path = _write_run(tmp_path, [json.dumps(record) for record in TRICKY], '\nignore = ["U110", "U111", "U112", "U113"]\n')
    plain, _ = all_ways(path)
    assert not {"U110", "U111", "U112", "U113"} & {code for code, *_ in plain}


_field_values = st.sampled_from([None, 1, 1.0, 1.5, True, "", "x", "valid", "invalid", "2026-02-13", "cid_x", [], {}, 200,
                                 404, 600, "https://a.example/x", "HTTPS://A.example:443/x/?b=2&a=1#f", "wave-1/p1.md"])


@st.composite
def mutated(draw):
    record = valid_record(draw(st.sampled_from(["https://a.example/x", "https://a.example/x?utm_source=1", "https://b.example/"])))
    for _ in range(draw(st.integers(0, 3))):
        target = record
        if draw(st.booleans()) and record.get("found_by"):
            target = record["found_by"][0] if isinstance(record["found_by"], list) and record["found_by"] and isinstance(
                record["found_by"][0], dict) else record
        key = draw(st.sampled_from(sorted(target) + ["extra"]))
        if draw(st.booleans()):
            target.pop(key, None)
        else:
            target[key] = draw(_field_values)
    return record


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(mutated(), min_size=1, max_size=6))
def test_mutated_records_give_the_same_findings_every_way(tmp_path_factory, records):
    root = tmp_path_factory.mktemp("run")
    path = _write_run(root, [json.dumps(record) for record in records])
    all_ways(path)


def _realdata_files() -> list[Path]:
    if not REALDATA.is_dir():
        return []
    return sorted(REALDATA.rglob("citations.jsonl"))[:20]


@pytest.mark.skipif(not _realdata_files(), reason="no citations.jsonl under /work/shared/realdata")
def test_realdata_gives_the_same_findings_both_ways():
    for path in _realdata_files():
        all_ways(path)


def test_a_quick_pass_that_raises_changes_nothing(tmp_path, monkeypatch):
    _write_run(tmp_path, [json.dumps(record) for record in TRICKY])
    expected = Engine.load(tmp_path).check([tmp_path]).diagnostics

    def broken(record, contexts):
        raise RuntimeError("a bug in the quick pass")

    monkeypatch.setattr(type(KIND), "quick_pass", property(lambda kind: broken))
    assert Engine.load(tmp_path).check([tmp_path]).diagnostics == expected


def test_a_crash_in_the_shared_verdict_is_reported_by_the_rule_that_crashes(tmp_path, monkeypatch):
    _write_run(tmp_path, [json.dumps(record) for record in TRICKY])
    expected = [d for d in Engine.load(tmp_path).check([tmp_path]).diagnostics if d.code != "U108"]

    def broken(value):
        raise RuntimeError("a bug in the timestamp test")

    monkeypatch.setattr(rules, "_is_iso_8601", broken)  # where U108 looks it up
    monkeypatch.setattr(quick_pass, "_is_iso_8601", broken)  # and where the shared verdict does
    found = Engine.load(tmp_path).check([tmp_path]).diagnostics
    crashes = [d for d in found if d.code == "C006"]
    assert [d.message.split(":")[0] for d in crashes] == ["internal error in rule U108 (checked-at-not-iso8601)"]
    assert [d for d in found if d.code != "C006"] == expected
