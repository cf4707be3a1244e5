"""--fix is bounded (issue 18, N10): a pass applies every fix that overlaps no other at once, past
the cap of diagnostics a file keeps of each code, so a file with thousands of independent findings
is fixed in one pass; the passes are bounded, and what is left is said. ``--fix`` runs on the
content of pull requests (pre-commit.ci, autofix bots)."""

from __future__ import annotations

import json
import time

from bounded_run import check_bounded, repo_with
from cpu_bounds import assert_cpu_under
from pytest_citations.core.diagnostics import Edit, Fix
from pytest_citations.engine import KEPT_PER_CODE, Engine
from pytest_citations.kinds.url_citations.urls import cid_for
from pytest_citations.run import fix as fix_module
from pytest_citations.run.fix import MAX_PASSES, apply_fixes, fix_file, summary

CITATIONS = "runs/r/citations/citations.jsonl"


def record(url: str, found_by=(), notes: str = "ok") -> str:
    """A citation.v1 record whose only finding, if any, is a normalized_url that keeps a
    tracking parameter (U104, fixable: normalized_url and cid recomputed)."""
    return json.dumps({"schema_version": "citation.v1", "normalized_url": url, "cid": cid_for(url), "url": url,
                       "url_original": url, "status": "valid", "checked_at": "2026-02-13T12:35:00Z",
                       "found_by": list(found_by), "notes": notes})


def tracked(count: int, notes: str = "ok") -> str:
    return "".join(record(f"https://example.com/page/{n:05d}?utm_source=x", notes=notes) + "\n" for n in range(count))


def counting_checks(monkeypatch) -> list[int]:
    """Count the checks of a file's text that fixing makes (each one reads the whole file)."""
    calls: list[int] = []
    check_file = Engine.check_file

    def counted(self, *args, **kwargs):
        calls.append(1)
        return check_file(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "check_file", counted)
    return calls


def test_a_file_with_thousands_of_independent_findings_is_fixed_at_once_in_bounded_time(tmp_path):
    """The audit's case: 10000 U104 records, about 6 MB. Before: 25 rounds of 200 fixes, each
    re-checking the whole file (about a minute), and 5000 findings left."""
    count = 10_000
    repo = repo_with(tmp_path / "repo", {CITATIONS: tracked(count, notes="n" * 300)})
    outcome = check_bounded(repo, "--fix")
    outcome.assert_bounded()
    assert outcome.status == 0, outcome.output[-2000:]
    assert f"applied {count} fixes in 1 file" in outcome.stderr
    lines = (repo / CITATIONS).read_text(encoding="utf-8").splitlines()
    assert len(lines) == count and "utm_source" not in "".join(json.loads(line)["normalized_url"] for line in lines)
    assert all(json.loads(line)["cid"] == cid_for(json.loads(line)["normalized_url"]) for line in lines)


def test_independent_fixes_past_the_cap_need_one_pass(tmp_path, monkeypatch):
    """Fixing checks the file once, and once more after its one pass: never a check per 200 fixes."""
    count = 5 * KEPT_PER_CODE
    repo = repo_with(tmp_path / "repo", {CITATIONS: tracked(count)})
    engine = Engine.load(repo)
    checks = counting_checks(monkeypatch)
    result = fix_file(engine, CITATIONS, engine.kinds_for(CITATIONS))
    assert (result.applied, result.diagnostics, result.stopped) == (count, [], False)
    assert len(checks) == 2


def test_fixes_that_wait_for_each_other_stop_after_the_passes_allowed_and_say_what_is_left(tmp_path, monkeypatch):
    """Copies of one record with different found_by entries: each merge rewrites the first record,
    so one merge per pass. Fixing stops after MAX_PASSES passes, says so, and reports the rest."""
    copies = MAX_PASSES + 5
    found_by = [[{"wave": 1, "perspective_id": f"p{n}", "agent_type": "A", "artifact_path": "x.md"}] for n in range(copies)]
    text = "".join(record("https://example.com/a", entries) + "\n" for entries in found_by)
    repo = repo_with(tmp_path / "repo", {CITATIONS: text, "x.md": ""})
    engine = Engine.load(repo)
    checks = counting_checks(monkeypatch)
    result = fix_file(engine, CITATIONS, engine.kinds_for(CITATIONS))
    assert len(checks) <= MAX_PASSES + 1
    assert result.applied == MAX_PASSES and result.stopped
    left = [d for d in result.diagnostics if d.code == "U113"]
    assert len(left) == copies - 1 - MAX_PASSES and all(d.fix is not None for d in left)
    shown = summary({CITATIONS: result}, refresh=False)
    assert f"{CITATIONS}: {MAX_PASSES} fixes; fixing stopped after {MAX_PASSES} passes" in shown
    merged = json.loads((repo / CITATIONS).read_text(encoding="utf-8").splitlines()[0])
    assert [entry["perspective_id"] for entry in merged["found_by"]] == [f"p{n}" for n in range(MAX_PASSES + 1)]


def test_a_pass_that_would_add_a_finding_keeps_the_fixes_before_the_fix_that_would(tmp_path):
    """Fixing the normalized_url of record 5 gives it the cid of the last record (a new U113): that
    fix is left out, and the fixes before it are still applied (before: the whole round was undone)."""
    lines = [record(f"https://example.com/page/{n}?utm_source=x") for n in range(10)] + [record("https://example.com/page/5")]
    repo = repo_with(tmp_path / "repo", {CITATIONS: "\n".join(lines) + "\n"})
    engine = Engine.load(repo)
    result = fix_file(engine, CITATIONS, engine.kinds_for(CITATIONS))
    assert result.applied == 5 and not result.stopped
    fixed = [json.loads(line)["normalized_url"] for line in (repo / CITATIONS).read_text(encoding="utf-8").splitlines()]
    assert fixed[:5] == [f"https://example.com/page/{n}" for n in range(5)]
    assert fixed[5:10] == [f"https://example.com/page/{n}?utm_source=x" for n in range(5, 10)]
    assert sorted({d.code for d in result.diagnostics}) == ["U104"]


def test_applying_many_fixes_takes_time_linear_in_the_text_and_the_fixes():
    """Before: each fix copied the whole text, and each was compared with every fix taken."""
    count, width = 20_000, 100
    text = "".join(f"{n:0{width - 1}d}\n" for n in range(count))
    fixes = [Fix("x", (Edit(n * width, n * width + 1, "X"),)) for n in reversed(range(count))]
    fixes.append(Fix("overlaps the first", (Edit(0, 2, "YY"),)))
    started = time.process_time()
    fixed, applied = apply_fixes(text, fixes)
    assert_cpu_under(time.process_time() - started, 1.0)
    assert applied == count and fixed.count("X") == count and "YY" not in fixed
    assert len(fixed) == len(text)


def test_the_report_after_fixing_keeps_the_cap_of_a_plain_check(tmp_path, monkeypatch):
    """What fixing leaves is reported as a plain check reports it: at most KEPT_PER_CODE of each
    code and a C009 for the others (the fixer's own checks keep more, to fix them)."""
    count = KEPT_PER_CODE + 50
    repo = repo_with(tmp_path / "repo", {CITATIONS: tracked(count)})
    engine = Engine.load(repo)
    monkeypatch.setattr(fix_module, "introduces_findings", lambda before, after: True)  # every fix is undone
    result = fix_file(engine, CITATIONS, engine.kinds_for(CITATIONS))
    assert result.applied == 0
    plain = Engine.load(repo)
    assert result.diagnostics == plain.check_file(CITATIONS, plain.kinds_for(CITATIONS))
    assert [d.code for d in result.diagnostics].count("U104") == KEPT_PER_CODE


def test_the_fixes_a_pass_keeps_past_the_cap_are_bounded_by_their_text_too(tmp_path, monkeypatch):
    """A check of the fixer keeps fixes past the cap while their replacement texts fit in
    FIX_TEXT_PER_PASS characters: the rest wait for the next pass."""
    count = KEPT_PER_CODE + 120
    repo = repo_with(tmp_path / "repo", {CITATIONS: tracked(count)})
    engine = Engine.load(repo)
    first = next(d for d in engine.check_file(CITATIONS, engine.kinds_for(CITATIONS)) if d.fix)
    monkeypatch.setattr(fix_module, "FIX_TEXT_PER_PASS", 50 * sum(len(edit.text) for edit in first.fix.edits))
    checked: list[int] = []
    check_file = Engine.check_file

    def counted(self, *args, **kwargs):
        found = check_file(self, *args, **kwargs)
        checked.append(sum(d.code == "U104" for d in found))
        return found

    monkeypatch.setattr(Engine, "check_file", counted)
    result = fix_file(engine, CITATIONS, engine.kinds_for(CITATIONS))
    assert result.applied == count and result.diagnostics == []
    assert checked == [KEPT_PER_CODE + 50, 70, 0]
