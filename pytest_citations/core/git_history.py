"""Look up earlier versions of a file in git history, for the STALE message and fix of code tuples,
and list the paths changed since a revision or staged for the next commit (``--since``, ``--staged``).

The checkout and everything in it are untrusted (docs/security.md), its ``.git`` folder included.
So git is asked about one repository only, the checkout's own (:func:`checkout_of`), named on every
command line (``--git-dir``, ``--work-tree``) and run from the top of its work tree: git never
searches for a repository, so a folder of the checkout that holds a ``.git`` of its own, or only
looks like a repository (``HEAD``, ``config``, ``objects/``, ``refs/`` committed as ordinary files,
which git would take for a bare repository), is never used. Every command line is built by
:func:`_command`, which switches off each program the repository's settings (and the files they
include), attributes or hooks can name; the work tree's changes are compared with the filter
drivers the settings name switched off too.

Each lookup has a bounded number of commits (at most :data:`MAX_COMMITS`, whatever the settings
say) and a time budget, and a run reads at most :data:`RUN_HISTORY_BYTES` of earlier versions in
all: a few hundred KB of ``.git`` can hold gigabytes of history (versions a byte apart are stored
as deltas). Each version is hashed as it streams from git, a chunk at a time, and only its hash is
kept; :meth:`History.data` reads the bytes of the one a message needs again. File history never
raises: when git is absent, there is no checkout, the cited file lies in a nested repository, git
fails or takes too long, the answer is a :class:`History` whose ``versions`` is ``None`` and whose
``reason`` says why in plain words. The bytes compared are the committed blobs (no checkout
filters), so a repository that converts line ends on checkout may not find a match for a hash
taken from the converted file.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pytest_citations.run import budget as run_budget
from pytest_citations.run import dependencies

DEFAULT_MAX_COMMITS = 200
MAX_COMMITS = 10_000  # commits of a file's history searched at most (git-max-commits comes with the checkout)
DEFAULT_TIMEOUT = 5.0
RUN_HISTORY_BYTES = 256 << 20  # bytes of earlier versions one run reads from git in all
EARLIER_BYTES = 256 << 20  # bytes of the versions before a change (--since, --staged) one call reads at most
_MAX_BLOB_BYTES = 16 * 1024 * 1024  # a larger version is not read: it has no hash
_SUBJECT_COLUMNS = 200  # a commit's subject is read truncated to so many columns (git truncates it)
_CHUNK = 1 << 20  # bytes of a version hashed at a time
NO_CHECKOUT = "no git checkout at the repository root"
NESTED_ROOT = "the repository root lies in a repository nested in the checkout, whose history is not searched"
NOT_NAMED_BACK = "the .git file at the top of the checkout names a git folder that does not name this work tree back"


def content_hash(data: bytes) -> str:
    """The code-tuple ``content_hash``: the first 16 hex digits of sha256 over the raw bytes."""
    import hashlib

    return hashlib.sha256(data).hexdigest()[:16]


@dataclass(frozen=True)
class Version:
    """The file as one commit wrote it (newest first in :attr:`History.versions`): its hash, not its
    bytes (:meth:`History.data` reads them again)."""

    commit: str
    date: str  # YYYY-MM-DD of the commit (committer date, UTC)
    subject: str
    hash: str | None  # content_hash of the blob; None for one over _MAX_BLOB_BYTES, which is not read
    blob: str  # the blob's object id
    size: int

    @property
    def short(self) -> str:
        return self.commit[:7]


@dataclass(frozen=True)
class History:
    versions: tuple[Version, ...] | None
    reason: str = ""  # why versions is None, or why they stop short (the run's bound on history read)
    truncated: bool = False
    checkout: Checkout | None = None  # where the versions' bytes are read again
    timeout: float = DEFAULT_TIMEOUT

    def find(self, wanted: str) -> tuple[Version, Version | None] | None:
        """The newest version with hash ``wanted`` and the version that replaced it (None if none)."""
        if not self.versions:
            return None
        for index, version in enumerate(self.versions):
            if version.hash == wanted:
                return version, (self.versions[index - 1] if index else None)
        return None

    def data(self, version: Version) -> tuple[bytes | None, str]:
        """(the bytes of ``version``, ""), read from git again; (None, why) when they cannot be."""
        if self.checkout is None or version.hash is None:
            return None, "git keeps no such version"
        return _version_data(self.checkout, version, self.timeout)


# -- the one repository git is run on -----------------------------------------------------------------

@dataclass(frozen=True)
class Checkout:
    """The checkout git is run on: the top of its work tree and its git folder."""

    top: Path
    git_dir: Path

    def prefix(self, folder: Path) -> str:
        """``folder`` (the top or a folder below it) as a path prefix from the top: "" or "a/b/"."""
        return "" if folder == self.top else f"{folder.relative_to(self.top).as_posix()}/"

    def nested(self, folder: Path) -> Path | None:
        """The outermost folder below the top, down to ``folder``, that holds a ``.git`` of its
        own: a repository nested in the checkout, which git does not see into and which is never
        used; None when ``folder`` lies in the checkout's own repository."""
        for depth in range(len(self.top.parts) + 1, len(folder.parts) + 1):
            candidate = Path(*folder.parts[:depth])
            if os.path.lexists(candidate / ".git"):
                return candidate
        return None


def checkout_of(root: Path, timeout: float = DEFAULT_TIMEOUT) -> tuple[Checkout | None, str]:
    """The checkout whose repository git is asked about for ``root``, or None and why.

    It is the checkout the checker runs in: the nearest folder at or above the current folder that
    holds a ``.git``, as git would find it, when ``root`` lies in it. Run from elsewhere, it is the
    outermost folder at or above ``root`` that holds a ``.git``, so that a folder below it holding
    one of its own is never taken for the checkout. A ``.git`` folder is used as it is; a ``.git``
    file (a linked worktree, a submodule) only when the git folder it names lies outside the work
    tree and names it back, as git records its own worktrees and submodules: a ``.git`` file that
    points at another repository is not followed."""
    if _git_missing():
        return None, "git is not installed"
    root = Path(root).resolve()
    top = _nearest_git(_current_folder())
    if top is None or not root.is_relative_to(top):
        top = _outermost_git(root)
    if top is None:
        return None, NO_CHECKOUT
    try:
        return _checkout_at(top, _Budget(timeout))
    except TimeoutError:
        dependencies.note_run_limit()  # (the machine's load, not the files, decided it)
        return None, f"git did not answer within {timeout:g} s"


def _current_folder() -> Path | None:
    try:
        return Path(os.getcwd())
    except OSError:  # the folder was deleted
        return None


def _nearest_git(folder: Path | None) -> Path | None:
    """The nearest folder at or above ``folder`` that holds a ``.git``."""
    if folder is None:
        return None
    return next((candidate for candidate in (folder, *folder.parents) if os.path.lexists(candidate / ".git")), None)


def _outermost_git(folder: Path) -> Path | None:
    """The outermost folder at or above ``folder`` that holds a ``.git``."""
    found = [candidate for candidate in (folder, *folder.parents) if os.path.lexists(candidate / ".git")]
    return found[-1] if found else None


def _checkout_at(top: Path, budget: _Budget) -> tuple[Checkout | None, str]:
    entry = top / ".git"
    try:
        info = os.lstat(entry)
    except OSError:
        return None, NO_CHECKOUT
    if stat.S_ISDIR(info.st_mode):
        return Checkout(top, entry), ""
    if not stat.S_ISREG(info.st_mode):
        return None, "the .git at the top of the checkout is neither a folder nor a file"
    key = (top, info.st_ino, info.st_mtime_ns, info.st_size)
    if key not in _LINKED:
        _LINKED[key] = _linked_checkout(top, budget)
    return _LINKED[key]


# (top, inode, mtime, size of its .git file) -> what _linked_checkout found, once per process
_LINKED: dict[tuple, tuple[Checkout | None, str]] = {}


def _linked_checkout(top: Path, budget: _Budget) -> tuple[Checkout | None, str]:
    """The checkout at ``top`` whose ``.git`` is a file naming its git folder: used when that
    folder lies outside the work tree and names ``top`` back, as the ``core.worktree`` of a
    submodule's git folder does, or as the records of a repository's linked worktrees do."""
    named = _git_at(top / ".git", ["rev-parse", "--absolute-git-dir", "--show-toplevel"], budget)
    lines = named.decode("utf-8", "surrogateescape").splitlines() if named else []
    if len(lines) != 2:
        return None, NOT_NAMED_BACK
    git_dir, work_tree = Path(lines[0]).resolve(), Path(lines[1]).resolve()  # the work tree: core.worktree, or "/"
    if git_dir.is_relative_to(top):
        return None, NOT_NAMED_BACK
    if work_tree == top:
        return Checkout(top, git_dir), ""
    listed = _git_at(git_dir, ["worktree", "list", "--porcelain"], budget)
    worktrees = listed.decode("utf-8", "surrogateescape").splitlines() if listed else []
    if any(line.startswith("worktree ") and Path(line[len("worktree "):]).resolve() == top for line in worktrees):
        return Checkout(top, git_dir), ""
    return None, NOT_NAMED_BACK


# -- every git command line ----------------------------------------------------------------------------

# Given on every command line, so they outrank the repository's settings and every file those
# include: no program the checkout names runs, and git's memory is not the checkout's to set.
_PROGRAMS_OFF = (
    "--no-pager",  # core.pager, pager.<command>
    "-c", "core.fsmonitor=",  # an fsmonitor hook, run when the index is read (empty is off in every git version)
    "-c", "core.useBuiltinFSMonitor=false",  # the fsmonitor daemon of Git for Windows
    "-c", f"core.hooksPath={os.devnull}",  # hooks: no command below runs one, and none would be found
    "-c", "log.showSignature=false",  # `git log` would run gpg.program on every signed commit
    "-c", "submodule.recurse=false",  # a submodule is a repository of its own, with settings of its own
    "-c", "core.quotepath=off",  # paths in the output as they are
    "-c", "color.ui=false",  # output read as plain text
    "-c", "core.deltaBaseCacheLimit=96m",  # git's memory for the versions its deltas are made from: its default
)
# Options of the commands that compare contents: no external diff (diff.external, diff.<driver>.command),
# no textconv, and no submodule's work tree (its status would run with its own settings).
_DIFF_OPTIONS = ("--no-ext-diff", "--no-textconv", "--ignore-submodules=all")
_COMPARING = ("diff", "log")


def _command(location: list[str], args: list[str], filters: tuple[str, ...] | None = None) -> list[str]:
    """The git command line of ``args`` for the repository at ``location`` (``--git-dir``, and
    ``--work-tree`` when there is one). A diff that reads the work tree hashes the files it finds
    changed, through the filter drivers the attributes select: it must be given the names of
    every driver the settings define (:func:`_filter_drivers`), which are switched off here."""
    command, *rest = args
    if command == "diff" and "--cached" not in rest and filters is None:
        raise ValueError("a diff against the work tree needs the repository's filter drivers")
    switched_off = [part for name in filters or () for part in _filter_off(name)]
    options = _DIFF_OPTIONS if command in _COMPARING else ()
    return ["git", *location, *_PROGRAMS_OFF, *switched_off, command, *options, *rest]


def _filter_off(name: str) -> list[str]:
    """A filter driver without programs: empty commands run nothing, and it is not required."""
    return [part for key in ("clean", "smudge", "process") for part in ("-c", f"filter.{name}.{key}=")] + [
        "-c", f"filter.{name}.required=false"]


def _filter_drivers(settings: bytes) -> tuple[str, ...]:
    """The names of the filter drivers in ``git config --name-only --list -z`` output."""
    names = set()
    for key in settings.decode("utf-8", "surrogateescape").split("\0"):
        section, _, rest = key.partition(".")
        if section.lower() == "filter" and "." in rest:
            names.add(rest.rpartition(".")[0])
    if any("=" in name for name in names):  # `-c filter.a=b.clean=` would set another key
        raise ChangesError("the repository's settings name a filter driver that cannot be switched off")
    return tuple(sorted(names))


def _environment() -> dict[str, str]:
    """This process's environment without git's variables (a hook's GIT_DIR must not move git
    elsewhere), and with no transport allowed: nothing is fetched, whatever the repository's
    ``protocol.<name>.allow`` says (a partial clone would fetch a missing object, through a
    program its settings may name)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update({"LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "GIT_ALLOW_PROTOCOL": "",
                "GIT_NO_LAZY_FETCH": "1"})
    return env


class _Budget:
    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def left(self) -> float:
        return self.deadline - time.monotonic()


def _git_missing() -> bool:
    import shutil

    return shutil.which("git") is None


def _location(checkout: Checkout) -> list[str]:
    return [f"--git-dir={checkout.git_dir}", f"--work-tree={checkout.top}"]


def _git(checkout: Checkout, args: list[str], budget: _Budget, stdin: bytes | None = None,
         environment: dict[str, str] | None = None) -> bytes | None:
    """The output of git ``args`` on ``checkout``, run from its top; None when it fails."""
    return _run(_command(_location(checkout), args), checkout.top, budget, stdin, environment)


def _git_at(git_dir: Path, args: list[str], budget: _Budget) -> bytes | None:
    """The output of git ``args`` on the git folder ``git_dir`` alone (no work tree), run from the
    file system's root, so that git takes the work tree from the folder's own settings if any."""
    return _run(_command([f"--git-dir={git_dir}"], args), Path(os.sep), budget)


def _run(command: list[str], folder: Path, budget: _Budget, stdin: bytes | None = None,
         environment: dict[str, str] | None = None) -> bytes | None:
    # subprocess and shutil are imported when git is run, not with this module, which the
    # code-tuples kind imports at start-up (tests/frontends/test_lazy_imports.py)
    import subprocess

    left = budget.left()
    if left <= 0:
        raise TimeoutError
    try:
        completed = subprocess.run(
            command,
            cwd=folder,
            input=stdin,
            capture_output=True,
            timeout=left,
            env=_environment() if environment is None else environment,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise TimeoutError from None
    except OSError:
        return None
    return completed.stdout if completed.returncode == 0 else None


def _git_at_once(checkout: Checkout, commands: list[list[str]], budget: _Budget,
                 filters: tuple[str, ...] | None = None) -> list[bytes | None]:
    """:func:`_git` of several commands run side by side (each mostly waits on the file system:
    the two listings of ``--since`` each walk the work tree)."""
    import subprocess

    started: list[subprocess.Popen[bytes] | None] = []
    try:
        for args in commands:
            try:
                started.append(subprocess.Popen(_command(_location(checkout), args, filters), cwd=checkout.top,
                                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_environment()))
            except OSError:
                started.append(None)
        return [_output(process, budget) for process in started]
    finally:
        for process in started:
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()


def _output(process, budget: _Budget) -> bytes | None:
    import subprocess

    if process is None:
        return None
    left = budget.left()
    if left <= 0:
        raise TimeoutError
    try:
        out, _ = process.communicate(timeout=left)
    except subprocess.TimeoutExpired:
        raise TimeoutError from None
    return out if process.returncode == 0 else None


def head_commit(root: Path, timeout: float = DEFAULT_TIMEOUT) -> str | None:
    """The commit checked out in the checkout holding ``root``; None outside one."""
    checkout, _ = checkout_of(root, timeout)
    if checkout is None:
        return None
    try:
        out = _git(checkout, ["rev-parse", "--verify", "--quiet", "HEAD"], _Budget(timeout))
    except TimeoutError:
        return None
    return out.decode("ascii", "replace").strip() or None if out else None


# -- what changed ----------------------------------------------------------------------------------------

class ChangesError(Exception):
    """The changes since a revision, or the staged changes, cannot be listed (no git, no work tree,
    unknown revision)."""


@dataclass(frozen=True)
class Changes:
    """What differs from a revision (its merge base with HEAD), or what the staged changes
    touch (against HEAD): that commit, and the paths that differ."""

    base: str  # the commit (the merge base, HEAD) or tree the paths differ from
    paths: set[str]  # relative to the root they were asked for
    # when the root lies in a repository nested in the checkout, whose changes git is not asked
    # for: why (``paths`` is then empty, and unknown)
    unlisted: str = ""


def _checkout_for_changes(root: Path, timeout: float) -> tuple[Checkout, Path]:
    """The checkout holding ``root`` and the root resolved; ChangesError when there is none."""
    checkout, why = checkout_of(root, timeout)
    if checkout is None:
        raise ChangesError(why)
    return checkout, Path(root).resolve()


def _unlisted(checkout: Checkout, root: Path) -> str:
    """Why the changes of ``root`` are not listed, when it lies in a nested repository; "" when
    they are."""
    nested = checkout.nested(root)
    if nested is None:
        return ""
    return (f"{checkout.prefix(nested)}.git makes a repository of its own inside the checkout, whose changes "
            "are not listed")


def _pathspec(prefix: str) -> list[str]:
    """The pathspec of a root's folder (a prefix from the top), none for the top itself."""
    return [f":(literal){prefix.rstrip('/')}"] if prefix else []


def _below(prefix: str, listing: bytes) -> set[str]:
    """The NUL-separated paths of ``listing`` (from the top) below ``prefix``, relative to it."""
    names = listing.decode("utf-8", "surrogateescape").split("\0")
    return {name[len(prefix):] for name in names if name.startswith(prefix) and name != prefix}


_SETTINGS = ["config", "-z", "--name-only", "--list"]  # the names of every setting (for _filter_drivers)


def changes_since(root: Path, revision: str, timeout: float = DEFAULT_TIMEOUT) -> Changes:
    """Paths below ``root`` (relative to it) that differ between the merge base of ``revision``
    and HEAD and the work tree, committed or not, deleted ones included, plus untracked files."""
    checkout, root = _checkout_for_changes(root, timeout)
    budget = _Budget(timeout)
    try:
        base, settings = _git_at_once(checkout, [["merge-base", revision, "HEAD"], _SETTINGS], budget)
        if base is None:
            raise ChangesError(f"no common ancestor of {revision!r} and HEAD (is it a revision of this repository?)")
        commit = base.decode().strip()
        unlisted = _unlisted(checkout, root)
        if unlisted:
            return Changes(commit, set(), unlisted)
        if settings is None:
            raise ChangesError("git could not read the repository's settings")
        prefix = checkout.prefix(root)
        diff, untracked = _git_at_once(checkout, [
            ["diff", "--name-only", "-z", "--no-renames", commit, "--", *_pathspec(prefix)],
            ["ls-files", "-z", "--others", "--exclude-standard", "--", *_pathspec(prefix)],
        ], budget, _filter_drivers(settings))
    except TimeoutError:
        raise ChangesError(f"git did not answer within {timeout:g} s") from None
    if diff is None or untracked is None:
        raise ChangesError("git could not list the changes")
    return Changes(commit, _below(prefix, diff + untracked))


def staged_changes(root: Path, timeout: float = DEFAULT_TIMEOUT) -> Changes:
    """Paths below ``root`` (relative to it) that the staged changes touch, as the next commit
    would record them: added, modified and deleted files, and both sides of a rename (listed as a
    deletion and an addition, so the old name is never lost to rename detection). ``base`` is the
    HEAD commit, or the empty tree before the first commit.

    The index is the one ``git commit`` names in ``GIT_INDEX_FILE`` when it lies in this
    repository's git folder (``git commit -a`` and ``git commit PATH`` stage into an index of their
    own before running the pre-commit hook), else the repository's index."""
    checkout, root = _checkout_for_changes(root, timeout)
    budget = _Budget(timeout)
    try:
        base = _head_or_empty_tree(checkout, budget)
        unlisted = _unlisted(checkout, root)
        if unlisted:
            return Changes(base, set(), unlisted)
        prefix = checkout.prefix(root)
        listing = ["diff", "--cached", "--name-only", "-z", "--no-renames", base, "--", *_pathspec(prefix)]
        diff = _git(checkout, listing, budget, environment=_index_environment(checkout))
    except TimeoutError:
        raise ChangesError(f"git did not answer within {timeout:g} s") from None
    if diff is None:
        raise ChangesError("git could not list the staged changes")
    return Changes(base, _below(prefix, diff))


def _head_or_empty_tree(checkout: Checkout, budget: _Budget) -> str:
    """The HEAD commit of the checkout; before the first commit, the empty tree, which holds no
    earlier version of any file."""
    head = _git(checkout, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], budget)
    if not head:
        head = _git(checkout, ["hash-object", "-t", "tree", "--stdin"], budget, stdin=b"")
    if not head:
        raise ChangesError("git could not tell the commit checked out")
    return head.decode("ascii", "replace").strip()


def _index_environment(checkout: Checkout) -> dict[str, str]:
    """:func:`_environment`, with the ``GIT_INDEX_FILE`` this process was given when it names an
    index in the checkout's git folder (a relative one is relative to the top of the work tree,
    as git reads it); an index of another repository is left out."""
    env = _environment()
    named = os.environ.get("GIT_INDEX_FILE")
    if named:
        index = Path(os.path.abspath(checkout.top / named))
        if index.parent.resolve() == checkout.git_dir.resolve():
            env["GIT_INDEX_FILE"] = str(index)
    return env


def files_at(root: Path, commit: str, rels: list[str], max_size: int, timeout: float = DEFAULT_TIMEOUT) -> dict[str, bytes | None]:
    """{rel: its bytes as ``commit`` holds it, None when it holds no such file} for ``rels``
    (relative to ``root``): their sizes from one ``git cat-file --batch-check``, then the bytes of
    those of at most ``max_size`` bytes, up to :data:`EARLIER_BYTES` in all, from one ``git
    cat-file --batch``. A path git cannot tell of is left out: no git, no checkout, a timeout, a
    folder, a name with a line break (the batch's separator), a version larger than the limits (a
    commit of the checkout may hold a file of any size)."""
    asked = [rel for rel in rels if "\n" not in rel and "\r" not in rel]
    if not asked:
        return {}
    checkout, _ = checkout_of(root, timeout)
    if checkout is None:
        return {}
    prefix = checkout.prefix(Path(root).resolve())
    budget = _Budget(timeout)

    def batch(option: str, names: list[str]) -> bytes | None:
        lines = "".join(f"{commit}:{prefix}{rel}\n" for rel in names).encode("utf-8", "surrogateescape")
        try:
            return _git(checkout, ["cat-file", option], budget, stdin=lines)
        except TimeoutError:
            return None

    sizes = batch("--batch-check", asked)
    if sizes is None:
        return {}
    found: dict[str, bytes | None] = {}
    wanted, total = [], 0
    for rel, line in zip(asked, sizes.splitlines(), strict=False):  # "<sha> <type> <size>", or "<name> missing"
        header = line.split(b" ")
        if header[-1] == b"missing":
            found[rel] = None
        elif len(header) == 3 and header[1] == b"blob" and header[2].isdigit():
            size = int(header[2])
            if size <= max_size and total + size <= EARLIER_BYTES:
                wanted.append(rel)
                total += size
    out = batch("--batch", wanted) if wanted else b""
    if out is None:
        return found
    at = 0
    try:
        for rel in wanted:  # "<sha> blob <size>\n<bytes>\n" each
            end = out.index(b"\n", at)
            header, at = out[at:end].split(b" "), end + 1
            size = int(header[-1])
            if header[-2] == b"blob":
                found[rel] = out[at : at + size]
            at += size + 1
    except (ValueError, IndexError):  # output of another shape: what was read so far stands
        pass
    return found


# -- a file's history ------------------------------------------------------------------------------------

def file_history(
    root: Path,
    rel: str,
    *,
    max_commits: int = DEFAULT_MAX_COMMITS,
    timeout: float = DEFAULT_TIMEOUT,
    enclosing: bool = False,
) -> History:
    """The committed versions of ``rel`` (a repo-relative path of a file inside ``root``), from
    the checkout's own repository (:func:`checkout_of`).

    With ``enclosing`` false, git is used only when ``root`` is the top of the checkout, so a
    repository kept inside another one (a fixture, a vendored project) never reads the outer
    history. A root or a cited file inside a repository nested in the checkout is never looked
    up. Never raises.
    """
    try:
        return _file_history(Path(root).resolve(), rel, max_commits, timeout, enclosing)
    except TimeoutError:
        dependencies.note_run_limit()  # (the machine's load, not the files, decided it)
        return History(None, f"git history search stopped after {timeout:g} s")
    except Exception as exc:  # a git oddity must never break a check
        return History(None, f"git history unavailable ({type(exc).__name__})")


def _why_log_failed(checkout: Checkout, budget: _Budget) -> str:
    """Why ``git log`` gave nothing, in plain words: most often a repository before its first
    commit, where git has no history to show."""
    if not _git(checkout, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], budget):
        return "the repository has no commits yet"
    return "git log failed"


def _file_history(root: Path, rel: str, max_commits: int, timeout: float, enclosing: bool) -> History:
    if "\n" in rel or "\r" in rel:
        return History(None, "the path cannot be looked up in git")
    checkout, why = checkout_of(root, timeout)
    if checkout is None:
        return History(None, why)
    path = root / rel
    nested = checkout.nested(path.parent)
    if nested is not None and root.is_relative_to(nested):
        return History(None, NESTED_ROOT)
    if checkout.top != root and not enclosing:
        return History(None, NO_CHECKOUT)  # the same words as no checkout at all: the output must not depend on
        # whether a copy of the repository happens to sit inside another checkout
    if nested is not None:
        return History(None, f"{rel} lies in the nested repository {nested.relative_to(root).as_posix()}/, whose "
                             "history is not searched")
    allowance = _history_allowance()
    if allowance.spent:
        return History(None, _bound_reached())
    budget = _Budget(timeout)
    max_commits = max(0, min(max_commits, MAX_COMMITS))
    log = _git(
        checkout,
        ["log", f"--max-count={max_commits}", f"--format=%x01%H %ct %<({_SUBJECT_COLUMNS},trunc)%s", "--raw",
         "--no-abbrev", "--no-renames", "--", f":(literal){path.relative_to(checkout.top).as_posix()}"],
        budget,
    )
    if log is None:
        return History(None, _why_log_failed(checkout, budget))
    entries = _log_entries(log)
    truncated = log.count(b"\x01") >= max_commits
    if not entries:
        return History((), f"{rel} has no committed version", truncated)
    sizes = _blob_sizes(checkout, list(dict.fromkeys(blob for *_, blob in entries)), budget)
    if sizes is None:
        return History(None, "git cat-file failed")
    kept, cut_short = _within(entries, sizes, allowance.left)
    wanted = list(dict.fromkeys(blob for *_, blob in kept if sizes[blob] <= _MAX_BLOB_BYTES))
    hashes = _hashes(checkout, wanted, budget)
    if hashes is None:
        return History(None, "git cat-file failed")
    allowance.spend(sum(sizes[blob] for blob in wanted))
    versions = tuple(Version(commit, date, subject, hashes.get(blob), blob, sizes[blob])
                     for commit, date, subject, blob in kept)
    return History(versions, _bound_reached() if cut_short else "", truncated or cut_short, checkout, timeout)


def _log_entries(log: bytes) -> list[tuple[str, str, str, str]]:
    """(commit, date, subject, blob) of each commit of ``git log --raw`` output that has the file
    (not those that deleted it), newest first."""
    entries: list[tuple[str, str, str, str]] = []
    for block in log.split(b"\x01")[1:]:
        lines = block.decode("utf-8", "replace").split("\n")
        commit, _, rest = lines[0].partition(" ")
        stamp, _, subject = rest.partition(" ")
        blob = None
        for line in lines[1:]:
            if line.startswith(":") and "\t" in line:
                meta, _, _name = line.partition("\t")
                fields = meta.split()
                if len(fields) >= 4 and fields[3] and set(fields[3]) != {"0"}:
                    blob = fields[3]
        if blob is None:
            continue  # the commit deleted the file
        try:
            date = time.strftime("%Y-%m-%d", time.gmtime(int(stamp)))
        except ValueError:
            date = "?"
        entries.append((commit, date, subject.rstrip(), blob))  # (git pads a short subject with spaces)
    return entries


def _history_allowance() -> run_budget.Allowance:
    """The bytes of earlier versions this run may still read (see :data:`RUN_HISTORY_BYTES`)."""
    return run_budget.allowance("git-history bytes", RUN_HISTORY_BYTES)


def _bound_reached() -> str:
    dependencies.note_run_limit()
    return f"this run read the {RUN_HISTORY_BYTES / (1 << 20):g} MiB of git history it allows"


def _blob_sizes(checkout: Checkout, blobs: list[str], budget: _Budget) -> dict[str, int] | None:
    """{blob: its size} of the blobs git holds (a partial clone may lack some), from one
    ``git cat-file --batch-check``; None when git fails."""
    out = _git(checkout, ["cat-file", "--batch-check"], budget, stdin="".join(f"{blob}\n" for blob in blobs).encode())
    if out is None:
        return None
    sizes = {}
    for line in out.decode("ascii", "replace").splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == "blob" and fields[2].isdigit():
            sizes[fields[0]] = int(fields[2])
    return sizes


def _within(entries: list[tuple[str, str, str, str]], sizes: dict[str, int],
            left: int | float) -> tuple[list[tuple[str, str, str, str]], bool]:
    """The entries whose blobs git holds, newest first, up to the first whose reading would take
    more than ``left`` bytes in all (each blob counted once; one too large to be read costs
    nothing), and whether that cut them short."""
    kept: list[tuple[str, str, str, str]] = []
    counted: set[str] = set()
    for entry in entries:
        blob = entry[3]
        size = sizes.get(blob)
        if size is None:
            continue
        if blob not in counted and size <= _MAX_BLOB_BYTES:
            if size > left:
                return kept, True
            left -= size
            counted.add(blob)
        kept.append(entry)
    return kept, False


def _hashes(checkout: Checkout, blobs: list[str], budget: _Budget) -> dict[str, str] | None:
    """{blob: content_hash} of ``blobs``, asked of one ``git cat-file --batch`` a blob at a time
    and hashed as they stream, a chunk at a time: the memory of one chunk, whatever the blobs' sizes.
    None when git fails; TimeoutError past the budget (git is then stopped)."""
    if not blobs:
        return {}
    import subprocess
    import threading

    left = budget.left()
    if left <= 0:
        raise TimeoutError
    try:
        process = subprocess.Popen(_command(_location(checkout), ["cat-file", "--batch"]), cwd=checkout.top,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env=_environment())
    except OSError:
        return None
    requests, answers = process.stdin, process.stdout
    assert requests is not None and answers is not None  # (both are pipes)
    timer = threading.Timer(left, process.kill)
    timer.start()
    try:
        hashes = {}
        for blob in blobs:
            found = _hash_next(requests, answers, blob)
            if found is not None:
                hashes[blob] = found
        return hashes
    except (OSError, ValueError):  # git stopped (the timer, a failure) or wrote something else
        if budget.left() <= 0:
            raise TimeoutError from None
        return None
    finally:
        timer.cancel()
        if process.poll() is None:
            process.kill()
        process.wait()
        requests.close()
        answers.close()


def _hash_next(requests: IO[bytes], answers: IO[bytes], blob: str) -> str | None:
    """The content_hash of ``blob``, asked of a running ``git cat-file --batch`` (its input
    ``requests``, its output ``answers``) and read a chunk at a time; None when git does not hold
    it as a blob."""
    import hashlib

    requests.write(f"{blob}\n".encode("ascii"))
    requests.flush()
    header = answers.readline(256).split()  # "<id> <type> <size>", or "<id> missing"
    if len(header) == 2 and header[1] == b"missing":
        return None
    if len(header) != 3:
        raise ValueError("git cat-file wrote something else")
    digest = hashlib.sha256()
    remaining = int(header[2])
    while remaining:
        chunk = answers.read(min(_CHUNK, remaining))
        if not chunk:
            raise OSError("git cat-file stopped")
        digest.update(chunk)
        remaining -= len(chunk)
    answers.read(1)  # the line end after the content
    return digest.hexdigest()[:16] if header[1] == b"blob" else None


# The bytes read last by History.data, by (git folder, blob): a message on each of many tuples that
# cite one version reads it once, and no more than one version is kept.
_LAST_READ: dict[tuple[str, str], bytes] = {}


def _version_data(checkout: Checkout, version: Version, timeout: float) -> tuple[bytes | None, str]:
    key = (str(checkout.git_dir), version.blob)
    if key in _LAST_READ:
        return _LAST_READ[key], ""
    allowance = _history_allowance()
    if version.size > allowance.left:
        return None, _bound_reached()
    try:
        data = _git(checkout, ["cat-file", "blob", version.blob], _Budget(timeout))
    except TimeoutError:
        dependencies.note_run_limit()  # (the machine's load, not the files, decided it)
        return None, f"git did not answer within {timeout:g} s"
    if data is None or content_hash(data) != version.hash:
        return None, "git did not give the version it hashed"
    allowance.spend(len(data))
    _LAST_READ.clear()
    _LAST_READ[key] = data
    return data, ""
