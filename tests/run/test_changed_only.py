"""Checking part of a repository: --since, --staged, --affected-by, --shard, and -j giving the same answer."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess

import pytest

from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main
from pytest_citations.run.selection import in_shard, index_touched, parse_shard, shard_of

MEMORIES = ".serena/memories"


def git(root, *args) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="Ada", GIT_AUTHOR_EMAIL="ada@example.org", GIT_COMMITTER_NAME="Ada",
               GIT_COMMITTER_EMAIL="ada@example.org", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env).stdout


def write_memory(root, name: str, *cited: str) -> None:
    """A memory whose every citation is stale (its snippet is nowhere), so that every check of it
    reports M211: the diagnostics show which memories were checked."""
    citations = "".join(f'  - path: {path}\n    line: 1\n    snippet: "not in any file"\n' for path in cited)
    (root / MEMORIES / f"{name}.md").write_text(f"---\nid: {name}\ncitations:\n{citations}---\n\n# {name}\n")


@pytest.fixture
def repo(tmp_path):
    """main: src/a.py, b.py, c.py cited by m_a (a), m_b (b), m_ab (a and b), m_c (c); then on
    branch `feature`: a.py changed and committed, m_c edited but not committed, m_new untracked."""
    root = tmp_path / "repo"
    (root / MEMORIES).mkdir(parents=True)
    (root / "src").mkdir()
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    for name in "abc":
        (root / "src" / f"{name}.py").write_text(f"def {name}():\n    pass\n")
    write_memory(root, "m_a", "src/a.py")
    write_memory(root, "m_b", "src/b.py")
    write_memory(root, "m_ab", "src/a.py", "src/b.py")
    write_memory(root, "m_c", "src/c.py")
    (root / ".gitignore").write_text(".citations_cache/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "start")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "src" / "a.py").write_text("def a():\n    return 1\n")
    git(root, "commit", "-q", "-am", "change a")
    write_memory(root, "m_c", "src/c.py", "src/c.py")
    write_memory(root, "m_new", "src/c.py")
    return root


def checked(capsys, root, *options) -> set[str]:
    """The memories a run reported (every checked memory reports M211)."""
    main(["check", str(root), "--format", "json", *options])
    data = json.loads(capsys.readouterr().out)
    names = {d["path"].removeprefix(f"{MEMORIES}/").removesuffix(".md") for d in data["diagnostics"]}
    assert data["files_checked"] == len(names)
    return names


def only_sources_changed(repo) -> None:
    """Leave the feature branch's change to src/a.py alone: m_c's edit undone, m_new gone."""
    git(repo, "checkout", "-q", "--", ".")
    (repo / MEMORIES / "m_new.md").unlink()


def warm_cache_from_main(repo, capsys) -> None:
    """A full check of main fills the cache; the feature branch and its uncommitted work return."""
    uncommitted = bool(git(repo, "status", "--porcelain"))
    if uncommitted:
        git(repo, "stash", "-q", "--include-untracked")
    git(repo, "checkout", "-q", "main")
    assert checked(capsys, repo) == {"m_a", "m_b", "m_ab", "m_c"}
    git(repo, "checkout", "-q", "feature")
    if uncommitted:
        git(repo, "stash", "pop", "-q")


WARM_OR_NOT = pytest.mark.parametrize("warm", [True, False], ids=["cache of an earlier full run", "no cache"])


@WARM_OR_NOT
def test_since_checks_the_files_citing_a_changed_file(repo, capsys, warm):
    only_sources_changed(repo)
    if warm:
        warm_cache_from_main(repo, capsys)
    options = () if warm else ("--no-cache",)
    assert checked(capsys, repo, "--since", "main", *options) == {"m_a", "m_ab"}


def test_since_from_a_subfolder_looks_at_the_whole_repository(repo, capsys, monkeypatch):
    """The changes are the repository's: run in src/, the run still finds the memories outside it
    that cite the changed file (it passed, having looked in src/ only), named from src/."""
    only_sources_changed(repo)
    monkeypatch.chdir(repo / "src")
    for option in (["--since", "main"], ["--staged", "a.py"]):
        main(["check", "--no-cache", *option])
        shown = capsys.readouterr().out
        assert {f"../{MEMORIES}/m_a.md", f"../{MEMORIES}/m_ab.md"} <= {line.split(":")[0] for line in shown.splitlines()}


@WARM_OR_NOT
def test_since_checks_every_memory_when_a_memory_changed(repo, capsys, warm):
    """m_c edited and m_new added change files the memory index is built from, so every memory
    whose check consulted the index (each looks up its own id, for M214) is selected: m_new's id
    could have been m_b's."""
    if warm:
        warm_cache_from_main(repo, capsys)
    options = () if warm else ("--no-cache",)
    assert checked(capsys, repo, "--since", "main", *options) == {"m_a", "m_b", "m_ab", "m_c", "m_new"}


@WARM_OR_NOT
def test_since_checks_the_memories_linking_to_a_deleted_one(tmp_path, capsys, warm):
    """Deleting a memory leaves the links to it dangling (M213): the linking memory is checked,
    though it cites no changed file."""
    root = tmp_path / "repo"
    (root / MEMORIES).mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / MEMORIES / "target.md").write_text("---\nid: target\n---\n\n# target\n")
    (root / MEMORIES / "linker.md").write_text("---\nid: linker\nlinks:\n  - related: target\n---\n\n# linker\n")
    (root / MEMORIES / "other.md").write_text("---\nid: other\n---\n\n# other\n")
    (root / ".gitignore").write_text(".citations_cache/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "start")
    options = ["--format", "json"] if warm else ["--format", "json", "--no-cache"]
    if warm:
        assert main(["check", str(root), *options]) == 0
        capsys.readouterr()
    (root / MEMORIES / "target.md").unlink()
    assert main(["check", str(root), "--since", "HEAD", *options]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [(d["code"], d["path"]) for d in data["diagnostics"]] == [("M213", f"{MEMORIES}/linker.md")]
    assert data["files_checked"] == 2  # linker and other consulted the index; target is gone


def test_since_checks_the_datasets_citing_a_changed_corpus(tmp_path, capsys):
    """A section removed from the retrieval corpus no longer resolves (E505) in the eval records
    that cite it: they are checked, though only the corpus changed."""
    root = tmp_path / "ear"
    shutil.copytree(PROJECT / "fixtures" / "ear-repo", root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "start")
    corpus = root / "data" / "corpus.jsonl"
    corpus.write_text("".join(line for line in corpus.read_text().splitlines(keepends=True) if '"EAR-740.1' not in line))

    def e505(*options) -> int:
        main(["check", str(root), "--format", "json", *options])
        diagnostics = json.loads(capsys.readouterr().out)["diagnostics"]
        return sum(d["code"] == "E505" for d in diagnostics)

    assert e505() == e505("--since", "HEAD") == e505("--since", "HEAD", "--no-cache") == 2


@pytest.mark.parametrize(("changed", "touched"), [
    ({"src/a.py"}, False),  # cited by memories, but no memory's id or links
    ({f"{MEMORIES}/m_c.md"}, True),  # a file the index is built from
    ({f"{MEMORIES}/gone.md"}, True),  # deleted, and a memory by its path: it may have been one
    ({"docs/gone.md"}, True),  # deleted; any Markdown file may be a memory by its front matter
    ({"src/gone.py"}, False),  # deleted, and no memory by its path
    (set(), False),
])
def test_which_changes_touch_the_memory_index(repo, changed, touched):
    engine = Engine.load(repo)
    assert index_touched(engine, "memories.index", changed) is touched
    assert index_touched(engine, "git.head", changed) is False  # built from no file of the work tree


def test_since_counts_a_deleted_cited_file(repo, capsys):
    only_sources_changed(repo)
    (repo / "src" / "b.py").unlink()
    assert checked(capsys, repo, "--since", "HEAD") == {"m_b", "m_ab"}


def test_since_with_nothing_changed_checks_nothing(repo, capsys):
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "all")
    assert main(["check", str(repo), "--since", "HEAD"]) == 0
    assert "no artifact file is affected by the changes" in capsys.readouterr().err


def test_since_an_unknown_revision_is_a_usage_error(repo, capsys):
    assert main(["check", str(repo), "--since", "no-such-branch"]) == 2
    assert "--since no-such-branch: no common ancestor" in capsys.readouterr().err


def test_affected_by_named_files(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    assert checked(capsys, repo, "--affected-by", "src/b.py") == {"m_b", "m_ab"}
    # a memory is one of the files the memory index is built from: every memory consulted it
    assert checked(capsys, repo, "--affected-by", f"{MEMORIES}/m_c.md", "README.md") == {"m_a", "m_b", "m_ab", "m_c", "m_new"}
    assert checked(capsys, repo, "--affected-by", ".gitignore") == set()


def tasks_of(root):
    engine = Engine.load(root)
    return engine.plan([root])


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_shards_partition_the_run(n):
    tasks = tasks_of(PROJECT / "fixtures")
    shards = [{task.shown for task in shard_of(tasks, (k, n))} for k in range(1, n + 1)]
    assert set().union(*shards) == {task.shown for task in tasks}
    assert sum(len(s) for s in shards) == len(tasks)  # no file in two shards
    if n > 1:
        assert all(len(s) < len(tasks) for s in shards)


def test_a_file_stays_in_its_shard_when_others_are_added():
    names = [f"notes/{i}.md" for i in range(200)]
    before = {name: [k for k in range(1, 5) if in_shard(name, (k, 4))] for name in names}
    assert all(len(ks) == 1 for ks in before.values())
    assert before == {name: [k for k in range(1, 5) if in_shard(name, (k, 4))] for name in names}


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "a/b", "1", "-1/2", " 1/2"])
def test_a_bad_shard_is_refused(text, capsys):
    with pytest.raises(ValueError):
        parse_shard(text)
    with pytest.raises(SystemExit):
        main(["check", "--shard", text])
    assert "--shard" in capsys.readouterr().err


def test_shards_of_the_cli_add_up_to_the_whole(tmp_path, capsys):
    root = tmp_path / "memory-repo"
    shutil.copytree(PROJECT / "fixtures" / "memory-repo", root)
    main(["check", str(root), "--format", "json", "--no-cache"])
    whole = json.loads(capsys.readouterr().out)
    parts = []
    for k in (1, 2, 3):
        main(["check", str(root), "--format", "json", "--no-cache", "--shard", f"{k}/3"])
        parts.append(json.loads(capsys.readouterr().out))
    assert sum(p["files_checked"] for p in parts) == whole["files_checked"]
    assert sorted(json.dumps(d, sort_keys=True) for p in parts for d in p["diagnostics"]) == sorted(
        json.dumps(d, sort_keys=True) for d in whole["diagnostics"]
    )


@pytest.mark.parametrize("fixture", ["memory-repo", "example-repo", "ear-repo", "brief-repo"])
def test_jobs_give_the_serial_answer_and_fill_the_cache(fixture, tmp_path, capsys):
    root = tmp_path / fixture
    shutil.copytree(PROJECT / "fixtures" / fixture, root)
    serial_code = main(["check", str(root), "--format", "json", "--no-cache"])
    serial = capsys.readouterr().out
    parallel_code = main(["check", str(root), "--format", "json", "-j", "2", "-v"])
    captured = capsys.readouterr()
    assert (parallel_code, captured.out) == (serial_code, serial)
    files = json.loads(serial)["files_checked"]
    assert f"{files} files checked, 0 from the cache" in captured.err
    main(["check", str(root), "--format", "json", "-v"])
    again = capsys.readouterr()
    assert again.out == serial and f"{files} files checked, {files} from the cache" in again.err


def test_since_reads_paths_git_would_quote(repo, capsys):
    """Names with spaces, quotes and non-ASCII letters come through git's NUL-separated output
    unquoted and are matched to what memories cite."""
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "all")
    odd = 'src/a b "ü".py'
    (repo / odd).write_text("def odd():\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "odd")
    write_memory(repo, "m_odd", odd)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "memory")
    assert checked(capsys, repo) >= {"m_odd"}  # a full run records what it cites
    (repo / odd).write_text("def odd():\n    pass\n")
    assert checked(capsys, repo, "--since", "HEAD") == {"m_odd"}


def test_since_lists_tracked_and_untracked_changes_side_by_side(repo):
    from pytest_citations.core import git_history

    assert git_history.changes_since(repo, "main").paths == {"src/a.py", f"{MEMORIES}/m_c.md", f"{MEMORIES}/m_new.md"}


def test_since_that_runs_out_of_time_stops_its_git_commands(repo, monkeypatch):
    from pytest_citations.core import git_history

    started = []
    real = subprocess.Popen

    def popen(*args, **kwargs):
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(subprocess, "Popen", popen)
    monkeypatch.setattr(git_history._Budget, "left", lambda self: -1.0 if started else 5.0)
    with pytest.raises(git_history.ChangesError, match="did not answer"):
        git_history.changes_since(repo, "main")
    assert started and all(process.poll() is not None for process in started)


def test_since_when_git_cannot_list_the_changes(repo, monkeypatch):
    from pytest_citations.core import git_history

    real = git_history._git_at_once
    monkeypatch.setattr(git_history, "_git_at_once", lambda checkout, commands, budget, filters=None: real(
        checkout, [["ls-files", "--no-such-option"] if args[0] == "ls-files" else args for args in commands], budget,
        filters))
    with pytest.raises(git_history.ChangesError, match="could not list"):
        git_history.changes_since(repo, "main")


@pytest.mark.parametrize(("changed", "before", "touched"), [
    ({f"{MEMORIES}/m_c.md"}, "same", False),  # an edit below the front matter: the same id and links
    ({f"{MEMORIES}/m_c.md"}, "---\nid: m_old\n---\n", True),  # another id then
    ({f"{MEMORIES}/m_c.md"}, None, True),  # a new memory
    ({f"{MEMORIES}/gone.md"}, "---\nid: gone\n---\n", True),  # a deleted memory
    ({"docs/notes.md"}, "# Notes\n", False),  # a Markdown file that was no memory then, and is none now
    ({"docs/notes.md"}, "---\nid: notes\ncitations:\n  - path: src/a.py\n---\n", True),  # a memory by its head then, gone now
    ({f"{MEMORIES}/m_c.md"}, LookupError, True),  # what it held then cannot be told
])
def test_the_memory_index_compares_shares_then_and_now(repo, changed, before, touched):
    engine = Engine.load(repo)

    def earlier(rels):
        if before is LookupError:
            return {}
        return {rel: (repo / rel).read_text() if before == "same" else before for rel in rels}

    assert index_touched(engine, "memories.index", changed, earlier=earlier) is touched


def test_files_at_a_commit_come_from_one_batch(repo):
    from pytest_citations.core import git_history

    (repo / "src" / "odd name.py").write_bytes(b"\x00\xff binary\nand lines\n")
    (repo / "src" / "empty.py").write_bytes(b"")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "odd files")
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "src" / "odd name.py").write_text("changed since\n")
    asked = ["src/odd name.py", "src/empty.py", f"{MEMORIES}/m_a.md", "src/gone.py", "src", "bad\nname"]
    assert git_history.files_at(repo, head, asked, max_size=1000) == {
        "src/odd name.py": b"\x00\xff binary\nand lines\n",
        "src/empty.py": b"",
        f"{MEMORIES}/m_a.md": (repo / MEMORIES / "m_a.md").read_bytes(),
        "src/gone.py": None,  # no such file then
    }  # a folder and a name with a line break: git cannot tell


def test_files_at_a_commit_leave_out_versions_past_the_size_limits(repo, monkeypatch):
    """A commit of the checkout may hold a file of any size: the versions larger than the run's
    max-file-size, and those past EARLIER_BYTES in all, are left out (as git could not tell of
    them: the selection then counts them as changed), never read. Was: every version read whole."""
    from pytest_citations.core import git_history

    (repo / "src" / "big.py").write_bytes(b"x" * 5000)
    for name in ("one", "two", "three"):
        (repo / "src" / f"{name}.py").write_bytes(name.encode() * 100)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "sizes")
    head = git(repo, "rev-parse", "HEAD").strip()
    asked = ["src/big.py", "src/one.py", "src/two.py", "src/three.py", "src/gone.py"]
    monkeypatch.setattr(git_history, "EARLIER_BYTES", 700)  # room for two of the small ones
    assert git_history.files_at(repo, head, asked, max_size=4999) == {
        "src/one.py": b"one" * 100, "src/two.py": b"two" * 100, "src/gone.py": None}


def staged_repo(repo):
    """The repo fixture with everything committed, then a rename, a deletion and an odd name
    staged, an edit left unstaged and a file left untracked."""
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "all")
    git(repo, "mv", "src/a.py", 'src/a "ü" b.py')
    git(repo, "rm", "-q", "src/b.py")
    write_memory(repo, "m_c", "src/a.py")
    git(repo, "add", f"{MEMORIES}/m_c.md")
    (repo / "src" / "c.py").write_text("def c():\n    return 3\n")  # not staged
    (repo / "untracked.py").write_text("")
    return repo


def test_staged_changes_list_deletions_and_both_sides_of_a_rename(repo):
    from pytest_citations.core import git_history

    staged = git_history.staged_changes(staged_repo(repo))
    assert staged.paths == {"src/a.py", 'src/a "ü" b.py', "src/b.py", f"{MEMORIES}/m_c.md"}
    assert staged.base == git(repo, "rev-parse", "HEAD").strip()


def test_staged_changes_below_a_root_inside_the_checkout(repo):
    """A root below the top of the work tree: its paths, relative to it, and no others."""
    from pytest_citations.core import git_history

    assert git_history.staged_changes(staged_repo(repo) / "src").paths == {"a.py", 'a "ü" b.py', "b.py"}


def test_staged_changes_before_the_first_commit(tmp_path):
    """No HEAD yet: everything staged is new, and the files had no earlier version."""
    from pytest_citations.core import git_history

    (tmp_path / "a.py").write_text("a\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "a.py")
    staged = git_history.staged_changes(tmp_path)
    assert staged.paths == {"a.py"}
    assert git_history.files_at(tmp_path, staged.base, ["a.py"], max_size=1000) == {"a.py": None}


def test_staged_changes_read_the_index_git_commit_names(repo, monkeypatch):
    """`git commit -a` and `git commit PATH` stage into an index of their own and name it to the
    hook in GIT_INDEX_FILE: that index holds the commit's changes."""
    from pytest_citations.core import git_history

    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "all")
    index = repo / ".git" / "next-index.lock"
    index.write_bytes((repo / ".git" / "index").read_bytes())
    env = {**os.environ, "GIT_INDEX_FILE": str(index), "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", "-C", str(repo), "rm", "-q", "--cached", "src/b.py"], check=True, env=env)
    assert git_history.staged_changes(repo).paths == set()
    monkeypatch.setenv("GIT_INDEX_FILE", ".git/next-index.lock")  # relative: to the top of the work tree
    assert git_history.staged_changes(repo).paths == {"src/b.py"}
    monkeypatch.setenv("GIT_INDEX_FILE", str(index))
    assert git_history.staged_changes(repo).paths == {"src/b.py"}
    other = repo / "other"
    other.mkdir()
    git(other, "init", "-q")
    assert git_history.staged_changes(other).paths == set()  # another repository's index is not its own


def test_staged_changes_run_no_program_the_repository_names(repo, tmp_path):
    """A repository's own config may name programs (an fsmonitor hook, a pager, an external diff
    or textconv driver): listing its staged changes runs none of them."""
    from pytest_citations.core import git_history

    ran = tmp_path / "ran.log"
    spy = tmp_path / "spy.sh"
    spy.write_text(f'#!/bin/sh\necho "$0 $*" >> {shlex.quote(str(ran))}\n')
    spy.chmod(0o755)
    for key in ("core.fsmonitor", "core.pager", "diff.external", "diff.spy.textconv", "diff.spy.command"):
        git(repo, "config", key, str(spy))
    git(repo, "config", "pager.diff", "true")
    (repo / ".gitattributes").write_text("*.py diff=spy\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "all")
    (repo / "src" / "b.py").write_text("def b():\n    return 2\n")
    git(repo, "add", "src/b.py")
    subprocess.run(["git", "-C", str(repo), "diff", "--cached", "--name-only"], capture_output=True, check=True)
    assert ran.exists()  # the spy works: plain git runs it
    ran.unlink()
    assert git_history.staged_changes(repo).paths == {"src/b.py"}
    assert not ran.exists()


@WARM_OR_NOT
def test_staged_checks_what_the_staged_changes_affect(repo, capsys, warm):
    """The rename of a.py and the deletion of b.py select the memories citing them; the unstaged
    edit of c.py is no staged change. A staged edit of m_c's citations selects m_c alone: compared
    with HEAD, its id and links are the same, so the memory index did not change."""
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "all")
    if warm:
        checked(capsys, repo)
    git(repo, "mv", "src/a.py", "src/a2.py")
    git(repo, "rm", "-q", "src/b.py")
    (repo / "src" / "c.py").write_text("def c():\n    return 3\n")
    options = () if warm else ("--no-cache",)
    assert checked(capsys, repo, "--staged", *options) == {"m_a", "m_b", "m_ab"}
    write_memory(repo, "m_c", "src/c.py", "src/a.py")
    git(repo, "add", f"{MEMORIES}/m_c.md")
    assert checked(capsys, repo, "--staged", *options) == {"m_a", "m_b", "m_ab", "m_c"}


def test_staged_also_counts_the_files_named_after_it(repo, capsys, monkeypatch):
    """pre-commit names files after the hook's options (every tracked file with --all-files):
    those count as changed as well as what is staged."""
    monkeypatch.chdir(repo)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "all")
    git(repo, "rm", "-q", "src/b.py")
    assert checked(capsys, repo, "--staged", "src/c.py") == {"m_b", "m_ab", "m_c", "m_new"}


def test_staged_outside_a_checkout_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / MEMORIES).mkdir(parents=True)
    write_memory(tmp_path, "m", "a.py")
    assert main(["check", str(tmp_path), "--staged"]) == 2
    assert "citations: error: --staged: no git checkout" in capsys.readouterr().err


def test_staged_and_since_exclude_each_other(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--staged", "--since", "HEAD"])
    assert "not allowed with" in capsys.readouterr().err
