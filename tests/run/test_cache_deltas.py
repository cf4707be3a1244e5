"""The result cache's deltas: a run that changed a few entries writes only those, the base stays
as it was, and a delta that is damaged, foreign or lost costs re-checks, never a wrong answer."""

from __future__ import annotations

import hashlib
import json

import pytest

from memory_repo import CITING_A, MEMORIES, check
from pytest_citations.run import cache as cache_module

# The result cache underneath the record of the last run, which would answer these re-runs first.
pytestmark = pytest.mark.usefixtures("without_replay")


def edit_a(root, text="def alpha():\n    return 1\n# edited\n"):
    (root / "src" / "a.py").write_text(text)


def deltas(cache_folder):
    return sorted(cache_folder.glob("delta-*.json"))


def test_a_small_change_writes_a_delta_of_its_entries_and_leaves_the_base(memory_repo, capsys, cache_folder):
    check(capsys, memory_repo)
    (base,) = cache_folder.glob("results-*.json")
    before = base.read_bytes()
    edit_a(memory_repo)
    assert check(capsys, memory_repo) == ([], MEMORIES - len(CITING_A))
    assert base.read_bytes() == before
    (delta,) = deltas(cache_folder)
    written = json.loads(delta.read_text())
    assert sorted(written["results"]) == sorted(f".serena/memories/m{n}.md" for n in CITING_A)
    assert sorted(written["files"]) == ["src/a.py"]
    assert check(capsys, memory_repo) == ([], MEMORIES)  # the base and the delta answer together


def test_later_deltas_win_and_a_break_is_still_found(memory_repo, capsys, cache_folder, monkeypatch):
    monkeypatch.setattr(cache_module, "DELTA_SHARE", 1.0)  # let them pile up in this small cache
    check(capsys, memory_repo)
    edit_a(memory_repo)
    check(capsys, memory_repo)
    edit_a(memory_repo, "def ALPHA():\n    return 1\n")  # the citations of a.py break
    broken = sorted((f".serena/memories/m{n}.md", "M211") for n in CITING_A)
    assert check(capsys, memory_repo) == (broken, MEMORIES - len(CITING_A))
    assert len(deltas(cache_folder)) == 2
    assert check(capsys, memory_repo) == (broken, MEMORIES)
    edit_a(memory_repo)  # mended again, as in the first delta; the second one's results are the later
    assert check(capsys, memory_repo) == ([], MEMORIES - len(CITING_A))


@pytest.mark.parametrize(
    "damage",
    [b"\x00\xff garbage", b'{"format": 2, "key": "', b"[1, 2, 3]", b'{"format": 999, "files": {}, "results": {}}'],
    ids=["garbage", "truncated", "a list", "another format"],
)
def test_a_damaged_delta_is_ignored(memory_repo, capsys, cache_folder, damage):
    check(capsys, memory_repo)
    edit_a(memory_repo)
    check(capsys, memory_repo)
    (delta,) = deltas(cache_folder)
    delta.write_bytes(damage)
    assert check(capsys, memory_repo) == ([], MEMORIES - len(CITING_A))


def test_a_damaged_base_is_written_again_whole_however_small_the_change(memory_repo, capsys, cache_folder):
    check(capsys, memory_repo)
    (base,) = cache_folder.glob("results-*.json")
    base.write_bytes(b"\x00\xff garbage")
    edit_a(memory_repo)
    assert check(capsys, memory_repo) == ([], 0)
    assert deltas(cache_folder) == [] and json.loads(base.read_text())["format"] == cache_module.FORMAT


def test_a_delta_of_another_key_is_not_trusted(memory_repo, capsys, cache_folder):
    check(capsys, memory_repo)
    edit_a(memory_repo)
    check(capsys, memory_repo)
    (delta,) = deltas(cache_folder)
    data = json.loads(delta.read_text())
    data["key"] = "0" * 64
    for entry in data["results"].values():
        entry["diagnostics"] = [["M211", "snippet-mismatch", "error", "planted", entry["paths"][0], 1, 1, None, None]]
    delta.write_text(json.dumps(data))
    assert check(capsys, memory_repo) == ([], MEMORIES - len(CITING_A))


def test_a_lost_delta_costs_only_rechecks(memory_repo, capsys, cache_folder):
    check(capsys, memory_repo)
    edit_a(memory_repo)
    check(capsys, memory_repo)
    for delta in deltas(cache_folder):
        delta.unlink()
    assert check(capsys, memory_repo) == ([], MEMORIES - len(CITING_A))


def test_deltas_are_folded_into_a_new_base(memory_repo, capsys, cache_folder, monkeypatch):
    monkeypatch.setattr(cache_module, "MAX_DELTAS", 2)
    monkeypatch.setattr(cache_module, "DELTA_SHARE", 1.0)
    check(capsys, memory_repo)
    (base,) = cache_folder.glob("results-*.json")
    for number in range(3):
        edit_a(memory_repo, f"def alpha():\n    return {number + 10}\n")
        check(capsys, memory_repo)
    assert deltas(cache_folder) == []  # the third change found two deltas: all went into the base
    assert json.loads(base.read_text())["files"]["src/a.py"]["sha"] == hashlib.sha256((memory_repo / "src" / "a.py").read_bytes()).hexdigest()
    assert check(capsys, memory_repo) == ([], MEMORIES)


def test_deltas_holding_a_large_share_are_folded_into_a_new_base(memory_repo, capsys, cache_folder, monkeypatch):
    monkeypatch.setattr(cache_module, "DELTA_SHARE", 0.15)  # room for one one-file change, not two
    check(capsys, memory_repo)
    edit_a(memory_repo)
    check(capsys, memory_repo)
    assert len(deltas(cache_folder)) == 1
    edit_a(memory_repo, "def alpha():\n    return 3\n")
    check(capsys, memory_repo)
    assert deltas(cache_folder) == []


def test_a_change_to_many_entries_writes_a_new_base(memory_repo, capsys, cache_folder):
    check(capsys, memory_repo)
    (memory_repo / "src" / "b.py").write_text("def beta():\n    return 2\n# edited\n")  # most memories cite it
    assert check(capsys, memory_repo) == ([], len(CITING_A))
    assert deltas(cache_folder) == []


def test_entries_sent_by_a_worker_are_saved_as_a_delta_by_the_parent(memory_repo, capsys, cache_folder):
    """Under -j and xdist the workers send their entries to the process that writes the cache."""
    check(capsys, memory_repo)
    (base,) = cache_folder.glob("results-*.json")
    before = base.read_bytes()
    key = json.loads(before)["key"]
    worker = cache_module.ResultCache(cache_folder, memory_repo, key)
    edit_a(memory_repo)
    worker.fingerprint("src/a.py")
    parent = cache_module.ResultCache(cache_folder, memory_repo, key)
    parent.absorb(worker.take_changes())
    parent.save()
    assert base.read_bytes() == before
    (delta,) = deltas(cache_folder)
    assert sorted(json.loads(delta.read_text())["files"]) == ["src/a.py"]


@pytest.mark.parametrize(("context_start", "identity"), [(0, None), (7, None), (0, "stable part"), (7, "stable part")])
def test_a_diagnostic_row_keeps_where_its_window_starts_and_its_identity(context_start, identity):
    from pytest_citations.core.diagnostics import Diagnostic, Severity
    from pytest_citations.run.cache import diagnostic_from_json, diagnostic_to_json

    diagnostic = Diagnostic("W706", "unchecked-url", Severity.WARNING, "stable part: timed out", "a.jsonl", 3, 4,
                            context="line", context_start=context_start, identity=identity)
    again = diagnostic_from_json(json.loads(json.dumps(diagnostic_to_json(diagnostic))))
    assert (again, again.context_start, again.identity, again.context) == (diagnostic, context_start, identity, "line")
