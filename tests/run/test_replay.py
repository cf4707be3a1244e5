"""A re-run answered by the record of the last run (pytest_citations.run.replay): the same report as a
check without any cache, whatever changed in between; and the usual run whenever the record cannot
vouch for the answer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import PROJECT
from pytest_citations.core import git_history
from pytest_citations.frontends.cli import main
from pytest_citations.run import cache as cache_module
from pytest_citations.run import replay

MEMORIES = ".serena/memories"
MANY = 30  # memories citing src/b.py; two more cite src/a.py, few enough to be re-checked alone


def write_memory(root, name: str, cited: str, snippet: str, links: str = "") -> None:
    (root / MEMORIES / f"{name}.md").write_text(
        f'---\nid: {name}\n{links}citations:\n  - path: {cited}\n    line: 1\n    snippet: "{snippet}"\n---\n\n# {name}\n'
    )


def date_back(root, seconds: float = 60) -> None:
    """Out of the racy window, as files checked out a while ago."""
    for path in [root, *root.rglob("*")]:
        os.utime(path, (time.time() - seconds, time.time() - seconds), follow_symlinks=False)


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "repo")


def make_repo(root):
    """src/a.py cited by a0 and a1 (which links to b0), src/b.py by thirty b-memories."""
    (root / MEMORIES).mkdir(parents=True)
    (root / "src").mkdir()
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "src" / "a.py").write_text("def alpha():\n    return 1\n")
    (root / "src" / "b.py").write_text("def beta():\n    return 2\n")
    for number in range(MANY):
        write_memory(root, f"b{number}", "src/b.py", "def beta():")
    write_memory(root, "a0", "src/a.py", "def alpha():")
    write_memory(root, "a1", "src/a.py", "def alpha():", links="links:\n  - related: b0\n")
    date_back(root)
    return root


def run(capsys, root, *options) -> tuple[dict, int]:
    """(the JSON report, files served from the cache or the record) of ``citations check root``."""
    main(["check", str(root), "--format", "json", "-v", *options])
    captured = capsys.readouterr()
    hits = int(captured.err.split(" checked, ")[1].split(" from the cache")[0])
    return json.loads(captured.out), hits


def uncached(capsys, root) -> dict:
    return run(capsys, root, "--no-cache")[0]


def records(cache_folder):
    return sorted(cache_folder.glob("run-*.json"))


@pytest.fixture
def cache_untouched(monkeypatch):
    """Fail if the result cache is opened."""
    def refuse(*args, **kwargs):
        raise AssertionError("the result cache was opened")

    monkeypatch.setattr(cache_module.ResultCache, "__init__", refuse)


def test_a_rerun_with_nothing_changed_is_the_record(repo, capsys, cache_folder, monkeypatch):
    first, hits = run(capsys, repo)
    assert hits == 0 and len(records(cache_folder)) == 1
    monkeypatch.setattr(cache_module.ResultCache, "__init__", lambda *a: pytest.fail("the result cache was opened"))
    assert run(capsys, repo) == (first, MANY + 2)


def test_a_changed_cited_file_rechecks_only_the_files_citing_it(repo, capsys, cache_folder, monkeypatch):
    run(capsys, repo)
    (repo / "src" / "a.py").write_text("def ALPHA():\n    return 1\n")  # both a-memories break
    date_back(repo / "src" / "a.py", 30)
    expected = uncached(capsys, repo)
    assert {(d["path"], d["code"]) for d in expected["diagnostics"]} == {
        (f"{MEMORIES}/a0.md", "M211"), (f"{MEMORIES}/a1.md", "M211")}
    monkeypatch.setattr(cache_module.ResultCache, "__init__", lambda *a: pytest.fail("the result cache was opened"))
    assert run(capsys, repo) == (expected, MANY)  # the two a-memories checked again
    assert run(capsys, repo) == (expected, MANY + 2)  # the record was written again


def test_a_file_rewritten_in_place_with_its_old_mtime_put_back_is_checked_again(repo, capsys, cache_folder):
    run(capsys, repo)
    source = repo / "src" / "a.py"
    before = source.stat()
    with open(source, "r+b") as stream:  # in place: same inode and size; then the old mtime back
        stream.write(b"def ALPHA():\n")
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    expected = uncached(capsys, repo)
    assert {(d["path"], d["code"]) for d in expected["diagnostics"]} == {
        (f"{MEMORIES}/a0.md", "M211"), (f"{MEMORIES}/a1.md", "M211")}
    assert run(capsys, repo) == (expected, MANY)


def test_a_change_in_its_racy_window_leaves_the_record_and_is_rechecked_each_time(repo, capsys, cache_folder):
    run(capsys, repo)
    (record,) = records(cache_folder)
    before = record.read_bytes()
    source = repo / "src" / "a.py"
    source.write_text("def ALPHA():\n    return 1\n")
    ahead = time.time() + 3600  # written "just now" however slow the machine: never trusted in this test
    os.utime(source, (ahead, ahead))
    expected = uncached(capsys, repo)
    assert run(capsys, repo) == (expected, MANY)
    assert record.read_bytes() == before
    assert run(capsys, repo) == (expected, MANY)


def test_an_edit_below_a_memorys_front_matter_is_answered_by_the_record(repo, capsys, monkeypatch):
    """The edit changes no id and no link: the memory index's share of the file holds, so only that
    memory is checked again, without the result cache; the others keep their recorded findings."""
    first, _ = run(capsys, repo)
    path = repo / MEMORIES / "b3.md"
    path.write_text(path.read_text() + "\nA line of prose.\n")
    date_back(path, 30)
    monkeypatch.setattr(cache_module.ResultCache, "__init__", lambda *a: pytest.fail("the result cache was opened"))
    again, kept = run(capsys, repo)
    assert again == first and kept == MANY + 1


def test_a_changed_memory_id_rechecks_the_memories_linking_to_it(repo, capsys):
    run(capsys, repo)
    write_memory(repo, "b0", "src/b.py", "def beta():")
    (repo / MEMORIES / "b0.md").write_text((repo / MEMORIES / "b0.md").read_text().replace("id: b0", "id: b0-renamed"))
    date_back(repo / MEMORIES / "b0.md", 30)
    expected = uncached(capsys, repo)
    assert [(d["path"], d["code"]) for d in expected["diagnostics"]] == [(f"{MEMORIES}/a1.md", "M213")]
    report, hits = run(capsys, repo)
    assert report == expected


@pytest.mark.parametrize("change", ["a new memory", "a deleted memory", "a new source file"])
def test_other_files_found_go_the_usual_way(repo, capsys, change):
    run(capsys, repo)
    if change == "a new memory":
        write_memory(repo, "new", "src/missing.py", "x")
    elif change == "a deleted memory":
        (repo / MEMORIES / "b0.md").unlink()
    else:
        (repo / "src" / "c.py").write_text("pass\n")
    date_back(repo, 30)
    expected = uncached(capsys, repo)
    assert run(capsys, repo)[0] == expected
    assert run(capsys, repo) == (expected, expected["files_checked"])  # recorded again, and replayed


def test_a_file_now_claimed_by_another_kind_goes_the_usual_way(repo, capsys):
    (repo / "docs").mkdir()
    (repo / "docs" / "notes.md").write_text("# Notes\n\nNo front matter: not a memory.\n")
    date_back(repo)
    assert run(capsys, repo)[0]["files_checked"] == MANY + 2
    (repo / "docs" / "notes.md").write_text('---\nid: notes\ncitations:\n  - path: src/a.py\n    line: 1\n    snippet: "nowhere"\n---\n')
    date_back(repo / "docs" / "notes.md", 30)
    expected = uncached(capsys, repo)
    assert ("docs/notes.md", "M211") in {(d["path"], d["code"]) for d in expected["diagnostics"]}
    assert run(capsys, repo)[0] == expected


def test_too_many_files_affected_go_the_usual_way(repo, capsys, monkeypatch):
    run(capsys, repo)
    (repo / "src" / "b.py").write_text("def BETA():\n    return 2\n")
    date_back(repo / "src" / "b.py", 30)
    checked = []
    monkeypatch.setattr(replay._Rerun, "_check", lambda self, position: checked.append(position))
    expected = uncached(capsys, repo)
    assert run(capsys, repo)[0] == expected
    assert checked == []  # 30 of 32 affected: not re-checked one by one without the cache


@pytest.mark.parametrize("damage", [
    "not JSON", "another format", "a files row of text", "a task of another shape", "signatures of text",
    "walks of numbers", "names not lists", "a diagnostic row too short",
])
def test_a_damaged_record_is_not_trusted(repo, capsys, cache_folder, damage):
    first, _ = run(capsys, repo)
    (record,) = records(cache_folder)
    data = cache_module.read_document(record)
    (repo / "src" / "a.py").write_text("def ALPHA():\n    return 1\n")
    date_back(repo / "src" / "a.py", 30)
    if damage == "not JSON":
        record.write_text(record.read_text()[:100])
    else:
        if damage == "another format":
            data["format"] = replay.FORMAT + 1
        elif damage == "a files row of text":
            data["files"][0] = "src/a.py"
        elif damage == "a task of another shape":
            data["tasks"][0] = {"file": 0}
        elif damage == "signatures of text":
            data["files"] = [[*row[:3], "1", "2", "3"] for row in data["files"]]
        elif damage == "walks of numbers":
            data["walks"][0][3] = list(range(len(data["walks"][0][3])))
        elif damage == "names not lists":
            data["names"] = [7 for _ in data["names"]]
        else:
            for task in data["tasks"]:
                task[4] = [["M211"]]
        cache_module.write_document(record, data)  # (this user's own record, damaged: authenticated)
    expected = uncached(capsys, repo)
    assert run(capsys, repo)[0] == expected


def test_a_changed_baseline_goes_the_usual_way(repo, capsys, tmp_path):
    (repo / "src" / "a.py").write_text("def ALPHA():\n    return 1\n")
    date_back(repo)
    baseline = tmp_path / "baseline.json"
    assert main(["check", str(repo), "--write-baseline", str(baseline)]) == 0
    capsys.readouterr()
    os.utime(baseline, (time.time() - 60, time.time() - 60))
    assert run(capsys, repo, "--baseline", str(baseline))[0]["diagnostics"] == []
    assert run(capsys, repo, "--baseline", str(baseline))[0]["diagnostics"] == []  # replayed
    data = json.loads(baseline.read_text())
    baseline.write_text(json.dumps({**data, "entries": []}))  # the known findings are known no more
    os.utime(baseline, (time.time() - 60, time.time() - 60))
    report, _ = run(capsys, repo, "--baseline", str(baseline))
    assert len(report["diagnostics"]) == 2


def test_a_nested_root_is_replayed_and_rechecked_with_its_prefix(repo, capsys, cache_folder):
    nested = repo / "tools"
    (nested / MEMORIES).mkdir(parents=True)
    (nested / "pyproject.toml").write_text("[tool.citations]\n")
    (nested / "src").mkdir()
    (nested / "src" / "t.py").write_text("def tool():\n    pass\n")
    write_memory(nested, "t0", "src/t.py", "def tool():")
    date_back(repo)
    first, _ = run(capsys, repo)
    assert run(capsys, repo) == (first, MANY + 3)
    (nested / "src" / "t.py").write_text("def TOOL():\n    pass\n")
    date_back(nested / "src" / "t.py", 30)
    expected = uncached(capsys, repo)
    assert [(d["path"], d["code"]) for d in expected["diagnostics"]] == [(f"tools/{MEMORIES}/t0.md", "M211")]
    assert run(capsys, repo) == (expected, MANY + 2)


def test_a_new_commit_checked_out_rechecks_what_consulted_it(tmp_path, capsys, cache_folder):
    """A stale code tuple's message names commits: its check consults the commit checked out,
    which a re-run reads again (one `git rev-parse`) and compares with the record's."""
    root = tmp_path / "code"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "src" / "app.py").write_text("def login(user):\n    return True\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "Add login")
    old = git_history.content_hash((root / "src" / "app.py").read_bytes())
    (root / "src" / "app.py").write_text("def login(user):\n    return user.active\n")
    git(root, "commit", "-q", "-am", "Refuse inactive users")
    (root / "notes").mkdir()
    (root / "notes" / "review.md").write_text(f"Users log in [src/app.py@{old}, L1].\n")
    date_back(root)
    first, _ = run(capsys, root)
    assert [d["code"] for d in first["diagnostics"]] == ["R408"] and "Refuse inactive users" in first["diagnostics"][0]["message"]
    assert len(records(cache_folder)) == 1 and run(capsys, root) == (first, 1)
    git(root, "commit", "-q", "--amend", "-m", "Refuse users who left")  # the work tree stays as it was
    expected = uncached(capsys, root)
    assert "Refuse users who left" in expected["diagnostics"][0]["message"]
    assert run(capsys, root) == (expected, 0)


@pytest.mark.parametrize("fixture", sorted(p.name for p in (PROJECT / "fixtures").iterdir() if p.is_dir()))
def test_every_fixture_replays_its_own_report(fixture, tmp_path, capsys):
    root = tmp_path / fixture
    shutil.copytree(PROJECT / "fixtures" / fixture, root, symlinks=True)
    date_back(root)
    first, _ = run(capsys, root)
    assert run(capsys, root)[0] == first
    assert run(capsys, root)[0] == uncached(capsys, root)


def test_records_not_written_for_thirty_days_are_pruned(repo, capsys, cache_folder):
    run(capsys, repo)
    stale = cache_folder / "run-0123456789abcdef01234567.json"  # another request's
    cache_module.write_document(stale, {"format": replay.FORMAT, "key": "0123456789abcdef01234567"})
    month_ago = time.time() - 31 * 86400
    os.utime(stale, (month_ago, month_ago))
    write_memory(repo, "new", "src/a.py", "def alpha():")  # a new file: the usual run, which saves the cache
    run(capsys, repo)
    assert not stale.exists() and len(records(cache_folder)) == 1


def selected(capsys, root, *options) -> tuple[set, int]:
    """(the (path, code) of every diagnostic, files checked) of a run selecting files."""
    main(["check", str(root), "--format", "json", *options])
    data = json.loads(capsys.readouterr().out)
    return {(d["path"], d["code"]) for d in data["diagnostics"]}, data["files_checked"]


@pytest.mark.parametrize("named", [
    ["src/a.py"],  # cited by a0 and a1
    [f"{MEMORIES}/b3.md"],  # a file of the memory index: every memory consulted it
    ["docs/gone.md"],  # gone, and a memory by its front matter it could have been
    ["src/gone.py", "notes.txt"],  # gone or never there, and of no kind
])
def test_affected_by_from_the_record_selects_as_the_usual_run(repo, capsys, monkeypatch, named):
    (repo / "src" / "b.py").write_text("def BETA():\n    return 2\n")  # every b-memory reports M211
    date_back(repo)
    run(capsys, repo)
    monkeypatch.chdir(repo)
    expected = selected(capsys, repo, "--affected-by", *named, "--no-cache")
    monkeypatch.setattr(cache_module.ResultCache, "__init__", lambda *a: pytest.fail("the result cache was opened"))
    assert selected(capsys, repo, "--affected-by", *named) == expected


def test_the_pre_commit_hook_replays_the_record_of_a_plain_check(repo, capsys, monkeypatch):
    """The hook forces the excludes, which changes nothing in a walk from the root: it is answered
    by the record a plain `citations check` of the repository left."""
    date_back(repo)
    run(capsys, repo)
    monkeypatch.chdir(repo)
    expected = selected(capsys, repo, "--force-exclude", "--affected-by", "src/a.py", "--no-cache")
    monkeypatch.setattr(cache_module.ResultCache, "__init__", lambda *a: pytest.fail("the result cache was opened"))
    assert selected(capsys, repo, "--force-exclude", "--affected-by", "src/a.py") == expected


def test_forced_excludes_of_a_symlink_to_an_excluded_folder_are_another_request(repo, capsys):
    """The walk goes where the symlink leads, into an excluded folder: forcing the excludes there
    checks nothing, and that record must not answer a plain check of the symlink or the folder."""
    (repo / "pyproject.toml").write_text(repo.joinpath("pyproject.toml").read_text() + 'exclude = ["archive"]\n')
    (repo / "archive" / MEMORIES).mkdir(parents=True)
    write_memory(repo / "archive", "old", "src/gone.py", "def gone():")
    (repo / "link").symlink_to("archive", target_is_directory=True)
    date_back(repo)
    assert selected(capsys, repo / "link", "--force-exclude")[1] == 0
    for named in ("link", "archive"):
        found, checked = selected(capsys, repo / named)
        assert checked == 1 and {code for _, code in found} == {"M207"}


def test_a_run_that_selects_leaves_the_record_the_next_one_replays(repo, capsys, cache_folder, monkeypatch):
    """pre-commit runs only ever select: the first, which no record answers, checks the other files
    through the cache too and leaves the record; the next commit's run is answered by it."""
    date_back(repo)
    monkeypatch.chdir(repo)
    assert records(cache_folder) == []
    selected(capsys, repo, "--force-exclude", "--affected-by", "src/a.py")
    assert len(records(cache_folder)) == 1
    expected = selected(capsys, repo, "--affected-by", "src/b.py", "--no-cache")
    assert expected[1] == MANY  # the thirty b-memories
    monkeypatch.setattr(cache_module.ResultCache, "__init__", lambda *a: pytest.fail("the result cache was opened"))
    assert selected(capsys, repo, "--force-exclude", "--affected-by", "src/b.py") == expected


def test_forced_excludes_of_a_named_excluded_folder_are_another_request(repo, capsys, cache_folder):
    (repo / "pyproject.toml").write_text((repo / "pyproject.toml").read_text() + 'exclude = ["archive"]\n')
    (repo / "archive" / MEMORIES).mkdir(parents=True)
    write_memory(repo / "archive", "old", "src/a.py", "def alpha():")
    date_back(repo)
    named = repo / "archive"
    main(["check", str(named), "--format", "json", "-v"])
    capsys.readouterr()
    main(["check", str(named), "--format", "json", "-v", "--force-exclude"])
    assert len(records(cache_folder)) == 2


def test_since_from_the_record_rechecks_the_selected_files_only(repo, capsys, cache_folder):
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="Ada", GIT_AUTHOR_EMAIL="ada@example.org", GIT_COMMITTER_NAME="Ada",
               GIT_COMMITTER_EMAIL="ada@example.org", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)
    date_back(repo)
    run(capsys, repo)
    (record,) = records(cache_folder)
    before = record.read_bytes()
    (repo / "src" / "a.py").write_text("def ALPHA():\n    return 1\n")  # a0 and a1 break
    date_back(repo / "src" / "a.py", 30)
    expected = selected(capsys, repo, "--since", "HEAD", "--no-cache")
    assert expected == ({(f"{MEMORIES}/a0.md", "M211"), (f"{MEMORIES}/a1.md", "M211")}, 2)
    assert selected(capsys, repo, "--since", "HEAD") == expected
    assert record.read_bytes() == before  # a selection leaves the record as it was
    assert run(capsys, repo)[0] == uncached(capsys, repo)  # and the next full run is right


def test_an_index_first_consulted_in_a_rerun_is_followed_after_it(repo, capsys):
    """A re-checked file that now consults an index the record has no files for (an eval record's
    first section id) leaves the record as it was, so that a later change to that index's files
    (the corpus) is seen."""
    (repo / "data").mkdir()
    (repo / "eval").mkdir()
    section = '{"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-%s", "section_id": "EAR-%s", "chunk_kind": "section", "text": "a"}\n'
    (repo / "data" / "corpus.jsonl").write_text(section % ("740.1", "740.1") + section % ("736.2", "736.2"))
    (repo / "eval" / "q.v1.jsonl").write_text('{"id": "q1", "question": "x"}\n')
    (repo / "pyproject.toml").write_text('[tool.citations]\nignore = ["E506"]\n')
    date_back(repo)
    run(capsys, repo)
    (repo / "eval" / "q.v1.jsonl").write_text('{"id": "q1", "question": "x", "ear_sections": ["EAR-740.1"]}\n')
    date_back(repo / "eval" / "q.v1.jsonl", 40)
    assert run(capsys, repo)[0] == uncached(capsys, repo)
    (repo / "data" / "corpus.jsonl").write_text(section % ("736.2", "736.2"))
    date_back(repo / "data" / "corpus.jsonl", 30)
    expected = uncached(capsys, repo)
    assert ("eval/q.v1.jsonl", "E505") in {(d["path"], d["code"]) for d in expected["diagnostics"]}
    assert run(capsys, repo)[0] == expected


def test_a_named_file_that_becomes_an_artifact_is_checked(repo, capsys):
    notes = repo / "docs" / "notes.md"
    notes.parent.mkdir()
    notes.write_text("# Notes\n")
    date_back(repo)
    assert run(capsys, notes)[0]["files_checked"] == 0
    notes.write_text('---\nid: notes\ncitations:\n  - path: src/a.py\n    line: 1\n    snippet: "nowhere"\n---\n')
    date_back(notes, 30)
    expected = uncached(capsys, notes)
    assert [(d["path"], d["code"]) for d in expected["diagnostics"]] == [("docs/notes.md", "M211")]
    assert run(capsys, notes)[0] == expected


def test_a_symlinked_folder_that_leads_elsewhere_now_is_another_request(repo, capsys):
    for version, snippet in (("v1", "def alpha():"), ("v2", "nowhere")):
        (repo / version).mkdir()
        (repo / version / "m.md").write_text(
            f'---\nid: {version}\ncitations:\n  - path: src/a.py\n    line: 1\n    snippet: "{snippet}"\n---\n')
    (repo / "current").symlink_to("v1")
    date_back(repo)
    assert run(capsys, repo / "current")[0]["diagnostics"] == []
    (repo / "current").unlink()
    (repo / "current").symlink_to("v2")
    os.utime(repo / "current", (time.time() - 60, time.time() - 60), follow_symlinks=False)
    expected = uncached(capsys, repo / "current")
    assert [d["code"] for d in expected["diagnostics"]] == ["M211"]
    assert run(capsys, repo / "current")[0] == expected


def test_a_crash_in_a_rerun_is_checked_again_next_time(repo, capsys, monkeypatch):
    from pytest_citations.kinds.memories import verification

    run(capsys, repo)
    (repo / "src" / "a.py").write_text("def ALPHA():\n    return 1\n")
    date_back(repo / "src" / "a.py", 30)
    real = verification.verify_citation
    monkeypatch.setattr(verification, "verify_citation", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("transient")))
    assert "C006" in {d["code"] for d in run(capsys, repo)[0]["diagnostics"]}
    monkeypatch.setattr(verification, "verify_citation", real)
    expected = uncached(capsys, repo)
    assert "C006" not in {d["code"] for d in expected["diagnostics"]}
    assert run(capsys, repo)[0] == expected


@pytest.mark.parametrize("damage", ["shares cut short", "a claim of no names", "a prefix of no text"])
def test_a_record_damaged_where_a_rerun_reads_it_goes_the_usual_way(repo, capsys, cache_folder, damage):
    run(capsys, repo)
    (record,) = records(cache_folder)
    data = cache_module.read_document(record)
    (repo / "src" / "a.py").write_text("def ALPHA():\n    return 1\n")
    date_back(repo / "src" / "a.py", 30)
    a_py = next(number for number, row in enumerate(data["files"]) if row[1] == "src/a.py")
    if damage == "shares cut short":
        data["indexes"][0][3] = data["indexes"][0][3][:1]
    elif damage == "a claim of no names":
        data["files"][a_py][2] = 999
        data["files"] = [row if row[2] is None else [*row[:2], 999, *row[3:]] for row in data["files"]]
    else:
        data["roots"][0][1] = 7
    cache_module.write_document(record, data)
    assert run(capsys, repo)[0] == uncached(capsys, repo)


def git(root, *args) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="Ada", GIT_AUTHOR_EMAIL="ada@example.org", GIT_COMMITTER_NAME="Ada",
               GIT_COMMITTER_EMAIL="ada@example.org", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


# How a selecting run learns who reads what: checking every file, the result cache, or the record.
SELECTING_WAYS = ["--no-cache", "the result cache", "the record"]


def select_with(way, capsys, root, monkeypatch, *options):
    """The selecting run ``way``, after a full run that filled the cache and the record."""
    if way == "the result cache":
        monkeypatch.setattr(replay.Request, "replayed", lambda self, selection=None: None)
    return selected(capsys, root, *options, *(["--no-cache"] if way == "--no-cache" else []))


@pytest.mark.parametrize("way", SELECTING_WAYS)
def test_a_file_that_stops_being_a_memory_selects_the_memories_linking_to_it(repo, capsys, monkeypatch, way):
    design = repo / "docs" / "design.md"
    design.parent.mkdir()
    design.write_text('---\nid: design\ncitations:\n  - path: src/a.py\n    line: 1\n    snippet: "def alpha():"\n---\n')
    write_memory(repo, "a1", "src/a.py", "def alpha():", links="links:\n  - related: design\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "start")
    date_back(repo)
    run(capsys, repo)
    design.write_text("---\nid: design\n---\n\n# Design\n")  # no citations: no memory any more
    date_back(design, 30)
    found, _ = select_with(way, capsys, repo, monkeypatch, "--since", "HEAD")
    assert (f"{MEMORIES}/a1.md", "M213") in found


@pytest.mark.parametrize("way", SELECTING_WAYS)
def test_a_file_that_cites_a_named_file_since_its_last_check_is_selected(repo, capsys, monkeypatch, way):
    (repo / "src" / "c.py").write_text("def gamma():\n    return 3\n")
    date_back(repo)
    run(capsys, repo)
    write_memory(repo, "a0", "src/c.py", "def nowhere():")  # cites c.py now, wrongly
    date_back(repo / MEMORIES / "a0.md", 30)
    monkeypatch.chdir(repo)
    assert select_with(way, capsys, repo, monkeypatch, "--affected-by", "src/c.py") == ({(f"{MEMORIES}/a0.md", "M211")}, 1)


@pytest.mark.parametrize("way", SELECTING_WAYS)
def test_a_changed_settings_file_selects_every_file_of_its_root(repo, capsys, monkeypatch, way):
    (repo / "src" / "b.py").write_text("def BETA():\n    return 2\n")  # every b-memory reports M211...
    (repo / "pyproject.toml").write_text('[tool.citations]\nignore = ["M211"]\n')  # ...once not ignored
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "start")
    (repo / "pyproject.toml").write_text("[tool.citations]\n")
    date_back(repo)
    run(capsys, repo)
    found, checked = select_with(way, capsys, repo, monkeypatch, "--since", "HEAD")
    assert checked == MANY + 2 and len(found) == MANY


def _leaves(value, path=()):
    """(path, leaf) of every number, string, null and empty list in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path, value


JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**20), st.text(max_size=8), st.just([]),
                        st.just({}), st.lists(st.integers(-2, 40), max_size=3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_damage_to_a_record_is_never_a_crash(tmp_path_factory, capsys, data):
    """Any leaf of a record replaced by any JSON value: a report and the exit status of one, or the
    usual run; never a traceback. (A record is trusted as far as its shape goes, as the cache is.)"""
    folder = tmp_path_factory.mktemp("damaged")
    repo, cache_folder = make_repo(folder / "repo"), folder / "cache"
    assert main(["check", str(repo), "--format", "json", "--cache-dir", str(cache_folder)]) == 0
    capsys.readouterr()
    (record,) = records(cache_folder)
    document = cache_module.read_document(record)
    leaves = list(_leaves(document))
    for _ in range(data.draw(st.integers(1, 4))):
        path, _ = leaves[data.draw(st.integers(0, len(leaves) - 1))]
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = data.draw(JSON_LEAVES)
    cache_module.write_document(record, document)  # (damaged, yet authenticated: the shape is what is tested)
    if data.draw(st.booleans()):
        (repo / "src" / "a.py").write_text(data.draw(st.sampled_from(["def ALPHA():\n", "def alpha():\n    return 1\n"])))
        date_back(repo / "src" / "a.py", 30)
    assert main(["check", str(repo), "--format", "json", "--cache-dir", str(cache_folder)]) in (0, 1)
    json.loads(capsys.readouterr().out)


def test_a_run_in_several_processes_is_recorded_and_replayed(repo, capsys, cache_folder, monkeypatch):
    (repo / "src" / "b.py").write_text("def BETA():\n    return 2\n")  # thirty findings to carry over
    date_back(repo)
    first, _ = run(capsys, repo, "-j", "2")
    assert len(records(cache_folder)) == 1
    monkeypatch.setattr(cache_module.ResultCache, "__init__", lambda *a: pytest.fail("the result cache was opened"))
    assert run(capsys, repo) == (first, MANY + 2)
    assert first == uncached(capsys, repo)


def test_each_shard_is_a_request_of_its_own(repo, capsys, cache_folder):
    (repo / "src" / "b.py").write_text("def BETA():\n    return 2\n")
    date_back(repo)
    shards = [run(capsys, repo, "--shard", f"{k}/2")[0] for k in (1, 2)]
    assert len(records(cache_folder)) == 2
    assert [run(capsys, repo, "--shard", f"{k}/2")[0] for k in (1, 2)] == shards
    assert sum(shard["files_checked"] for shard in shards) == MANY + 2
    whole = uncached(capsys, repo)["diagnostics"]
    assert sorted(d["path"] for shard in shards for d in shard["diagnostics"]) == sorted(d["path"] for d in whole)


@pytest.mark.parametrize("way", SELECTING_WAYS)
def test_since_tells_an_edit_below_the_front_matter_from_a_new_id(repo, capsys, monkeypatch, way):
    """Under --since the memory index compares each changed file's share (id, superseded ids) at
    the merge base and now: a body edit, or an edit of a Markdown file that is no memory, selects
    no other memory; a new id does."""
    (repo / "README.md").write_text("# Notes\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "start")
    date_back(repo)
    run(capsys, repo)
    with (repo / MEMORIES / "b3.md").open("a") as memory:
        memory.write("\nMore notes below the front matter.\n")
    (repo / "README.md").write_text("# Notes, edited\n")
    date_back(repo, 30)
    assert select_with(way, capsys, repo, monkeypatch, "--since", "HEAD")[1] == 1  # b3 alone
    (repo / MEMORIES / "b3.md").write_text((repo / MEMORIES / "b3.md").read_text().replace("id: b3", "id: b3-new"))
    date_back(repo / MEMORIES / "b3.md", 20)
    assert select_with(way, capsys, repo, monkeypatch, "--since", "HEAD")[1] == MANY + 2


def test_a_selection_of_rules_is_a_request_of_its_own(repo, capsys, cache_folder):
    (repo / "src" / "b.py").write_text("def BETA():\n    return 2\n")
    date_back(repo)
    for options in ((), ("--ignore", "M211"), ("--select", "M213")):
        first, _ = run(capsys, repo, *options)
        assert run(capsys, repo, *options) == (first, MANY + 2)
        assert first == run(capsys, repo, *options, "--no-cache")[0]
    assert len(records(cache_folder)) == 3
