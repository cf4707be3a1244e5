"""``pytest --citations`` answered by the record of its last run (pytest_citations/run/replay.py,
``Answers``): the claims and diagnostics of files whose dependencies did not change come from the
record in pytest's cache folder, the others from the engine and its result cache.

Whether an answer came from the record is proven by tampering with it: a tampered diagnostic can
only reach the output through the record.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

# Hypothesis's pytest plugin imports ``hypothesis`` at the end of every session, and pytester
# unloads what an in-process run imported: imported here once, it is not paid for per run.
import hypothesis  # noqa: F401
import pytest
from test_plugin import needs_xdist
from test_replay import MANY, make_repo, write_memory

from pytest_citations.run import cache

RECORDS = Path(".pytest_cache", "d", "citations")


def date_back(path: Path, seconds: float = 60) -> None:
    for each in [path, *path.rglob("*")] if path.is_dir() else [path]:
        os.utime(each, (time.time() - seconds, time.time() - seconds), follow_symlinks=False)


@pytest.fixture
def repo(pytester: pytest.Pytester) -> Path:
    """test_replay's repository (two a-memories, thirty b-memories) with src/b.py changed, so
    that every b-memory fails with M211."""
    root = pytester.path
    make_repo(root)
    (root / "src" / "b.py").write_text("def BETA():\n    return 2\n")
    date_back(root)
    return root


def run(pytester: pytest.Pytester, *args: str) -> tuple[int, int]:
    outcomes = pytester.runpytest_inprocess("--citations", "-p", "no:randomly", *args).parseoutcomes()
    return outcomes.get("passed", 0), outcomes.get("failed", 0)


def the_record(root: Path) -> Path:
    (found,) = (root / RECORDS).glob("run-*.json")
    return found


def without_failures(record: Path) -> None:
    """Empty every task's recorded diagnostics: a run that reads them passes every item."""
    data = cache.read_document(record)
    for task in data["tasks"]:
        task[4] = []
    cache.write_document(record, data)  # (authenticated: this user's own record, changed)


def test_a_rerun_takes_its_answers_from_the_record(pytester, repo, monkeypatch):
    assert run(pytester) == (2, MANY)
    without_failures(the_record(repo))
    monkeypatch.setattr(cache.ResultCache, "__init__", lambda *a: pytest.fail("the result cache was opened"))
    assert run(pytester) == (MANY + 2, 0)  # every answer came from the (tampered) record


def test_a_changed_cited_file_is_checked_again_and_the_rest_answered(pytester, repo):
    assert run(pytester) == (2, MANY)
    without_failures(the_record(repo))
    (repo / "src" / "a.py").write_text("def ALPHA():\n    return 1\n")  # a0 and a1 fail now
    date_back(repo / "src" / "a.py", 30)
    assert run(pytester) == (MANY, 2)  # a0 and a1 checked again; the b-memories from the record
    assert run(pytester, "-p", "no:cacheprovider") == (0, MANY + 2)  # (the truth, checked whole)


def test_a_new_memory_goes_the_usual_way(pytester, repo):
    assert run(pytester) == (2, MANY)
    without_failures(the_record(repo))
    write_memory(repo, "new", "src/a.py", "def alpha():")
    date_back(repo / ".serena" / "memories" / "new.md", 30)
    assert run(pytester) == (3, MANY)  # files found that the record does not hold: nothing from it


def test_a_run_of_some_items_leaves_the_record(pytester, repo):
    assert run(pytester) == (2, MANY)
    record = the_record(repo)
    before = record.read_bytes()
    (repo / "src" / "a.py").write_text("def ALPHA():\n    return 1\n")
    date_back(repo / "src" / "a.py", 30)
    assert run(pytester, "-k", "a0") == (0, 1)
    assert record.read_bytes() == before  # the other items did not run: what they found is unknown
    assert run(pytester) == (0, MANY + 2)


@needs_xdist
def test_workers_neither_read_nor_write_records(pytester, repo):
    result = pytester.runpytest_subprocess("--citations", "-p", "no:randomly", "-n", "2", "-p", "no:hypothesispytest")
    assert result.parseoutcomes().get("failed") == MANY
    assert not list((repo / RECORDS).glob("run-*.json"))


def test_a_run_with_a_crash_is_not_recorded(pytester, repo, monkeypatch):
    from pytest_citations.core.diagnostics import Diagnostic, Severity
    from pytest_citations.engine import Engine

    real = Engine.check_file

    def crashed(engine, rel, kinds, source=None):
        return [Diagnostic("C006", "internal-error", Severity.ERROR, "internal error in kind memories: boom", rel)]

    monkeypatch.setattr(Engine, "check_file", crashed)
    assert run(pytester) == (0, MANY + 2)
    assert not list((repo / RECORDS).glob("run-*.json"))
    monkeypatch.setattr(Engine, "check_file", real)
    assert run(pytester) == (2, MANY)
    assert run(pytester) == (2, MANY)  # recorded now, and answered
    assert list((repo / RECORDS).glob("run-*.json"))
