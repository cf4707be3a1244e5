"""--fix says every file it writes, and writes nothing that depends on the clock unless asked.

``citations check --fix`` repairs findings; recording what verification established in memories
(``verified`` stamps, ``confidence``, ``last_verified``) is ``--refresh-verified``. The summary on
standard error counts and lists each written file with the kind of change made to it.
"""

from __future__ import annotations

import json

import pytest

from pytest_citations.frontends.cli import main
from pytest_citations.kinds.memories import refresh as memory_refresh
from pytest_citations.kinds.url_citations.urls import cid_for

NOW = "2026-11-22T10:00:00Z"
MEMORIES = ".serena/memories"
CITATIONS = "run/citations/citations.jsonl"
URL = "https://example.com/doc"
SOURCE = "import os\n\ndef cache_key(user):\n    return user.id\n"
# verified, with a confidence already right: --refresh-verified has nothing to record
STAMPED = (
    "---\nid: stamped\ncitations:\n  - path: src/cache.py\n    line: 3\n    verified: 2026-01-01T00:00:00Z\n"
    "confidence: 1.0\n---\n# Stamped\n"
)
UNSTAMPED = "---\nid: unstamped\ncitations:\n  - path: src/cache.py\n    line: 3\n    snippet: def cache_key\n---\n# Unstamped\n"
MOVED = "---\nid: moved\ncitations:\n  - path: src/cache.py\n    line: 1\n    snippet: def cache_key\n---\n# Moved\n"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setattr(memory_refresh, "utc_now", lambda: NOW)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the command runs in the repository: the files it wrote are named from there
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "cache.py").write_text(SOURCE)
    folder = tmp_path / MEMORIES
    folder.mkdir(parents=True)
    for name, text in (("stamped.md", STAMPED), ("unstamped.md", UNSTAMPED), ("moved.md", MOVED)):
        (folder / name).write_text(text)
    record = {"schema_version": "citation.v1", "normalized_url": URL, "cid": "cid_placeholder", "url": URL,
              "url_original": URL, "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "found_by": [], "notes": "ok"}
    (tmp_path / "run" / "citations").mkdir(parents=True)
    (tmp_path / CITATIONS).write_text(json.dumps(record) + "\n")
    return tmp_path


def _files(root) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def _fix(capsys, root, *args) -> tuple[int, str]:
    status = main(["check", str(root), "--fix", "--no-cache", *args])
    return status, capsys.readouterr().err


def test_fix_repairs_findings_only_and_lists_each_file_it_wrote(repo, capsys):
    before = _files(repo)
    status, err = _fix(capsys, repo)
    assert status == 0
    assert err == (
        "citations: applied 2 fixes in 2 files\n"
        f"  {MEMORIES}/moved.md: 1 fix\n"
        f"  {CITATIONS}: 1 fix\n"
    )
    after = _files(repo)
    assert {rel for rel in before if after[rel] != before[rel]} == {f"{MEMORIES}/moved.md", CITATIONS}
    assert after[f"{MEMORIES}/moved.md"].decode() == MOVED.replace("line: 1", "line: 3")  # no stamp, no confidence
    assert json.loads(after[CITATIONS])["cid"] == cid_for(URL)

    assert _fix(capsys, repo) == (0, "citations: applied 0 fixes in 0 files\n")
    assert _files(repo) == after


def test_refresh_verified_records_verification_and_says_where(repo, capsys):
    status, err = _fix(capsys, repo, "--refresh-verified")
    assert status == 0
    assert err == (
        "citations: applied 2 fixes in 2 files, refreshed verification stamps in 2 files\n"
        f"  {MEMORIES}/moved.md: 1 fix, verification stamps refreshed\n"
        f"  {MEMORIES}/unstamped.md: verification stamps refreshed\n"
        f"  {CITATIONS}: 1 fix\n"
    )
    assert (repo / MEMORIES / "unstamped.md").read_text() == UNSTAMPED.replace(
        "snippet: def cache_key\n", f"snippet: def cache_key\n    verified: {NOW}\nconfidence: 1.0\nlast_verified: {NOW}\n"
    )
    assert (repo / MEMORIES / "stamped.md").read_text() == STAMPED
    once = _files(repo)

    status, err = _fix(capsys, repo, "--refresh-verified")
    assert (status, err) == (0, "citations: applied 0 fixes in 0 files, refreshed verification stamps in 0 files\n")
    assert _files(repo) == once


def test_refresh_verified_needs_fix(repo, capsys):
    before = _files(repo)
    assert main(["check", str(repo), "--refresh-verified"]) == 2
    assert capsys.readouterr().err == "citations: error: --refresh-verified records verification while fixing: add --fix\n"
    assert _files(repo) == before
