"""Look up earlier versions of a file in git history, for the STALE message and fix of code tuples,
and list the paths changed since a revision or staged for the next commit (``--since``, ``--staged``).

Everything goes through the ``git`` command line, run with ``-C root``, with a bounded number of
commits and a time budget. Nothing here raises: when git is absent, the root is not the top of a
git work tree, the cited file lies in a nested repository, git fails or takes too long, the answer
is a :class:`History` whose ``versions`` is ``None`` and whose ``reason`` says why in plain words.

The bytes compared are the committed blobs (no checkout filters), so a repository that converts
line ends on checkout may not find a match for a hash taken from the converted file.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX_COMMITS = 200
DEFAULT_TIMEOUT = 5.0
_MAX_BLOB_BYTES = 16 * 1024 * 1024
NO_CHECKOUT = "no git checkout at the repository root"


def content_hash(data: bytes) -> str:
    """The code-tuple ``content_hash``: the first 16 hex digits of sha256 over the raw bytes."""
    import hashlib

    return hashlib.sha256(data).hexdigest()[:16]


@dataclass(frozen=True)
class Version:
    """The file as one commit wrote it (newest first in :attr:`History.versions`)."""

    commit: str
    date: str  # YYYY-MM-DD of the commit (committer date, UTC)
    subject: str
    hash: str  # content_hash of the blob
    data: bytes

    @property
    def short(self) -> str:
        return self.commit[:7]


@dataclass(frozen=True)
class History:
    versions: tuple[Version, ...] | None
    reason: str = ""  # why versions is None, or a note such as "searched the last 200 commits"
    truncated: bool = False

    def find(self, wanted: str) -> tuple[Version, Version | None] | None:
        """The newest version with hash ``wanted`` and the version that replaced it (None if none)."""
        if not self.versions:
            return None
        for index, version in enumerate(self.versions):
            if version.hash == wanted:
                return version, (self.versions[index - 1] if index else None)
        return None


def _environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update({"LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"})
    return env


class _Budget:
    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def left(self) -> float:
        return self.deadline - time.monotonic()


def _git_missing() -> bool:
    import shutil

    return shutil.which("git") is None


def _git(root: Path, args: list[str], budget: _Budget, stdin: bytes | None = None,
         environment: dict[str, str] | None = None) -> bytes | None:
    # subprocess and shutil are imported when git is run, not with this module, which the
    # code-tuples kind imports at start-up (tests/test_lazy_imports.py)
    import subprocess

    left = budget.left()
    if left <= 0:
        raise TimeoutError
    try:
        completed = subprocess.run(
            _command(root, args),
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


def _command(root: Path, args: list[str]) -> list[str]:
    """git with ``args`` in ``root``, paths in its output unquoted."""
    return ["git", "-C", str(root), "-c", "core.quotepath=off", *args]


def _git_at_once(root: Path, commands: list[list[str]], budget: _Budget) -> list[bytes | None]:
    """:func:`_git` of several commands run side by side (each mostly waits on the file system:
    the two listings of ``--since`` each walk the work tree)."""
    import subprocess

    started = []
    try:
        for args in commands:
            try:
                started.append(subprocess.Popen(_command(root, args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                                env=_environment()))
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


def _nested_repository(root: Path, rel: str) -> str | None:
    """The folder (repo-relative) of a repository nested under ``root`` that holds ``rel``."""
    parts = rel.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        folder = "/".join(parts[:depth])
        if (root / folder / ".git").exists():
            return folder
    return None


def work_tree_root(root: Path, timeout: float = DEFAULT_TIMEOUT) -> tuple[Path | None, str]:
    """The top folder of the git work tree holding ``root``, or None and why."""
    if _git_missing():
        return None, "git is not installed"
    try:
        out = _git(root, ["rev-parse", "--show-toplevel"], _Budget(timeout))
    except TimeoutError:
        return None, f"git did not answer within {timeout:g} s"
    if out is None:
        return None, NO_CHECKOUT
    top = out.decode("utf-8", "replace").strip()
    return (Path(top).resolve(), "") if top else (None, NO_CHECKOUT)


def head_commit(root: Path, timeout: float = DEFAULT_TIMEOUT) -> str | None:
    """The commit checked out in the work tree holding ``root``; None outside one."""
    if _git_missing():
        return None
    try:
        out = _git(root, ["rev-parse", "--verify", "--quiet", "HEAD"], _Budget(timeout))
    except TimeoutError:
        return None
    return out.decode("ascii", "replace").strip() or None if out else None


class ChangesError(Exception):
    """The changes since a revision, or the staged changes, cannot be listed (no git, no work tree,
    unknown revision)."""


@dataclass(frozen=True)
class Changes:
    """What differs from a revision (its merge base with HEAD), or what the staged changes
    touch (against HEAD): that commit, and the paths that differ."""

    base: str  # the commit (the merge base, HEAD) or tree the paths differ from
    paths: set[str]  # relative to the root they were asked for


def changes_since(root: Path, revision: str, timeout: float = DEFAULT_TIMEOUT) -> Changes:
    """Paths below ``root`` (relative to it) that differ between the merge base of ``revision``
    and HEAD and the work tree, committed or not, deleted ones included, plus untracked files."""
    if _git_missing():
        raise ChangesError("git is not installed")
    budget = _Budget(timeout)
    try:
        base = _git(root, ["merge-base", revision, "HEAD"], budget)
        if base is None:
            raise ChangesError(f"no common ancestor of {revision!r} and HEAD (is it a revision of this repository?)")
        commit = base.decode().strip()
        diff, untracked = _git_at_once(root, [
            ["diff", "--name-only", "-z", "--no-renames", "--relative", commit, "--"],
            ["ls-files", "-z", "--others", "--exclude-standard"],
        ], budget)
    except TimeoutError:
        raise ChangesError(f"git did not answer within {timeout:g} s") from None
    if diff is None or untracked is None:
        raise ChangesError("git could not list the changes")
    names = (diff + untracked).decode("utf-8", "surrogateescape").split("\0")
    return Changes(commit, {name for name in names if name})


# Global options that keep git from running a program the repository's own config names: a
# pager, an fsmonitor hook (run when the index is read), an external diff. The repository under
# check is not trusted to choose what runs on the machine that checks it.
_NO_PROGRAMS = ["--no-pager", "-c", "core.fsmonitor=false", "-c", "diff.external="]
# The diff options to the same end: no external diff, no textconv driver, no colour codes.
_PLAIN_DIFF = ["--no-ext-diff", "--no-textconv", "--no-color"]


def staged_changes(root: Path, timeout: float = DEFAULT_TIMEOUT) -> Changes:
    """Paths below ``root`` (relative to it) that the staged changes touch, as the next commit
    would record them: added, modified and deleted files, and both sides of a rename (listed as a
    deletion and an addition, so the old name is never lost to rename detection). ``base`` is the
    HEAD commit, or the empty tree before the first commit.

    The index is the one ``git commit`` names in ``GIT_INDEX_FILE`` when it lies in this
    repository's git folder (``git commit -a`` and ``git commit PATH`` stage into an index of their
    own before running the pre-commit hook), else the repository's index."""
    if _git_missing():
        raise ChangesError("git is not installed")
    budget = _Budget(timeout)
    try:
        located = _git(root, [*_NO_PROGRAMS, "rev-parse", "--show-toplevel", "--absolute-git-dir"], budget)
        folders = located.decode("utf-8", "surrogateescape").splitlines() if located else []
        if len(folders) != 2:
            raise ChangesError(NO_CHECKOUT)
        top, git_folder = Path(folders[0]), Path(folders[1])
        base = _head_or_empty_tree(top, budget)
        listing = ["diff", "--cached", "--name-only", "-z", "--no-renames", *_PLAIN_DIFF, base, "--"]
        diff = _git(top, [*_NO_PROGRAMS, *listing], budget, environment=_index_environment(top, git_folder))
    except TimeoutError:
        raise ChangesError(f"git did not answer within {timeout:g} s") from None
    if diff is None:
        raise ChangesError("git could not list the staged changes")
    folder, top = Path(root).resolve(), top.resolve()
    if not folder.is_relative_to(top):
        raise ChangesError(NO_CHECKOUT)
    prefix = "" if folder == top else f"{folder.relative_to(top).as_posix()}/"
    names = diff.decode("utf-8", "surrogateescape").split("\0")
    return Changes(base, {name[len(prefix):] for name in names if name.startswith(prefix) and name != prefix})


def _head_or_empty_tree(top: Path, budget: _Budget) -> str:
    """The HEAD commit of the work tree at ``top``; before the first commit, the empty tree, which
    holds no earlier version of any file."""
    head = _git(top, [*_NO_PROGRAMS, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"], budget)
    if not head:
        head = _git(top, [*_NO_PROGRAMS, "hash-object", "-t", "tree", "--stdin"], budget, stdin=b"")
    if not head:
        raise ChangesError("git could not tell the commit checked out")
    return head.decode("ascii", "replace").strip()


def _index_environment(top: Path, git_folder: Path) -> dict[str, str]:
    """:func:`_environment`, with the ``GIT_INDEX_FILE`` this process was given when it names an
    index in ``git_folder`` (a relative one is relative to the top of the work tree, as git
    reads it); an index of another repository, such as the outer one of a nested root, is left
    out."""
    env = _environment()
    named = os.environ.get("GIT_INDEX_FILE")
    if named:
        index = Path(os.path.abspath(top / named))
        if index.parent.resolve() == git_folder.resolve():
            env["GIT_INDEX_FILE"] = str(index)
    return env


def files_at(root: Path, commit: str, rels: list[str], timeout: float = DEFAULT_TIMEOUT) -> dict[str, bytes | None]:
    """{rel: its bytes as ``commit`` holds it, None when it holds no such file} for ``rels``
    (relative to ``root``), from one ``git cat-file --batch``. A path git cannot tell of is left
    out: no git, a timeout, a folder, a name with a line break (the batch's separator)."""
    asked = [rel for rel in rels if "\n" not in rel and "\r" not in rel]
    if not asked or _git_missing():
        return {}
    lines = "".join(f"{commit}:./{rel}\n" for rel in asked).encode("utf-8", "surrogateescape")
    try:
        out = _git(root, ["cat-file", "--batch"], _Budget(timeout), stdin=lines)
    except TimeoutError:
        return {}
    if out is None:
        return {}
    found: dict[str, bytes | None] = {}
    at = 0
    try:
        for rel in asked:  # "<sha> <type> <size>\n<bytes>\n" each, or "<name> missing\n"
            end = out.index(b"\n", at)
            header, at = out[at:end].split(b" "), end + 1
            if header[-1] == b"missing":
                found[rel] = None
                continue
            size = int(header[-1])
            if header[-2] == b"blob":
                found[rel] = out[at : at + size]
            at += size + 1
    except (ValueError, IndexError):  # output of another shape: what was read so far stands
        pass
    return found


def file_history(
    root: Path,
    rel: str,
    *,
    max_commits: int = DEFAULT_MAX_COMMITS,
    timeout: float = DEFAULT_TIMEOUT,
    enclosing: bool = False,
) -> History:
    """The committed versions of ``rel`` (a repo-relative path of a file inside ``root``).

    With ``enclosing`` false, git is used only when ``root`` is the top of its work tree, so a
    repository kept inside another one (a fixture, a vendored project) never reads the outer
    history. Never raises.
    """
    try:
        return _file_history(Path(root).resolve(), rel, max_commits, timeout, enclosing)
    except TimeoutError:
        return History(None, f"git history search stopped after {timeout:g} s")
    except Exception as exc:  # a git oddity must never break a check
        return History(None, f"git history unavailable ({type(exc).__name__})")


def _file_history(root: Path, rel: str, max_commits: int, timeout: float, enclosing: bool) -> History:
    if "\n" in rel or "\r" in rel:
        return History(None, "the path cannot be looked up in git")
    top, why = work_tree_root(root, timeout)
    if top is None:
        return History(None, why)
    if top != root and not (enclosing and root.is_relative_to(top)):
        return History(None, NO_CHECKOUT)  # the same words as no checkout at all: the output must not depend on
        # whether a copy of the repository happens to sit inside another checkout
    nested = _nested_repository(root, rel)
    if nested is not None:
        return History(None, f"{rel} lies in the nested repository {nested}/, whose history is not searched")
    budget = _Budget(timeout)
    path = (root / rel).relative_to(top).as_posix()
    log = _git(
        top,
        ["log", f"--max-count={max_commits}", "--format=%x01%H %ct %s", "--raw", "--no-abbrev", "--no-renames",
         "--", f":(literal){path}"],
        budget,
    )
    if log is None:
        return History(None, "git log failed")
    entries: list[tuple[str, str, str, str]] = []  # commit, date, subject, blob
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
        entries.append((commit, date, subject, blob))
    truncated = log.count(b"\x01") >= max_commits
    if not entries:
        return History((), f"{rel} has no committed version", truncated)
    request = "".join(f"{blob}\n" for *_, blob in entries).encode()
    out = _git(top, ["cat-file", "--batch"], budget, stdin=request)
    if out is None:
        return History(None, "git cat-file failed")
    contents: dict[str, bytes] = {}
    position = 0
    for *_, blob in entries:
        header_end = out.index(b"\n", position)
        header = out[position:header_end].split()
        if len(header) != 3 or header[1] != b"blob":
            position = header_end + 1
            continue
        size = int(header[2])
        start = header_end + 1
        contents[blob] = out[start : start + size] if size <= _MAX_BLOB_BYTES else b""
        position = start + size + 1
    versions = tuple(
        Version(commit, date, subject, content_hash(contents[blob]), contents[blob])
        for commit, date, subject, blob in entries
        if blob in contents
    )
    return History(versions, "", truncated)
