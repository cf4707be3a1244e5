"""Git is run only on the checkout's own top, and nothing the checkout names runs (docs/security.md,
threat model rule 1; docs/code-tuples.md, "STALE and git history").

Each attack is a setting, attribute or folder of the checkout that makes git run a program (a spy
that writes a line to a marker file) or read another repository's history (commits whose subject
says FORGED). Every attack is tried through every front end that runs git: a plain
``citations check`` (the STALE history of a code tuple), ``--since`` a remote branch, ``--staged``,
``-j 2``, and ``pytest --citations``; each control shows that plain git does run the spy.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_citations.core import git_history
from pytest_citations.frontends.cli import main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

APP_V1 = "def login(user):\n    return user.active\n"
APP_V2 = APP_V1 + "\n\ndef logout(user):\n    user.session = None\n"
LIB_OLD, LIB_NOW = "x = 1\n", "x = 2\n"
FORGED = "FORGED"
HISTORY = "it had this hash at commit"
SETUP = {
    **{key: value for key, value in os.environ.items() if not key.startswith("GIT_")},
    "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org", "GIT_COMMITTER_NAME": "Ada",
    "GIT_COMMITTER_EMAIL": "ada@example.org", "GIT_AUTHOR_DATE": "2026-01-05T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-05T12:00:00+00:00", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def git(root: Path, *args: str, stdin: str | None = None) -> str:
    """Plain git, as the test's own setup and controls run it (never the checker's way)."""
    return subprocess.run(["git", "-C", str(root), *args], input=stdin, check=True, capture_output=True, text=True,
                          env=SETUP).stdout.strip()


def git_anyway(root: Path, *args: str) -> None:
    """Plain git for a control, whose command may fail once the spy has run in its place."""
    subprocess.run(["git", "-C", str(root), *args], capture_output=True, env=SETUP, timeout=30)


def add_attributes(path: Path, line: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        handle.write(line)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def signed_commit(root: Path, message: str) -> str:
    """A commit of what is staged carrying a signature, which `git log` verifies with
    ``gpg.program`` when ``log.showSignature`` is set."""
    tree, parent = git(root, "write-tree"), git(root, "rev-parse", "HEAD")
    person = "Ada <ada@example.org> 1767614400 +0000"
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQ==\n -----END PGP SIGNATURE-----\n"
    body = f"tree {tree}\nparent {parent}\nauthor {person}\ncommitter {person}\n{signature}\n{message}\n"
    made = git(root, "hash-object", "-t", "commit", "-w", "--stdin", stdin=body)
    git(root, "update-ref", "HEAD", made)
    return made


class Spy:
    """Programs that write their name and arguments to one marker file when run."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.marker = folder / "ran.log"

    def program(self, name: str) -> str:
        path = self.folder / name
        path.write_text(f"#!/bin/sh\necho {shlex.quote(name)} \"$*\" >> {shlex.quote(str(self.marker))}\n")
        path.chmod(0o755)
        return str(path)

    def ran(self) -> list[str]:
        return self.marker.read_text().splitlines() if self.marker.exists() else []


@pytest.fixture
def spy(tmp_path) -> Spy:
    folder = tmp_path / "spies"
    folder.mkdir()
    return Spy(folder)


@pytest.fixture
def checkout(tmp_path, monkeypatch) -> Path:
    """A checkout as CI clones it, and the folder the checker runs in: src/app.py cited by two
    code tuples at its first version, changed since in a signed commit (its history names it);
    `origin/main` at the first commit; a change of src/app.py staged and another made after it."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no user settings of this machine
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    root = tmp_path / "checkout"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, {"pyproject.toml": "[tool.citations]\n", ".gitignore": ".citations_cache/\n", "src/app.py": APP_V1})
    commit(root, "Add login")
    git(root, "update-ref", "refs/remotes/origin/main", "HEAD")
    write(root, {"src/app.py": APP_V2})
    git(root, "add", "-A")
    signed_commit(root, "Add logout")
    old = content_hash(APP_V1)
    write(root, {"notes/review.md": f"Login checks the user [src/app.py@{old}, L1-2].\n",
                 "notes/logout.md": f"Logout drops the session [src/app.py@{old}, L5-6].\n"})
    commit(root, "Review")
    write(root, {"src/app.py": APP_V2 + "\n"})
    git(root, "add", "src/app.py")
    write(root, {"src/app.py": APP_V2 + "\n\n"})
    monkeypatch.chdir(root)
    return root


# -- the attacks: each puts programs in the checkout's git settings, attributes or hooks ----------

def fsmonitor(root: Path, spy: Spy) -> None:
    git(root, "config", "core.fsmonitor", spy.program("fsmonitor"))


def hooks(root: Path, spy: Spy) -> None:
    folder = root / ".git" / "spy-hooks"
    folder.mkdir()
    for name in ("pre-commit", "post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc"):
        shutil.copy(spy.program(f"hook-{name}"), folder / name)
        shutil.copy(folder / name, root / ".git" / "hooks" / name)
    git(root, "config", "core.hooksPath", str(folder))


def external_diff(root: Path, spy: Spy) -> None:
    git(root, "config", "diff.external", spy.program("external-diff"))


def textconv(root: Path, spy: Spy) -> None:
    add_attributes(root / ".git/info/attributes", "*.py diff=spy\n")
    git(root, "config", "diff.spy.textconv", spy.program("textconv"))


def diff_driver(root: Path, spy: Spy) -> None:
    add_attributes(root / ".gitattributes", "*.py diff=spy\n")
    git(root, "config", "diff.spy.command", spy.program("diff-driver"))


def clean_filter(root: Path, spy: Spy) -> None:
    add_attributes(root / ".gitattributes", "*.py filter=evil\n")
    git(root, "config", "filter.evil.clean", spy.program("clean"))
    git(root, "config", "filter.evil.required", "true")


def smudge_filter(root: Path, spy: Spy) -> None:
    add_attributes(root / ".gitattributes", "*.py filter=evil\n")
    git(root, "config", "filter.evil.smudge", spy.program("smudge"))


def process_filter(root: Path, spy: Spy) -> None:
    add_attributes(root / ".gitattributes", "*.py filter=evil\n")
    git(root, "config", "filter.evil.process", spy.program("process"))


def filter_from_info_attributes(root: Path, spy: Spy) -> None:
    add_attributes(root / ".git/info/attributes", "* filter=odd.name\n")
    git(root, "config", "filter.odd.name.clean", spy.program("clean-info"))


def pager(root: Path, spy: Spy) -> None:
    git(root, "config", "core.pager", spy.program("pager"))
    for command in ("log", "diff", "show"):
        git(root, "config", f"pager.{command}", spy.program(f"pager-{command}"))


def signature(root: Path, spy: Spy) -> None:
    git(root, "config", "log.showSignature", "true")
    git(root, "config", "gpg.program", spy.program("gpg"))


def _programs_file(root: Path, spy: Spy) -> str:
    """A settings file in the work tree (it could be committed) naming programs."""
    fsmonitor, gpg = spy.program("included-fsmonitor"), spy.program("included-gpg")
    write(root, {"tools/evil.gitconfig": f"[core]\n\tfsmonitor = {fsmonitor}\n"
                                         f"[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {gpg}\n"})
    return "../tools/evil.gitconfig"  # relative to .git/config


def include_path(root: Path, spy: Spy) -> None:
    git(root, "config", "include.path", _programs_file(root, spy))


def include_if(root: Path, spy: Spy) -> None:
    git(root, "config", f"includeIf.gitdir:{root}/.git.path", _programs_file(root, spy))


def _on_a_terminal(root: Path, *args: str) -> None:
    """Plain git with its output on a terminal, where it starts a pager."""
    leader, follower = os.openpty()
    try:
        subprocess.run(["git", "-C", str(root), *args], stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
                       env=SETUP, timeout=30)
    finally:
        os.close(follower)
        os.close(leader)


# attack -> the plain git command that runs its program (the control)
ATTACKS = {
    "fsmonitor": (fsmonitor, lambda root: git_anyway(root, "diff", "--name-only")),
    "hooks": (hooks, lambda root: git_anyway(root, "commit", "-q", "--allow-empty", "-m", "x")),
    "external diff": (external_diff, lambda root: git_anyway(root, "diff")),
    "textconv": (textconv, lambda root: git_anyway(root, "diff")),
    "diff driver command": (diff_driver, lambda root: git_anyway(root, "diff")),
    "clean filter": (clean_filter, lambda root: git_anyway(root, "diff", "--name-only", "HEAD")),
    "smudge filter": (smudge_filter, lambda root: git_anyway(root, "cat-file", "--filters", "HEAD:src/app.py")),
    "process filter": (process_filter, lambda root: git_anyway(root, "diff", "--name-only", "HEAD")),
    "filter from .git/info/attributes": (filter_from_info_attributes,
                                         lambda root: git_anyway(root, "diff", "--name-only", "HEAD")),
    "pager": (pager, lambda root: _on_a_terminal(root, "log", "-1")),
    "signature check": (signature, lambda root: git_anyway(root, "log", "-2")),
    "include.path": (include_path, lambda root: git_anyway(root, "log", "-2")),
    "includeIf": (include_if, lambda root: git_anyway(root, "log", "-2")),
}


def run_check(capsys, *options: str) -> tuple[int, str]:
    code = main(["check", "--format", "json", *options])
    return code, capsys.readouterr().out


FRONT_ENDS = {
    "check": (),
    "--since origin/main": ("--since", "origin/main"),
    "--staged": ("--staged",),
    "-j 2 --since origin/main": ("-j", "2", "--since", "origin/main", "--no-cache"),
}


def stale_findings(out: str) -> dict[str, str]:
    """{path: message} of the R408 findings of a JSON report."""
    return {d["path"]: d["message"] for d in json.loads(out)["diagnostics"] if d["code"] == "R408"}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
@pytest.mark.parametrize("attack", ATTACKS)
def test_no_program_named_by_the_checkout_runs(checkout, spy, capsys, attack, front_end):
    install, control = ATTACKS[attack]
    install(checkout, spy)
    code, out = run_check(capsys, *FRONT_ENDS[front_end])
    assert spy.ran() == []
    assert code == 1
    found = stale_findings(out)
    assert set(found) == {"notes/review.md", "notes/logout.md"}
    assert all(HISTORY in message for message in found.values())  # the history is still read
    control(checkout)
    assert spy.ran()  # plain git runs it


def test_a_filter_driver_that_cannot_be_switched_off_stops_the_comparison(checkout, spy, capsys):
    """`-c filter.a=b.clean=` would set the key `filter.a`: a driver named so is refused, unnamed."""
    add_attributes(checkout / ".gitattributes", "*.py filter=a=b\n")
    git(checkout, "config", "filter.a=b.clean", spy.program("clean"))
    assert main(["check", "--since", "origin/main"]) == 2
    assert capsys.readouterr().err == ("citations: error: --since origin/main: the repository's settings name a "
                                       "filter driver that cannot be switched off\n")
    assert spy.ran() == []


def test_pytest_citations_runs_no_program_named_by_the_checkout(checkout, spy, request, monkeypatch):
    """Every attack at once (each spy has a name of its own; each control is above)."""
    for install, _ in ATTACKS.values():
        install(checkout, spy)
    pytester = request.getfixturevalue("pytester")
    monkeypatch.chdir(checkout)
    result = pytester.runpytest_inprocess("--citations", "-p", "no:cacheprovider", f"--rootdir={checkout}",
                                          str(checkout))
    assert spy.ran() == []
    result.assert_outcomes(failed=2)
    assert HISTORY in result.stdout.str()


# -- repositories inside the checkout are never used -----------------------------------------------

def forged_repository(root: Path, spy: Spy, bare: bool = False) -> Path:
    """A repository whose history holds lib.py at LIB_OLD in a commit whose subject says FORGED,
    whose settings name programs, and which knows `origin/main`."""
    work = root.parent / f"{root.name}-work" if bare else root
    work.mkdir(parents=True, exist_ok=True)
    git(work, "init", "-q", "-b", "main")
    write(work, {"lib.py": LIB_OLD})
    commit(work, f"{FORGED} history")
    git(work, "update-ref", "refs/remotes/origin/main", "HEAD")
    write(work, {"lib.py": LIB_NOW})
    commit(work, f"{FORGED} change")
    if bare:
        git(root.parent, "clone", "-q", "--bare", str(work), root.name)
        shutil.rmtree(work)
        git(root, "update-ref", "refs/remotes/origin/main", "HEAD~1")  # a loose ref: refs/ is not empty
        git(root, "config", "core.bare", "false")
        git(root, "config", "core.worktree", ".")
    git(root, "config", "core.fsmonitor", spy.program(f"fsmonitor-{root.name}"))
    return root


def nested_root(folder: Path) -> None:
    """Settings of its own that ask for history even below the top, and a code tuple citing
    lib.py at its old version."""
    write(folder, {"pyproject.toml": '[tool.citations.kinds.code-tuples]\ngit-history = "enclosing"\n',
                   "lib.py": LIB_NOW, "notes.md": f"The flag starts at one [lib.py@{content_hash(LIB_OLD)}, L1].\n"})


def embedded_bare_repository(checkout: Path, spy: Spy) -> Path:
    """vendor/pkg: HEAD, config, objects/ and refs/ committed as ordinary files, with settings of
    its own."""
    folder = forged_repository(checkout / "vendor" / "pkg", spy, bare=True)
    nested_root(folder)
    git(checkout, "add", "vendor")
    git(checkout, "commit", "-q", "-m", "Vendor a package", "--", "vendor")  # what is staged stays staged
    return folder


def nested_root_with_its_own_git(checkout: Path, spy: Spy) -> Path:
    folder = forged_repository(checkout / "nested", spy)
    nested_root(folder)
    return folder


def git_file_pointing_outside(checkout: Path, spy: Spy) -> Path:
    """linked/.git is a file naming the git folder of a repository outside the checkout."""
    outside = forged_repository(checkout.parent / "elsewhere", spy)
    folder = checkout / "linked"
    nested_root(folder)
    write(folder, {".git": f"gitdir: {outside / '.git'}\n"})
    return folder


PLANTED = {
    "an embedded bare-looking repository": embedded_bare_repository,
    "a nested root with its own .git": nested_root_with_its_own_git,
    "a .git file pointing outside": git_file_pointing_outside,
}


# how the STALE message of the nested root's tuple ends: the checkout's own history was searched
# (git-history = "enclosing"), or none, as the root lies in another repository
PLANTED_ENDINGS = {
    "an embedded bare-looking repository": "; no version of the file in its git history has this hash; not fixed",
    "a nested root with its own .git": f"; no git history to compare: {git_history.NESTED_ROOT}; not fixed",
    "a .git file pointing outside": f"; no git history to compare: {git_history.NESTED_ROOT}; not fixed",
}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
@pytest.mark.parametrize("planted", PLANTED)
def test_a_repository_inside_the_checkout_is_never_used(checkout, spy, capsys, planted, front_end):
    folder = PLANTED[planted](checkout, spy)
    prefix = f"{folder.relative_to(checkout).as_posix()}/"
    code, out = run_check(capsys, *FRONT_ENDS[front_end])
    assert spy.ran() == []
    assert code == 1 and FORGED not in out
    nested = {path: message for path, message in stale_findings(out).items() if path.startswith(prefix)}
    if planted != "an embedded bare-looking repository" or front_end != "--staged":  # (nothing staged touches it)
        assert list(nested) == [f"{prefix}notes.md"]  # a root in a nested repository: every file of it is checked
        assert nested[f"{prefix}notes.md"].endswith(PLANTED_ENDINGS[planted])


@pytest.mark.parametrize("planted", PLANTED)
def test_pytest_citations_never_uses_a_repository_inside_the_checkout(checkout, spy, request, monkeypatch, planted):
    folder = PLANTED[planted](checkout, spy)
    pytester = request.getfixturevalue("pytester")
    monkeypatch.chdir(checkout)
    result = pytester.runpytest_inprocess("--citations", "-p", "no:cacheprovider", f"--rootdir={checkout}",
                                          str(checkout))
    assert spy.ran() == []
    output = result.stdout.str()
    assert FORGED not in output and f"{folder.name}/notes.md" in output
    result.assert_outcomes(failed=3)


def test_run_from_outside_the_checkout_a_repository_inside_it_is_still_never_used(checkout, spy, capsys, tmp_path,
                                                                                   monkeypatch):
    nested_root_with_its_own_git(checkout, spy)
    monkeypatch.chdir(tmp_path)
    code, out = run_check(capsys, str(checkout), "--since", "origin/main")
    assert spy.ran() == [] and code == 1 and FORGED not in out
    assert "no git history to compare" in stale_findings(out)["nested/notes.md"]


def test_a_partial_clone_fetches_no_missing_version(tmp_path, spy, capsys, monkeypatch):
    """A partial clone fetches a missing object from its promisor remote when a command needs it,
    through whatever transport the remote's URL names (``ext::`` runs a program) and the
    repository's settings allow: the earlier version of a cited file is such an object."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    write(source, {"pyproject.toml": "[tool.citations]\n", "lib.py": LIB_OLD})
    commit(source, "First flag")
    write(source, {"lib.py": LIB_NOW, "notes.md": f"[lib.py@{content_hash(LIB_OLD)}, L1]\n"})
    commit(source, "Second flag")
    git(source, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", "--no-local", f"file://{source}", str(clone))
    git(clone, "config", "remote.origin.url", f"ext::{spy.program('transport')} %S")
    git(clone, "config", "protocol.ext.allow", "always")
    monkeypatch.chdir(clone)
    code, out = run_check(capsys, "--no-cache")
    assert spy.ran() == []
    assert code == 1 and HISTORY not in stale_findings(out)["notes.md"]
    git_anyway(clone, "cat-file", "-p", git(clone, "rev-parse", "HEAD~1:lib.py"))
    assert spy.ran()  # plain git fetches it


def test_the_changes_of_a_root_without_settings_inside_a_nested_repository_are_a_usage_error(tmp_path, capsys,
                                                                                               monkeypatch):
    top = tmp_path / "top"
    (top / "clone").mkdir(parents=True)
    for folder in (top, top / "clone"):
        git(folder, "init", "-q", "-b", "main")
    write(top, {"clone/notes.md": f"[lib.py@{content_hash(LIB_OLD)}, L1]\n", "clone/lib.py": LIB_NOW})
    git(top, "commit", "-q", "--allow-empty", "-m", "start")
    monkeypatch.chdir(top)
    assert main(["check", "clone", "--since", "HEAD"]) == 2
    assert capsys.readouterr().err == (
        "citations: error: --since HEAD: clone/.git makes a repository of its own inside the checkout, whose changes "
        "are not listed\n")


@pytest.fixture
def logged_git(tmp_path, monkeypatch) -> Path:
    """A folder where every git command the checker runs leaves a file (named by its process id)
    holding its folder and arguments, each ended by NUL: a `git` found first on PATH writes them."""
    real = shutil.which("git")
    folder, log = tmp_path / "bin", tmp_path / "git-commands"
    folder.mkdir()
    log.mkdir()
    (folder / "git").write_text(f'#!/bin/sh\nprintf "%s\\0" "$PWD" "$@" > {shlex.quote(str(log))}/$$\n'
                                f'exec {shlex.quote(real)} "$@"\n')
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


def logged_commands(log: Path) -> list[list[str]]:
    return [path.read_text().split("\0")[:-1] for path in log.iterdir()]


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_git_is_run_only_on_the_top_of_the_checkout(checkout, spy, capsys, logged_git, front_end):
    embedded_bare_repository(checkout, spy)
    nested_root_with_its_own_git(checkout, spy)
    run_check(capsys, *FRONT_ENDS[front_end])
    commands = logged_commands(logged_git)
    assert commands
    for folder, *arguments in commands:
        assert folder == str(checkout)
        assert "-C" not in arguments
        assert f"--git-dir={checkout / '.git'}" in arguments and f"--work-tree={checkout}" in arguments


# -- a .git file at the top: a worktree or submodule of yours, or a pointer to anything --------------

def outside_repository(top: Path, spy: Spy) -> Path:
    """The git folder of a repository outside the checkout, which knows nothing of it."""
    return forged_repository(top.parent / "outside", spy) / ".git"


def repository_in_the_work_tree(top: Path, spy: Spy) -> Path:
    """A bare-looking repository inside the checkout whose records name the checkout back, as a
    submodule's and a linked worktree's git folder would (its settings and files are the
    checkout's own, so they prove nothing)."""
    folder = forged_repository(top / "vendor" / "pkg", spy, bare=True)
    git(folder, "config", "core.worktree", str(top))
    write(folder, {"gitdir": f"{top / '.git'}\n", "commondir": ".\n"})
    return folder


@pytest.mark.parametrize("target", [outside_repository, repository_in_the_work_tree])
def test_a_git_file_at_the_top_is_followed_only_to_a_git_folder_that_names_it_back(tmp_path, spy, capsys, monkeypatch,
                                                                                   target):
    top = tmp_path / "unpacked"
    top.mkdir()
    write(top, {".git": f"gitdir: {target(top, spy)}\n", "pyproject.toml": "[tool.citations]\n", "lib.py": LIB_NOW,
                "notes.md": f"[lib.py@{content_hash(LIB_OLD)}, L1]\n"})
    monkeypatch.chdir(top)
    code, out = run_check(capsys)
    assert code == 1 and FORGED not in out
    ending = f"; no git history to compare: {git_history.NOT_NAMED_BACK}; not fixed"
    assert stale_findings(out)["notes.md"].endswith(ending)
    assert main(["check", "--since", "origin/main"]) == 2
    assert git_history.NOT_NAMED_BACK in capsys.readouterr().err
    assert spy.ran() == []


def test_a_linked_worktree_reads_its_history(checkout, capsys, monkeypatch):
    git(checkout, "commit", "-q", "-m", "Staged work")
    worktree = checkout.parent / "worktree"
    git(checkout, "worktree", "add", "-q", str(worktree))
    monkeypatch.chdir(worktree)
    code, out = run_check(capsys)
    assert code == 1 and all(HISTORY in message for message in stale_findings(out).values())
    code, out = run_check(capsys, "--since", "origin/main")
    assert code == 1 and set(stale_findings(out)) == {"notes/review.md", "notes/logout.md"}


def test_a_submodule_run_from_its_own_top_reads_its_history(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    library = tmp_path / "library"
    library.mkdir()
    git(library, "init", "-q", "-b", "main")
    write(library, {"pyproject.toml": "[tool.citations]\n", "lib.py": LIB_OLD})
    commit(library, "First flag")
    write(library, {"lib.py": LIB_NOW, "notes.md": f"[lib.py@{content_hash(LIB_OLD)}, L1]\n"})
    commit(library, "Second flag")
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    git(project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "library")
    monkeypatch.chdir(project / "library")
    code, out = run_check(capsys)
    assert code == 1
    assert '(2026-01-05, "First flag"), until commit' in stale_findings(out)["notes.md"]
