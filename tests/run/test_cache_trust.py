"""What the result cache and the record of the last run may believe, and where they may write
(pytest_citations/run/cache.py, pytest_citations/run/replay.py; docs/security.md, docs/speed.md).

The checkout is a stranger's: a cache or record found in it is believed only when this user's key
authenticates it; settings and symlinks from the checkout cannot make a run write or delete files
outside the repository; a cache file that is a symlink, a FIFO or a huge file is never read. And a
file that changes while a run reads it is never recorded as clean.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

# Hypothesis's pytest plugin imports ``hypothesis`` at the end of every session, and pytester
# unloads what an in-process run imported: imported here once, it is not paid for per run.
import hypothesis  # noqa: F401
import pytest

from conftest import same_code_environment
from cpu_bounds import assert_cpu_under
from pytest_citations.core import sources
from pytest_citations.frontends.cli import main
from pytest_citations.run import cache as cache_module
from pytest_citations.run import replay

MEMORIES = ".serena/memories"
# Two errors a fresh clone must report whatever its cache folder holds: a line past the end of
# the cited file (M210) and a path out of the repository (M206).
FINDINGS = [(f"{MEMORIES}/long.md", "M210"), (f"{MEMORIES}/out.md", "M206")]


def memory(name: str, path: str, line: int, snippet: str) -> str:
    return f'---\nid: {name}\ncitations:\n  - path: {path}\n    line: {line}\n    snippet: "{snippet}"\n---\n\n# {name}\n'


def date_back(root: Path, seconds: float = 60) -> None:
    """Out of the racy window, as files checked out a while ago."""
    for path in [root, *root.rglob("*")] if root.is_dir() else [root]:
        os.utime(path, (time.time() - seconds, time.time() - seconds), follow_symlinks=False)


def make_repo(root: Path) -> Path:
    (root / MEMORIES).mkdir(parents=True)
    (root / "src").mkdir()
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "src" / "a.py").write_text("def alpha():\n    return 1\n")
    (root / MEMORIES / "good.md").write_text(memory("good", "src/a.py", 1, "def alpha():"))
    (root / MEMORIES / "long.md").write_text(memory("long", "src/a.py", 99, "def alpha():"))
    (root / MEMORIES / "out.md").write_text(memory("out", "../outside.txt", 1, "secret"))
    date_back(root)
    return root


@pytest.fixture
def repo(tmp_path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture
def in_the_checkout(monkeypatch) -> None:
    """`citations check` keeps its cache where it does by default: `.citations_cache/` at the root."""
    monkeypatch.delenv("CITATIONS_CACHE_DIR")


def check(capsys, root: Path, *options: str) -> tuple[int, list[tuple[str, str]]]:
    """(exit status, diagnostics as (path, code)) of ``citations check root``."""
    code = main(["check", str(root), "--format", "json", *options])
    captured = capsys.readouterr()
    return code, sorted((d["path"], d["code"]) for d in json.loads(captured.out)["diagnostics"])


def documents(folder: Path) -> list[Path]:
    return sorted(path for path in folder.glob("*.json") if path.name.startswith(("results-", "delta-", "run-")))


def empty_findings(data: dict) -> None:
    """What a forger wants: every stored result and every recorded task clean."""
    for entry in data.get("results", {}).values():
        entry["diagnostics"] = []
    for task in data.get("tasks", []):
        task[4] = []
    if "outside" in data:
        data["outside"] = []


def forge(folder: Path) -> None:
    """Empty the findings of every document in ``folder`` and write it back as JSON, as anyone
    without this user's key can (its authentication code, if it has one, no longer fits)."""
    for path in documents(folder):
        data = json.loads(path.read_bytes())
        empty_findings(data)
        path.write_text(json.dumps(data))


def forge_with_another_key(folder: Path, monkeypatch, tmp_path: Path) -> None:
    """Empty the findings and authenticate the documents with another machine's key (a cache
    restored from elsewhere, or a run of another user): then switch to this user's own key."""
    for path in documents(folder):
        data = cache_module.read_document(path)
        empty_findings(data)
        cache_module.write_document(path, data)
    monkeypatch.setenv(cache_module.KEY_FILE_VARIABLE, str(tmp_path / "this-users-key"))


# -- a committed cache never produces a pass ------------------------------------------------------------


@pytest.mark.usefixtures("in_the_checkout")
@pytest.mark.parametrize("where", ["in place", "a fresh clone"])
@pytest.mark.parametrize("forger", ["without a key", "with another key"])
def test_a_committed_cache_with_its_findings_emptied_never_passes(repo, capsys, monkeypatch, tmp_path, where, forger):
    assert check(capsys, repo) == (1, FINDINGS)
    assert check(capsys, repo) == (1, FINDINGS)  # (a record and a cache are both there now)
    folder = repo / cache_module.DEFAULT_FOLDER
    assert {path.name.split("-")[0] for path in documents(folder)} == {"results", "run"}
    if forger == "without a key":
        forge(folder)
    else:
        forge_with_another_key(folder, monkeypatch, tmp_path)
    if where == "a fresh clone":  # (new inodes: no record answers; the cache is keyed by content)
        clone = tmp_path / "clone"
        shutil.copytree(repo, clone, symlinks=True)
        date_back(clone)
        repo = clone
    assert check(capsys, repo) == (1, FINDINGS)
    assert check(capsys, repo) == (1, FINDINGS)  # what the run wrote in their place is believed
    believed = [path.name.split("-")[0] for path in documents(repo / cache_module.DEFAULT_FOLDER)
                if cache_module.read_document(path) is not None]
    assert sorted(believed) == ["results", "run"]


@pytest.mark.parametrize("forger", ["without a key", "with another key"])
def test_a_committed_pytest_cache_with_its_findings_emptied_never_passes(pytester, monkeypatch, tmp_path, forger):
    make_repo(pytester.path)
    for _ in range(2):
        pytester.runpytest_inprocess("--citations", "-p", "no:randomly").assert_outcomes(passed=1, failed=2)
    folder = pytester.path / ".pytest_cache" / "d" / "citations"
    assert {path.name.split("-")[0] for path in documents(folder)} == {"results", "run"}
    if forger == "without a key":
        forge(folder)
    else:
        forge_with_another_key(folder, monkeypatch, tmp_path)
    result = pytester.runpytest_inprocess("--citations", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*long.md:*: M210 Line 99 exceeds file length (2)*"])
    result.stdout.fnmatch_lines(["*out.md:*: M206 *"])


# -- the key ---------------------------------------------------------------------------------------


def test_the_key_is_made_on_first_use_in_the_users_cache_folder_for_this_user_alone(repo, capsys, monkeypatch, tmp_path,
                                                                                  cache_folder):
    monkeypatch.delenv(cache_module.KEY_FILE_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert check(capsys, repo) == (1, FINDINGS)
    key = tmp_path / "xdg" / "pytest-citations" / "key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    made = key.read_bytes()
    assert len(made) >= cache_module.MIN_KEY_SIZE
    assert [path.name for path in key.parent.iterdir()] == ["key"]  # (no temporary file left)
    cache_module._key_at.cache_clear()  # (as a new process would)
    assert check(capsys, repo) == (1, FINDINGS)
    assert key.read_bytes() == made
    assert all(cache_module.read_document(path) is not None for path in documents(cache_folder))


def test_without_xdg_cache_home_the_key_is_in_dot_cache_of_the_home(monkeypatch, tmp_path):
    monkeypatch.delenv(cache_module.KEY_FILE_VARIABLE)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_module.key_file() == tmp_path / "home" / ".cache" / "pytest-citations" / "key"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # (a relative one is ignored)
    assert cache_module.key_file() == tmp_path / "home" / ".cache" / "pytest-citations" / "key"


def test_a_key_made_by_another_run_meanwhile_is_the_one_used(monkeypatch, tmp_path):
    """Two first runs at once: the key is linked into place whole, and the one that comes second
    takes the first one's key (never half a key, never two keys)."""
    path = tmp_path / "keys" / "key"
    real_link = os.link

    def another_run_first(source, target):
        (tmp_path / "keys" / "key").write_bytes(b"k" * 40)
        os.chmod(target, 0o600)
        real_link(source, target)

    monkeypatch.setattr(os, "link", another_run_first)
    assert cache_module._key_at(str(path)) == b"k" * 40
    assert sorted(p.name for p in path.parent.iterdir()) == ["key"]


@pytest.mark.parametrize("damage", ["others may read it", "too short", "a folder"])
def test_a_key_that_is_not_this_users_alone_is_not_used(repo, capsys, cache_folder, own_cache_key, damage):
    """Without a usable key the cache lives in memory: nothing is believed, nothing written."""
    own_cache_key.parent.mkdir(exist_ok=True)
    if damage == "a folder":
        own_cache_key.mkdir()
    else:
        own_cache_key.write_bytes(b"k" * (40 if damage == "others may read it" else 8))
        own_cache_key.chmod(0o644 if damage == "others may read it" else 0o600)
    assert check(capsys, repo) == (1, FINDINGS)
    assert documents(cache_folder) == []
    assert check(capsys, repo) == (1, FINDINGS)


def test_a_cache_restored_with_its_key_is_believed_and_without_it_checked_afresh(repo, capsys, monkeypatch, tmp_path,
                                                                                cache_folder):
    """A CI job restoring the cache folder and the key file another job saved (as actions/cache
    does): the results are reused; restoring the folder without the key costs a cold run."""
    key = tmp_path / "ci" / "key"
    monkeypatch.setenv(cache_module.KEY_FILE_VARIABLE, str(key))
    assert check(capsys, repo) == (1, FINDINGS)
    saved = tmp_path / "saved"
    shutil.copytree(cache_folder, saved / "cache")
    shutil.copy2(key, saved / "key")
    for key_file, reused in ((tmp_path / "restored-key", 3), (tmp_path / "fresh-key", 0)):
        shutil.rmtree(cache_folder)  # a new job: the cache folder restored, and the key with it or not
        shutil.copytree(saved / "cache", cache_folder)
        if reused:
            shutil.copy2(saved / "key", key_file)
        cache_module._key_at.cache_clear()
        monkeypatch.setenv(cache_module.KEY_FILE_VARIABLE, str(key_file))
        code = main(["check", str(repo), "--format", "json", "-v"])
        assert code == 1 and f"3 files checked, {reused} from the cache" in capsys.readouterr().err


# -- where the cache lives --------------------------------------------------------------------------


@pytest.mark.usefixtures("in_the_checkout")
@pytest.mark.parametrize("setting", ["../victim", "/ABSOLUTE/victim", "cache/../../victim", ".", "./"])
def test_settings_may_not_place_the_cache_outside_the_repository(repo, capsys, tmp_path, setting):
    victim = tmp_path / "victim"
    victim.mkdir()
    (repo / "pyproject.toml").write_text(f'[tool.citations]\ncache-dir = "{setting.replace("/ABSOLUTE", str(tmp_path))}"\n')
    assert main(["check", str(repo)]) == 2
    assert "is not a folder inside the repository" in capsys.readouterr().err
    assert list(victim.iterdir()) == []


@pytest.mark.parametrize("named_by", ["the default", "the setting", "--cache-dir", "$CITATIONS_CACHE_DIR"])
def test_a_committed_symlink_never_leads_the_cache_out_of_the_repository(repo, capsys, monkeypatch, tmp_path, named_by):
    """The cache folder, or a folder on the way to it, is a symlink the checkout holds: the run
    checks as without a cache, and writes and deletes nothing where it points."""
    victim = tmp_path / "victim"
    victim.mkdir()
    old = victim / "results-0123456789abcdef01234567.json"  # a file of that name, a month old
    old.write_text("{}")
    date_back(old, 40 * 86400)
    monkeypatch.delenv("CITATIONS_CACHE_DIR")
    options: list[str] = []
    if named_by == "the setting":
        (repo / "pyproject.toml").write_text('[tool.citations]\ncache-dir = "build/citations"\n')
        (repo / "build").symlink_to(victim)
    else:
        (repo / ".citations_cache").symlink_to(victim)
        monkeypatch.chdir(repo)
        if named_by == "--cache-dir":
            options = ["--cache-dir", ".citations_cache"]
        elif named_by == "$CITATIONS_CACHE_DIR":
            monkeypatch.setenv("CITATIONS_CACHE_DIR", ".citations_cache")
    for _ in range(2):
        assert check(capsys, repo, *options) == (1, FINDINGS)
    assert sorted(path.name for path in victim.rglob("*")) == [old.name]


def test_a_cache_folder_the_user_names_through_a_symlink_of_their_own_is_used(repo, capsys, tmp_path):
    """A symlink outside the repository is the user's: it is followed."""
    (tmp_path / "disk").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "disk")
    check(capsys, repo, "--cache-dir", str(tmp_path / "link" / "citations"))
    assert len(documents(tmp_path / "disk" / "citations")) == 2


@pytest.mark.usefixtures("in_the_checkout")
def test_a_committed_symlink_for_a_cache_document_is_never_followed(repo, capsys, tmp_path):
    check(capsys, repo)
    folder = repo / cache_module.DEFAULT_FOLDER
    names = [path.name for path in documents(folder)]
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in names:  # each document replaced by a symlink to a file outside, a month old
        (folder / name).unlink()
        (victim / name).write_text("precious")
        (folder / name).symlink_to(victim / name)
        date_back(folder / name, 40 * 86400)
    (repo / "src" / "a.py").write_text("def alpha():\n    return 1\n\n")  # something to write
    date_back(repo / "src" / "a.py")
    for _ in range(2):
        assert check(capsys, repo) == (1, FINDINGS)
    assert sorted(path.name for path in victim.iterdir()) == sorted(names)
    assert {(victim / name).read_text() for name in names} == {"precious"}
    assert not any((folder / name).is_symlink() for name in names)  # replaced by the run's own


def test_pruning_deletes_only_documents_this_user_wrote(repo, capsys, cache_folder):
    check(capsys, repo)
    ours = cache_folder / "run-0123456789abcdef01234567.json"
    cache_module.write_document(ours, {"format": replay.FORMAT, "key": "0123456789abcdef01234567"})
    theirs = [cache_folder / "results-0123456789abcdef01234567.json", cache_folder / "run-fedcba9876543210fedcba98.json",
              cache_folder / "notes.json"]
    for path in theirs:
        path.write_text(json.dumps({"format": replay.FORMAT, "key": "fedcba9876543210fedcba98"}))
    for path in [ours, *theirs]:
        date_back(path, 40 * 86400)
    (repo / "src" / "a.py").write_text("def alpha():\n    return 1\n\n")  # something to write
    date_back(repo / "src" / "a.py")
    check(capsys, repo)
    assert not ours.exists() and all(path.exists() for path in theirs)


@pytest.mark.usefixtures("in_the_checkout")
def test_a_cache_folder_someone_else_made_is_marked_so_that_git_ignores_it(repo, capsys, tmp_path):
    folder = repo / cache_module.DEFAULT_FOLDER
    folder.mkdir()
    (tmp_path / "victim").write_text("precious")
    (folder / "CACHEDIR.TAG").symlink_to(tmp_path / "victim")  # a mark that is there is left alone
    check(capsys, repo)
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (tmp_path / "victim").read_text() == "precious"


def test_pytests_folder_is_marked_and_its_documents_authenticated(pytester):
    make_repo(pytester.path)
    pytester.runpytest_inprocess("--citations", "-p", "no:randomly").assert_outcomes(passed=1, failed=2)
    folder = pytester.path / ".pytest_cache" / "d" / "citations"
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert len(documents(folder)) == 2 and all(cache_module.read_document(path) for path in documents(folder))


@pytest.mark.parametrize("how", ["a symlink to .pytest_cache", "cache_dir in the checkout's settings"])
def test_the_checkout_never_leads_pytests_citations_folder_out_of_the_repository(pytester, tmp_path, how):
    make_repo(pytester.path)
    victim = tmp_path / "victim"
    victim.mkdir()
    if how == "a symlink to .pytest_cache":
        (pytester.path / ".pytest_cache").symlink_to(victim)
    else:
        pytester.makeini(f"[pytest]\ncache_dir = {victim}\n")
    for _ in range(2):
        pytester.runpytest_inprocess("--citations", "-p", "no:randomly").assert_outcomes(passed=1, failed=2)
    assert documents(victim / "d" / "citations") == []


def test_a_cache_dir_pytest_is_given_on_the_command_line_is_used(pytester, tmp_path):
    make_repo(pytester.path)
    chosen = tmp_path / "chosen"
    pytester.runpytest_inprocess("--citations", "-p", "no:randomly", "-o", f"cache_dir={chosen}")
    assert len(documents(chosen / "d" / "citations")) == 2


# -- cache files that are not regular files ---------------------------------------------------------------

HOSTILE = ["a symlink to /dev/zero", "a FIFO", "a sparse file past the size cap"]

# A process started by a large one (a test worker late in the suite) inherits its peak memory as
# its own (Linux keeps it across exec): the measured run is started by a small process instead.
FROM_A_SMALL_PARENT = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"
RUN_AND_MEASURE = """
import resource, sys, time
from pytest_citations.frontends.cli import main
started = time.process_time()  # CPU time: the work done, whatever else runs on the machine
code = main(["check", sys.argv[1], "--format", "json"])
print(f"{code} {time.process_time() - started:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", file=sys.stderr)
"""


def make_hostile(path: Path, how: str) -> None:
    path.unlink(missing_ok=True)
    if how == "a symlink to /dev/zero":
        path.symlink_to("/dev/zero")
    elif how == "a FIFO":
        os.mkfifo(path)
    else:
        with open(path, "wb") as stream:
            stream.truncate(cache_module.MAX_DOCUMENT_SIZE + 1)


def limit_memory() -> None:
    """(In the child: a case that exhausts memory fails there, not on the machine.)"""
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def every_document_of_a_run(repo: Path, capsys) -> list[Path]:
    """The result cache's base, a delta and the record of a run of ``repo``'s check (the delta
    named as the next run would look for it)."""
    check(capsys, repo)
    folder = repo / cache_module.DEFAULT_FOLDER
    found = documents(folder)
    base = next(path.name for path in found if path.name.startswith("results-"))
    return [*found, folder / f"delta-{base[len('results-'):-len('.json')]}-{time.time_ns():020d}-1.json"]


def assert_checked_afresh_in_bounds(repo: Path) -> None:
    """``citations check`` of ``repo`` in a small child process reports FINDINGS in under 5 s and
    under 200 MB."""
    done = subprocess.run([sys.executable, "-c", FROM_A_SMALL_PARENT, sys.executable, "-c", RUN_AND_MEASURE, str(repo)],
                          capture_output=True, text=True, timeout=60, preexec_fn=limit_memory,
                          env=same_code_environment(PYTHONHASHSEED="0"))
    code, seconds, peak_kib = done.stderr.strip().splitlines()[-1].split()
    assert int(code) == 1 and sorted((d["path"], d["code"]) for d in json.loads(done.stdout)["diagnostics"]) == FINDINGS
    assert_cpu_under(float(seconds), 5)
    assert int(peak_kib) < 200 * 1024, peak_kib


@pytest.mark.usefixtures("in_the_checkout")
@pytest.mark.parametrize("how", HOSTILE)
def test_a_cache_file_that_is_no_regular_file_is_never_read(repo, capsys, how):
    """Every document of the folder (the result cache's base and a delta, the record) is replaced:
    the run checks afresh, in bounded time and memory, and writes its own documents in their place."""
    folder = repo / cache_module.DEFAULT_FOLDER
    names = [path.name for path in every_document_of_a_run(repo, capsys)]
    for name in names:
        make_hostile(folder / name, how)
    assert_checked_afresh_in_bounds(repo)
    assert sum(stat.S_ISREG((folder / name).lstat().st_mode) for name in names) >= 2  # the base and record, written anew


FORGED_SIZE = 900 << 20  # under the document cap, which a document's size alone cannot tell from ours


def forge_large(path: Path) -> None:
    """A document of the checker's name that no key of this user's made: the shape of an
    authentication code, then JSON text to 900 MB (sparse: it takes no room on disk)."""
    path.unlink(missing_ok=True)
    with open(path, "wb") as stream:
        stream.write(b'{"mac":"' + b"0" * 64 + b'","format":4,"padding":"')
        stream.truncate(FORGED_SIZE)


@pytest.mark.usefixtures("in_the_checkout")
@pytest.mark.parametrize("which", ["results", "delta", "run"])
def test_a_forged_document_under_the_size_cap_is_never_held_in_memory(repo, capsys, which):
    """A base, a delta or a record of 900 MB (their names follow from the installed code and the
    settings, so a pull request can commit one): streamed through its code, in constant memory,
    and never read to be parsed; a base or record is then written anew. Was: read whole first,
    945 MB at the peak."""
    paths = every_document_of_a_run(repo, capsys)
    forged = next(path for path in paths if path.name.startswith(which))
    forge_large(forged)
    if which != "run":  # (the record would answer the run, and the result cache would not be read)
        next(path for path in paths if path.name.startswith("run-")).unlink()
    assert_checked_afresh_in_bounds(repo)
    assert (cache_module.read_document(forged) is not None) == (which != "delta")


def test_a_document_is_read_only_when_its_code_authenticates_it(tmp_path):
    """What ``read_document`` parses is what it authenticated: a document of ours is read (also
    one larger than a chunk of the stream), one changed by a byte after it was written is not."""
    path = tmp_path / "run-x.json"
    data = {"format": 1, "text": "x" * (3 << 20)}
    cache_module.write_document(path, data)
    assert cache_module.read_document(path) == data
    raw = bytearray(path.read_bytes())
    raw[-3] = ord("y")
    path.write_bytes(raw)
    assert cache_module.read_document(path) is None
    assert cache_module.read_document(tmp_path / "missing.json") is None


def test_read_regular_refuses_what_is_no_regular_file_within_the_limit(tmp_path):
    for how in HOSTILE:
        make_hostile(tmp_path / "doc.json", how)
        assert cache_module.read_regular(tmp_path / "doc.json", cache_module.MAX_DOCUMENT_SIZE) is None
    (tmp_path / "doc.json").unlink()
    (tmp_path / "doc.json").write_bytes(b"12345")
    assert cache_module.read_regular(tmp_path / "doc.json", 5) == b"12345"
    assert cache_module.read_regular(tmp_path / "doc.json", 4) is None


# -- a file edited while the run reads it -------------------------------------------------------------------


def edit(path: Path, text: str) -> None:
    """Rewrite ``path`` in place, its mtime well in the past (out of every racy window: only the
    order of the read, the edit and the hashing is what these tests are about)."""
    with open(path, "r+", encoding="utf-8") as stream:
        stream.write(text)
        stream.truncate()
    date_back(path)


def a_py_broken(repo: Path) -> None:
    edit(repo / "src" / "a.py", "def ALPHA():\n    return 1\n")


BROKEN = [(f"{MEMORIES}/good.md", "M211"), *FINDINGS]


def edit_src_a_before_storing_good(repo: Path):
    """A stand-in for ``ResultCache.store`` that edits src/a.py once, when the result of good.md
    is stored: after its check read the file, before the cache hashes it (in whichever process
    checked good.md)."""
    real = cache_module.ResultCache.store

    def edit_first(cache, rel, *args):
        if rel == f"{MEMORIES}/good.md" and b"ALPHA" not in (repo / "src" / "a.py").read_bytes():
            a_py_broken(repo)
        return real(cache, rel, *args)

    return edit_first


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_edited_between_the_checks_read_and_its_hashing_is_never_recorded_clean(repo, capsys, monkeypatch, jobs):
    with monkeypatch.context() as patched:
        patched.setattr(cache_module.ResultCache, "store", edit_src_a_before_storing_good(repo))
        assert check(capsys, repo, "-j", jobs) == (1, FINDINGS)  # good.md read the file as it was
    assert b"ALPHA" in (repo / "src" / "a.py").read_bytes()
    assert check(capsys, repo, "--no-cache") == (1, BROKEN)
    assert check(capsys, repo) == (1, BROKEN)
    assert check(capsys, repo) == (1, BROKEN)  # (the record of the run before)


def test_a_file_edited_between_the_caches_stat_and_its_hashing_is_never_recorded_clean(repo, capsys, monkeypatch):
    real = sources.stat_inside

    def edit_after_the_caches_stat(root, path):
        found = real(root, path)
        if path == "src/a.py" and sys._getframe(1).f_code.co_name == "_fingerprint" and not edits:
            edits.append(path)
            a_py_broken(repo)
        return found

    edits: list[str] = []
    with monkeypatch.context() as patched:
        patched.setattr(sources, "stat_inside", edit_after_the_caches_stat)
        assert check(capsys, repo) == (1, FINDINGS)
    assert edits == ["src/a.py"]
    assert check(capsys, repo) == (1, BROKEN)
    assert check(capsys, repo) == (1, BROKEN)


def test_a_file_edited_while_pytest_reads_it_is_never_recorded_clean(pytester, monkeypatch):
    make_repo(pytester.path)
    with monkeypatch.context() as patched:
        patched.setattr(cache_module.ResultCache, "store", edit_src_a_before_storing_good(pytester.path))
        pytester.runpytest_inprocess("--citations", "-p", "no:randomly").assert_outcomes(passed=1, failed=2)
    assert b"ALPHA" in (pytester.path / "src" / "a.py").read_bytes()
    for _ in range(2):
        pytester.runpytest_inprocess("--citations", "-p", "no:randomly").assert_outcomes(failed=3)


def test_a_file_a_rerun_reads_and_that_changes_before_it_is_recorded_is_checked_again(repo, capsys, monkeypatch):
    """The record of a partial re-run: good.md now cites src/c.py, which the re-run reads and
    which changes before the record takes its signature."""
    monkeypatch.setattr(replay, "MAX_AFFECTED_SHARE", 1.0)  # (a re-run of one file of three)
    (repo / "src" / "c.py").write_text("def gamma():\n")
    date_back(repo)
    assert check(capsys, repo) == (1, FINDINGS)
    (repo / MEMORIES / "good.md").write_text(memory("good", "src/c.py", 1, "def gamma():"))
    date_back(repo / MEMORIES / "good.md")
    real = replay._Rerun._record

    def edit_first(rerun, found):
        assert f"{MEMORIES}/good.md" in [rerun.files[rerun.tasks[position][1]][1] for position in found]
        edit(repo / "src" / "c.py", "def GAMMA():\n")
        return real(rerun, found)

    with monkeypatch.context() as patched:
        patched.setattr(replay._Rerun, "_record", edit_first)
        assert check(capsys, repo) == (1, FINDINGS)  # (what the re-run read)
    truth = check(capsys, repo, "--no-cache")
    assert truth == (1, BROKEN)
    assert check(capsys, repo) == truth
    assert check(capsys, repo) == truth


def test_a_file_edited_while_its_kind_is_worked_out_is_claimed_afresh_next_time(repo, capsys, monkeypatch):
    """docs/note.md is a memory by its front matter (by content), with a stale citation. While
    the run reads its head to claim it, it is no memory; then it is put back. What its head said
    then is not kept with its hash: the next run claims it again, and reports it."""
    note = repo / "docs" / "note.md"
    note.parent.mkdir()
    note.write_text(memory("note", "src/a.py", 1, "def beta():"))
    date_back(repo)
    assert check(capsys, repo, "--no-cache") == (1, sorted([("docs/note.md", "M211"), *FINDINGS]))
    real = sources.read_head

    def no_memory_while_read(root, path, *args, **kwargs):
        if path == "docs/note.md" and not edits:
            edits.append(path)
            edit(note, "# just a note\n")
        return real(root, path, *args, **kwargs)

    edits: list[str] = []
    with monkeypatch.context() as patched:
        patched.setattr(sources, "read_head", no_memory_while_read)
        assert check(capsys, repo) == (1, FINDINGS)  # (its head was no memory's)
    assert edits == ["docs/note.md"]
    note.write_text(memory("note", "src/a.py", 1, "def beta():"))
    date_back(note)
    assert check(capsys, repo) == (1, sorted([("docs/note.md", "M211"), *FINDINGS]))


@pytest.mark.usefixtures("without_replay")
def test_a_memory_edited_while_the_index_of_ids_is_built_is_never_recorded_clean(repo, capsys, monkeypatch):
    """b0.md gets another id while the run reads it for the index of memory ids (after the cache
    hashed it), then gets its id back. Nothing is kept of the index built then: when b0.md later
    really loses its id, the memory linking to it is checked again and its link dangles (M213)."""
    from pytest_citations.kinds.memories import model as memories

    (repo / MEMORIES / "b0.md").write_text(memory("b0", "src/a.py", 1, "def alpha():"))
    (repo / MEMORIES / "a1.md").write_text(memory("a1", "src/a.py", 1, "def alpha():").replace(
        "citations:", "links:\n  - related: b0\ncitations:"))
    date_back(repo)
    real = memories._index_entry

    def another_id_while_read(engine, rel):
        if rel == f"{MEMORIES}/b0.md" and not edits:
            edits.append(rel)
            edit(repo / MEMORIES / "b0.md", memory("bX", "src/a.py", 1, "def alpha():"))
        return real(engine, rel)

    edits: list[str] = []
    with monkeypatch.context() as patched:
        patched.setattr(memories, "_index_entry", another_id_while_read)
        check(capsys, repo)
    assert edits == [f"{MEMORIES}/b0.md"]
    (repo / MEMORIES / "b0.md").write_text(memory("b0", "src/a.py", 1, "def alpha():"))
    date_back(repo / MEMORIES / "b0.md")
    assert check(capsys, repo) == check(capsys, repo, "--no-cache") == (1, FINDINGS)
    (repo / MEMORIES / "b0.md").write_text(memory("bX", "src/a.py", 1, "def alpha():"))
    date_back(repo / MEMORIES / "b0.md")
    truth = check(capsys, repo, "--no-cache")
    assert (f"{MEMORIES}/a1.md", "M213") in truth[1]
    assert check(capsys, repo) == truth


def test_results_of_other_code_are_not_taken_for_this_codes(tmp_path):
    """The version stays 0.1.0 until a release: a pin moved to another commit, or an edited
    editable install, must not be answered by results its old code left in the cache."""
    package = tmp_path / "package"
    (package / "kinds" / "memories").mkdir(parents=True)
    (package / "__pycache__").mkdir()
    module = package / "kinds" / "memories" / "rules.py"
    module.write_text("def check():\n    return 1\n")
    (package / "catalog.json").write_text("[]\n")
    before = cache_module.code_identity.__wrapped__(package)
    (package / "__pycache__" / "rules.cpython-311.pyc").write_bytes(b"compiled")
    assert cache_module.code_identity.__wrapped__(package) == before  # bytecode is not the code
    module.write_text("def check():\n    return 2\n")
    os.utime(module, ns=(1, 1))
    assert cache_module.code_identity.__wrapped__(package) != before


def test_the_key_of_a_cache_names_the_code(tmp_path, monkeypatch):
    from pytest_citations.engine import Engine

    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    engine = Engine.load(tmp_path)
    keys = set()
    for identity in ("code of one commit", "code of another"):
        monkeypatch.setattr(cache_module, "code_identity", lambda folder, identity=identity: identity)
        keys.add(engine.state.cache_key())
    assert len(keys) == 2
