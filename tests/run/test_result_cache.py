"""The result cache of `citations check`: reused only while nothing a result depends on changed."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from pytest_citations.frontends.cli import main
from pytest_citations.run import cache as cache_module

# These tests count the cache's hits and damage its file: the record of the last run, which
# answers a re-run of files older than the racy window before the cache is opened, stays out.
pytestmark = pytest.mark.usefixtures("without_replay")

MEMORY = """---
id: {id}
citations:
  - path: {path}
    line: {line}
    snippet: "{snippet}"
{links}---

# {id}
"""


def memory(memory_id: str, path: str, line: int, snippet: str, links: str = "") -> str:
    return MEMORY.format(id=memory_id, path=path, line=line, snippet=snippet, links=links)


@pytest.fixture
def repo(tmp_path):
    """Two memories citing two source files; both citations valid."""
    root = tmp_path / "repo"
    (root / ".serena" / "memories").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "src" / "a.py").write_text("def alpha():\n    return 1\n")
    (root / "src" / "b.py").write_text("def beta():\n    return 2\n")
    (root / ".serena" / "memories" / "alpha.md").write_text(memory("alpha", "src/a.py", 1, "def alpha():"))
    (root / ".serena" / "memories" / "beta.md").write_text(memory("beta", "src/b.py", 1, "def beta():"))
    return root


def check(capsys, root, *options):
    """(exit code, diagnostics as (path, code), files served from the cache)."""
    code = main(["check", str(root), "--format", "json", "-v", *options])
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    hits = int(captured.err.split(" checked, ")[1].split(" from the cache")[0])
    return code, sorted((d["path"], d["code"]) for d in data["diagnostics"]), hits


def cache_file(folder):
    (found,) = folder.glob("results-*.json")
    return found


def age(path, seconds: float = 10.0) -> None:
    """Move a file's mtime into the past, out of the racy window, as a checkout long ago would."""
    when = time.time() - seconds
    os.utime(path, (when, when))


def test_a_rerun_with_nothing_changed_is_served_from_the_cache(repo, capsys):
    first = check(capsys, repo)
    assert first == (0, [], 0)
    assert check(capsys, repo) == (0, [], 2)


def test_the_default_folder_is_marked_and_ignored_by_git(repo, capsys, monkeypatch):
    monkeypatch.delenv("CITATIONS_CACHE_DIR")
    check(capsys, repo)
    folder = repo / ".citations_cache"
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert json.loads(cache_file(folder).read_text())["format"] == cache_module.FORMAT


def test_a_changed_cited_file_rechecks_only_the_memory_that_cites_it(repo, capsys):
    check(capsys, repo)
    (repo / "src" / "a.py").write_text("def renamed():\n    return 1\n")
    code, found, hits = check(capsys, repo)
    assert code == 1 and found == [(".serena/memories/alpha.md", "M211")]
    assert hits == 1  # beta.md came from the cache


def test_a_cited_file_that_appears_invalidates_the_result_that_missed_it(repo, capsys):
    (repo / ".serena" / "memories" / "beta.md").write_text(memory("beta", "src/c.py", 1, "def gamma():"))
    assert check(capsys, repo)[1] == [(".serena/memories/beta.md", "M207")]
    (repo / "src" / "c.py").write_text("def gamma():\n")
    assert check(capsys, repo)[:2] == (0, [])


def test_an_edited_artifact_is_rechecked(repo, capsys):
    check(capsys, repo)
    (repo / ".serena" / "memories" / "alpha.md").write_text(memory("alpha", "src/a.py", 2, "def alpha():"))
    code, found, hits = check(capsys, repo)
    assert found == [(".serena/memories/alpha.md", "M211")] and hits == 1


def test_a_changed_index_rechecks_the_memories_that_consulted_it(repo, capsys):
    """beta links to gamma, which does not exist: M213 until a memory with that id appears."""
    beta = repo / ".serena" / "memories" / "beta.md"
    beta.write_text(memory("beta", "src/b.py", 1, "def beta():", links="links:\n  - related: gamma\n"))
    assert (".serena/memories/beta.md", "M213") in check(capsys, repo)[1]
    (repo / ".serena" / "memories" / "gamma.md").write_text(memory("gamma", "src/b.py", 2, "return 2"))
    assert check(capsys, repo)[:2] == (0, [])


def test_a_body_edit_of_another_memory_keeps_the_index_and_the_cache(repo, capsys):
    check(capsys, repo)
    beta = repo / ".serena" / "memories" / "beta.md"
    beta.write_text(beta.read_text() + "\nMore words.\n")
    assert check(capsys, repo)[2] == 1  # alpha still cached: the id index did not change


def test_settings_and_select_have_caches_of_their_own(repo, capsys):
    (repo / "src" / "a.py").write_text("def renamed():\n")
    assert check(capsys, repo)[1] == [(".serena/memories/alpha.md", "M211")]
    assert check(capsys, repo, "--ignore", "M211")[1:] == ([], 0)
    (repo / "pyproject.toml").write_text('[tool.citations]\nignore = ["M2"]\n')
    assert check(capsys, repo)[1:] == ([], 0)


def test_no_cache_neither_reads_nor_writes(repo, capsys, tmp_path):
    folder = tmp_path / "elsewhere"
    assert check(capsys, repo, "--no-cache", "--cache-dir", str(folder))[2] == 0
    assert not folder.exists()


def test_cache_dir_option_and_setting(repo, capsys, tmp_path, monkeypatch):
    folder = tmp_path / "chosen"
    check(capsys, repo, "--cache-dir", str(folder))
    assert cache_file(folder).is_file()
    monkeypatch.delenv("CITATIONS_CACHE_DIR")
    (repo / "pyproject.toml").write_text('[tool.citations]\ncache-dir = "build-cache/citations"\n')
    check(capsys, repo)
    assert cache_file(repo / "build-cache" / "citations").is_file()


@pytest.mark.parametrize(
    "damage",
    [b"\x00\xff garbage", b'{"format": 1, "key": "', b"[1, 2, 3]", b'{"format": 999, "files": {}, "results": {}}'],
    ids=["garbage", "truncated", "a list", "another format"],
)
def test_a_corrupt_or_foreign_cache_is_ignored_and_rebuilt(repo, capsys, damage):
    check(capsys, repo)
    path = cache_file(Path(os.environ["CITATIONS_CACHE_DIR"]))
    path.write_bytes(damage)
    assert check(capsys, repo) == (0, [], 0)
    assert json.loads(path.read_text())["format"] == cache_module.FORMAT
    assert check(capsys, repo)[2] == 2


def test_a_damaged_entry_is_rechecked_not_trusted(repo, capsys):
    check(capsys, repo)
    path = cache_file(Path(os.environ["CITATIONS_CACHE_DIR"]))
    data = cache_module.read_document(path)
    data["results"][".serena/memories/alpha.md"]["diagnostics"] = [["M211"]]  # not a diagnostic
    cache_module.write_document(path, data)  # (authenticated: a damaged entry of this user's own cache)
    assert check(capsys, repo) == (0, [], 1)


def test_same_mtime_after_a_checkout_is_not_trusted(repo, capsys):
    """A checkout writes a new file (new inode) and may leave the old mtime: the hash decides."""
    source = repo / "src" / "a.py"
    age(source)
    check(capsys, repo)
    before = source.stat()
    replacement = repo / "src" / "a.py.new"
    replacement.write_text("def ALPHA():\n    return 1\n")  # same size, other bytes
    os.replace(replacement, source)
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert source.stat().st_size == before.st_size and source.stat().st_mtime_ns == before.st_mtime_ns
    assert check(capsys, repo)[1] == [(".serena/memories/alpha.md", "M211")]


def test_a_file_changed_within_the_racy_window_is_hashed_again(repo, capsys):
    """Same size, same inode, same mtime tick: only a file hashed long after its last write may
    take the stat fast path."""
    source = repo / "src" / "a.py"
    check(capsys, repo)
    stamp = source.stat().st_mtime_ns
    source.write_text("def ALPHA():\n    return 1\n")  # in place: same inode and size
    os.utime(source, ns=(stamp, stamp))
    assert check(capsys, repo)[1] == [(".serena/memories/alpha.md", "M211")]


def test_a_file_rewritten_in_place_with_its_old_mtime_put_back_is_hashed_again(repo, capsys):
    """``cp -p`` or ``touch -r`` over a file checked long ago: same size, inode and mtime, out of
    the racy window; only its ctime, which no program sets, tells."""
    source = repo / "src" / "a.py"
    age(source, 3600)
    check(capsys, repo)
    before = source.stat()
    with open(source, "r+b") as stream:  # in place: same inode and size
        stream.write(b"def ALPHA():\n")
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = source.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    assert check(capsys, repo)[1] == [(".serena/memories/alpha.md", "M211")]


def test_entries_unseen_for_thirty_days_are_pruned(repo, capsys):
    check(capsys, repo)
    path = cache_file(Path(os.environ["CITATIONS_CACHE_DIR"]))
    data = cache_module.read_document(path)
    data["results"][".serena/memories/gone.md"] = {**data["results"][".serena/memories/alpha.md"], "seen": 0}
    data["files"]["src/gone.py"] = {**data["files"]["src/a.py"], "seen": 0}
    cache_module.write_document(path, data)
    (repo / "src" / "a.py").write_text("def alpha():\n    return 1\n\n")  # something to save
    check(capsys, repo)
    data = json.loads(path.read_text())
    assert ".serena/memories/gone.md" not in data["results"] and "src/gone.py" not in data["files"]
    assert ".serena/memories/alpha.md" in data["results"]


def test_a_crash_is_never_cached(repo, capsys, monkeypatch):
    from pytest_citations.kinds.memories import model as memories

    real = memories.Memories.units

    def broken(self, ctx):
        raise RuntimeError("boom")

    monkeypatch.setattr(memories.Memories, "units", broken)
    assert check(capsys, repo)[0] == 2
    monkeypatch.setattr(memories.Memories, "units", real)
    assert check(capsys, repo) == (0, [], 0)


def test_fix_does_not_use_the_cache(repo, capsys):
    check(capsys, repo)
    code = main(["check", str(repo), "--fix", "-v"])
    assert "0 from the cache" in capsys.readouterr().err and code == 0
