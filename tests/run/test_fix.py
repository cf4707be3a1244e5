"""--fix: recomputes normalized_url and cid, merges duplicates, and loses nothing else."""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest

from conftest import PROJECT
from pytest_citations.core import sources
from pytest_citations.core.diagnostics import Edit, Fix
from pytest_citations.engine import Engine
from pytest_citations.kinds.url_citations.urls import cid_for
from pytest_citations.run.fix import FileChangedError, apply_fixes, fix_file, write_atomic

SOLID = "research-runs/2026-02-13-solid-state-batteries/citations/citations.jsonl"


@pytest.fixture
def repo(tmp_path):
    target = tmp_path / "example-repo"
    shutil.copytree(PROJECT / "fixtures" / "example-repo", target)
    return target


def _fix(repo, rel):
    engine = Engine.load(repo)
    return fix_file(engine, rel, engine.kinds_for(rel))


def test_fix_repairs_what_is_fixable_and_reports_the_rest(repo):
    before = (repo / SOLID).read_text().splitlines()
    result = _fix(repo, SOLID)
    assert result.applied == 4  # U104 (with its cid), U105, U106, and the duplicate merged
    after = (repo / SOLID).read_text().splitlines()
    assert sorted({d.code for d in result.diagnostics}) == ["U101", "U102", "U103", "U107", "U108", "U109", "U110", "U111", "U112"]
    assert len(after) == len(before) - 1  # the duplicate line is gone

    first = json.loads(after[0])
    assert first["normalized_url"] == "https://www.energy.gov/eere/vehicles/articles/solid-state-battery-pilot-lines"
    assert first["cid"] == cid_for(first["normalized_url"])
    assert json.loads(after[2])["cid"] == cid_for("https://batteries.example.org/reports/2025/scale-up")
    assert json.loads(after[3])["cid"] == cid_for("https://arxiv.org/abs/2501.01234")
    merged = json.loads(after[1])
    assert [entry["perspective_id"] for entry in merged["found_by"]] == ["p1", "p3"]  # p3 was already there

    # Lines no fix touched are byte for byte the same.
    untouched_before = [5, 6, 7, 9, 10, 11, 12]  # 1-based; lines 1-4 were fixed, line 8 merged away
    assert after[4:] == [before[n - 1] for n in untouched_before]


def test_second_fix_changes_nothing(repo):
    _fix(repo, SOLID)
    once = (repo / SOLID).read_bytes()
    result = _fix(repo, SOLID)
    assert result.applied == 0
    assert (repo / SOLID).read_bytes() == once


def _record(url, cid=None, found_by=()):
    return {"schema_version": "citation.v1", "normalized_url": url, "cid": cid or cid_for(url), "url": url,
            "url_original": url, "status": "valid", "checked_at": "2026-02-13T12:35:00Z",
            "found_by": list(found_by), "notes": "ok"}


@pytest.mark.parametrize(("bom", "newline", "final"), [(True, "\r\n", True), (False, "\n", False), (True, "\n", False)])
def test_fix_keeps_bom_newlines_final_newline_and_mode(tmp_path, bom, newline, final):
    rel = "run/citations/citations.jsonl"
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    lines = [json.dumps(_record("https://example.com/a", cid="cid_placeholder")), json.dumps(_record("https://example.com/b"))]
    text = ("\ufeff" if bom else "") + newline.join(lines) + (newline if final else "")
    path.write_bytes(text.encode())
    path.chmod(0o640)
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")

    result = _fix(tmp_path, rel)
    assert result.applied == 1 and result.diagnostics == []
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") == bom
    assert data.count(b"\r\n") == (len(lines) if final else len(lines) - 1) * (newline == "\r\n")
    assert data.endswith(newline.encode()) == final
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert data.decode("utf-8-sig") == text.lstrip("\ufeff").replace("cid_placeholder", cid_for("https://example.com/a"))


def test_merging_a_last_line_without_final_newline(tmp_path):
    rel = "citations/citations.jsonl"
    (tmp_path / "citations").mkdir()
    found = [{"wave": 1, "perspective_id": "p1", "agent_type": "A", "artifact_path": "x.md"}]
    other = [{"wave": 2, "perspective_id": "p2", "agent_type": "B", "artifact_path": "y.md"}]
    a, b = json.dumps(_record("https://example.com/a", found_by=found)), json.dumps(_record("https://example.com/a", found_by=other))
    (tmp_path / rel).write_text(f"{a}\n{b}")
    for name in ("x.md", "y.md"):
        (tmp_path / name).write_text("")
    result = _fix(tmp_path, rel)
    assert result.diagnostics == []
    text = (tmp_path / rel).read_text()
    assert "\n" not in text
    assert json.loads(text)["found_by"] == found + other


def test_three_copies_merge_into_one(tmp_path):
    rel = "citations/citations.jsonl"
    (tmp_path / "citations").mkdir()
    copies = [
        json.dumps(_record("https://example.com/a", found_by=[{"wave": 1, "perspective_id": f"p{i}", "agent_type": "A", "artifact_path": "x.md"}]))
        for i in range(3)
    ]
    (tmp_path / "x.md").write_text("")
    (tmp_path / rel).write_text("\n".join(copies) + "\n")
    assert _fix(tmp_path, rel).diagnostics == []
    (line,) = (tmp_path / rel).read_text().splitlines()
    assert [e["perspective_id"] for e in json.loads(line)["found_by"]] == ["p0", "p1", "p2"]


def test_refuses_to_write_a_file_that_changed(tmp_path):
    (tmp_path / "a.jsonl").write_text("old\n")
    source = sources.read_source(tmp_path, "a.jsonl")
    (tmp_path / "a.jsonl").write_text("changed by someone else\n")
    with pytest.raises(FileChangedError):
        write_atomic(source, b"new\n")
    assert (tmp_path / "a.jsonl").read_text() == "changed by someone else\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.jsonl"]  # no temporary file left behind


def test_overlapping_fixes_wait_for_the_next_round():
    first = Fix("a", (Edit(0, 3, "AAA"),))
    overlapping = Fix("b", (Edit(2, 5, "BBB"),))
    separate = Fix("c", (Edit(6, 7, "C"),))
    assert apply_fixes("0123456789", [overlapping, separate, first]) == ("AAA345C789", 2)


def test_dying_mid_write_leaves_the_original_and_no_temporary_file(tmp_path, monkeypatch):
    import pytest_citations.run.fix as fix_module

    (tmp_path / "a.jsonl").write_text("old\n")
    source = sources.read_source(tmp_path, "a.jsonl")

    def killed(*args):
        raise KeyboardInterrupt  # the process is stopped between writing and renaming

    monkeypatch.setattr(fix_module.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(source, b"new\n")
    monkeypatch.undo()
    assert (tmp_path / "a.jsonl").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl"]

    # Files of a temporary's name that this run did not create (left by a run killed harder than
    # above, or committed with the checkout) are never deleted, however old.
    stale, fresh = tmp_path / ".a.jsonl.dead1.tmp", tmp_path / ".a.jsonl.live1.tmp"
    stale.write_text("half")
    fresh.write_text("being written")
    os.utime(stale, (0, 0))
    write_atomic(sources.read_source(tmp_path, "a.jsonl"), b"new\n")
    assert (tmp_path / "a.jsonl").read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".a.jsonl.dead1.tmp", ".a.jsonl.live1.tmp", "a.jsonl"]
