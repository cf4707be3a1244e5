"""The url rules' predicates (``passes=`` of each rule: the check's cheap test of a record it
finds nothing in) are True only of records their rule's check finds nothing in, and leave the
rules' state as the checks would: a file gives the same findings, in the same order, whether
every check runs on every record or a check runs only where its rule's predicate is not True.

Each file is checked three ways (see :data:`WAYS`), with fresh rule contexts each time."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_citations.contexts import FileContext, RuleContext
from pytest_citations.engine import Engine
from pytest_citations.hookspecs import hookimpl, plugin_manager
from pytest_citations.kinds import Reported
from pytest_citations.kinds.url_citations import rules
from pytest_citations.kinds.url_citations.model import KIND
from pytest_citations.kinds.url_citations.urls import cid_for
from pytest_citations.rules import Finding, rule
from url_records import valid_record

REALDATA = Path("/work/shared/realdata")


WAYS = ("plain", "predicates", "runner")
"""How the rules are run over a file: each check on every record (``plain``, the reference); a
check only where its rule's predicate is not True, rule by rule (``predicates``); as the engine's
rule runner runs them (``runner``)."""


def _passes(item, record, ctx) -> bool:
    """The verdict of ``item``'s predicate, False when it raises (it then says nothing)."""
    try:
        return item.passes(record, ctx)
    except Exception:
        return False


def findings(path: Path, way: str) -> tuple[list, int]:
    """(the rules' findings, how many checks the predicates spared) for the citations file
    ``path``, with fresh rule contexts."""
    engine = Engine.load(path.parent)
    rel = path.resolve().relative_to(engine.config.root).as_posix()
    enabled = engine.runner.enabled_rules(KIND)
    file = FileContext(engine, rel, KIND)
    if way == "runner":
        found = [(d.code, d.line, d.col, d.message) for _, d in engine.runner.checked_units(file, enabled, ends=False)]
        return [item for item in found if item[0] != "U101"], 0
    contexts = {r.code: RuleContext(file, engine.config.rule_options.get(r.code, {})) for r in enabled}
    found, spared = [], 0
    for record in KIND.units(file):
        if isinstance(record, Reported):
            continue
        for item in enabled:
            ctx = contexts[item.code]
            if way == "predicates" and item.passes is not None and _passes(item, record, ctx):
                spared += 1
                continue
            found.extend((item.code, f.line, f.col, f.message) for f in item.check(record, ctx) or ())
    return found, spared


def all_ways(path: Path) -> tuple[list, int]:
    """The plain findings and how many checks the predicates spared, after checking that every
    way gives the plain findings."""
    results = {way: findings(path, way) for way in WAYS}
    for way in WAYS:
        assert results[way][0] == results["plain"][0], way
    return results["plain"][0], results["predicates"][1]


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
    plain, spared = all_ways(path)
    assert len({code for code, *_ in plain}) >= 11  # the file trips almost every rule
    assert 0 < spared < 12 * len(TRICKY)


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


def test_predicates_that_raise_change_nothing(tmp_path):
    """A predicate that raises says nothing: the checks run, and no crash is reported."""
    _write_run(tmp_path, [json.dumps(record) for record in TRICKY])

    def diagnostics(rules_run=None) -> list:
        engine = Engine.load(tmp_path)
        file = FileContext(engine, "run/citations/citations.jsonl", KIND)
        return [(unit and unit.line, d) for unit, d in engine.runner.checked_units(file, rules_run or engine.runner.enabled_rules(KIND))]

    expected = diagnostics()
    enabled = Engine.load(tmp_path).runner.enabled_rules(KIND)

    def broken(record, ctx):
        raise RuntimeError("a bug in a predicate")

    for every in (True, False):  # every predicate broken, or one
        assert diagnostics([dataclasses.replace(r, passes=broken) if every or r.code == "U107" else r for r in enabled]) == expected


def test_a_crash_in_a_helper_of_a_predicate_is_reported_by_the_rule_that_crashes(tmp_path, monkeypatch):
    _write_run(tmp_path, [json.dumps(record) for record in TRICKY])
    expected = [d for d in Engine.load(tmp_path).check([tmp_path]).diagnostics if d.code != "U108"]

    def broken(value):
        raise RuntimeError("a bug in the timestamp test")

    monkeypatch.setattr(rules, "_is_iso_8601", broken)  # where U108's predicate and check look it up
    found = Engine.load(tmp_path).check([tmp_path]).diagnostics
    crashes = [d for d in found if d.code == "C006"]
    assert [d.message.split(":")[0] for d in crashes] == ["internal error in rule U108 (checked-at-not-iso8601)"]
    assert [d for d in found if d.code != "C006"] == expected


# -- the rule runner asks each rule's own predicate, and only its own ---------------------------


def _counted(item, calls: list):
    """``item`` with a check that notes each record it is called with."""
    check = item.check

    def counted_check(record, ctx):
        calls.append((item.code, record.line))
        return check(record, ctx)

    return dataclasses.replace(item, check=counted_check)


def test_a_rule_without_a_predicate_runs_on_records_the_built_in_predicates_pass(tmp_path):
    _write_run(tmp_path, [json.dumps(valid_record(f"https://a.example/{n}")) for n in range(4)])

    @rule("X960", "every-record", kind="url-citations")
    def every_record(record, ctx):
        """Reports every record."""
        yield Finding("seen", record.line)

    engine = Engine.load(tmp_path)
    built_in_calls: list = []
    running = [_counted(r, built_in_calls) for r in engine.runner.enabled_rules(KIND)] + [every_record]
    file = FileContext(engine, "run/citations/citations.jsonl", KIND)
    found = [(d.code, d.line) for _, d in engine.runner.checked_units(file, running, ends=False)]
    assert found == [("X960", line) for line in range(1, 5)]
    assert built_in_calls == []  # every built-in predicate passed every record: no built-in check ran


def test_a_predicate_is_asked_only_for_its_own_rule(tmp_path):
    """Two rules with one check: the one whose predicate passes every record is never called, the
    one without a predicate is called on every record."""
    _write_run(tmp_path, [json.dumps(valid_record(f"https://a.example/{n}")) for n in range(3)])

    def reports_every_record(record, ctx):
        """Reports every record."""
        yield Finding("seen", record.line)

    asked = []

    def always_passes(record, ctx):
        asked.append(record.line)
        return True

    calls: list = []
    with_predicate = _counted(rule("X961", "with-predicate", kind="url-citations", passes=always_passes)(reports_every_record), calls)
    without = _counted(rule("X962", "without-predicate", kind="url-citations")(reports_every_record), calls)
    engine = Engine.load(tmp_path)
    file = FileContext(engine, "run/citations/citations.jsonl", KIND)
    found = [(d.code, d.line) for _, d in engine.runner.checked_units(file, [with_predicate, without], ends=False)]
    assert asked == [1, 2, 3]
    assert calls == [("X962", 1), ("X962", 2), ("X962", 3)]
    assert found == [("X962", 1), ("X962", 2), ("X962", 3)]


def test_the_built_in_predicates_are_not_used_for_a_plugin_rule_with_a_built_in_check(tmp_path):
    """A plugin rule that runs U110's check under its own code, without a predicate, while U110
    is off: the record's waves are checked by it (no verdict of another rule answers for it)."""
    wave_3 = {"wave": 3, "perspective_id": "p1", "agent_type": "A", "artifact_path": "wave-1/p1.md"}
    _write_run(tmp_path, [json.dumps(valid_record("https://a.example/", found_by=[wave_3]))], 'ignore = ["U110"]\n')
    from pytest_citations.kinds.url_citations.provenance_rules import found_by_wave

    waves_again = rule("X963", "found-by-wave-again", kind="url-citations", options=found_by_wave.options)(found_by_wave.check)

    class Plugin:
        @hookimpl
        def citations_rules(self):
            return [waves_again]

    manager = plugin_manager(load_entry_points=False)
    manager.register(Plugin())
    found = [(d.code, d.line, d.message) for d in Engine.load(tmp_path, manager=manager).check([tmp_path]).diagnostics]
    assert found == [("X963", 1, "found_by[0].wave is 3; expected 1 or 2")]
