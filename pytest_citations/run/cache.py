"""The result cache: a file's diagnostics, reused while nothing they depend on has changed.

An entry is keyed by the sha256 of the artifact and of every path its check resolved (see
:mod:`pytest_citations.run.dependencies`), the digests of the run-wide indexes it consulted, and the
kinds that claimed the file; the cache file as a whole belongs to one tool version and one
effective configuration (:func:`settings_key`). Re-hashing is avoided by a stat fast path: a file
whose :func:`stat_signature` (size, mtime_ns, ctime_ns, inode) is the one recorded with its hash is
taken to hold the same bytes. mtime alone is never trusted (a CI checkout resets it, and anyone can
put an old one back); ctime is set by the system alone. A file modified within :data:`RACY_SECONDS`
of being hashed never takes the fast path (a same-tick edit could hide).

The cache is a JSON document written atomically, the *base*, followed by *deltas*: a run that
changed a few entries (a one-file edit re-checks the few files that cite it) writes only those, in
a small document of their own, rather than the whole base again; deltas are read after the base,
oldest first, and folded into a new base once they hold more than :data:`DELTA_SHARE` of the
entries or number :data:`MAX_DELTAS`. Every entry stands on its own (a result is keyed by the
current hashes of what it read), so a lost or out-of-date delta costs re-checks, never a wrong
answer. A document that is unreadable, corrupt or written by another version or configuration is
ignored, never trusted. Entries unseen for :data:`PRUNE_DAYS` days are dropped when a base is
written.

The cache folder usually lies in the checkout, which a stranger's pull request writes: so every
document read back from it (base, deltas, records of runs) is believed only when it carries an
HMAC-SHA256 made with this user's key (:func:`document_key`), kept outside the checkout; one that
does not is ignored like a damaged one. Documents are opened as regular files only (no symlink,
FIFO or device, within :data:`MAX_DOCUMENT_SIZE`) and streamed through their code before they are
held in memory (a forged one costs the time to read it, never its size in memory), the folder is
used only when no symlink inside the repository leads to it (:func:`confined_folder`), and pruning
deletes only documents that authenticate (this user's runs wrote them).

A result is stored only when every file its check read was, when read, the file its key's hash
was taken of: :mod:`pytest_citations.core.sources` notes each read with the file's stat signature, and
hashing notes it before and after. A file that changed between the two (an edit while the run
reads) keys nothing, and the run is not recorded (see :mod:`pytest_citations.run.replay`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import hashlib
import hmac
import io
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

from pytest_citations import __version__
from pytest_citations.core import sources
from pytest_citations.core.diagnostics import Diagnostic, Edit, Fix, Severity
from pytest_citations.run import dependencies
from pytest_citations.run.dependencies import stat_signature
from pytest_citations.run.fix import replace_atomically

FORMAT = 4
TABLES = ("files", "results", "indexes")
PRUNE_DAYS = 30
DELTA_SHARE = 1 / 8  # the share of the entries that deltas may hold before a new base is written
MAX_DELTAS = 16
RACY_SECONDS = 2.0
DEFAULT_FOLDER = ".citations_cache"
KEY_FILE_VARIABLE = "CITATIONS_CACHE_KEY_FILE"  # names the key file (CI jobs that restore one)
KEY_FOLDER = "pytest-citations"  # in $XDG_CACHE_HOME, else ~/.cache
MIN_KEY_SIZE, MAX_KEY_SIZE = 32, 4096
MAX_DOCUMENT_SIZE = 1 << 30
_HASH_CHUNK = 1 << 20
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# A regular file is opened so: never through a symlink, never waiting on a FIFO's writer.
_OPEN_REGULAR = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
# A document is JSON whose first member is its code: {"mac":"<64 hex digits>", then its own members.
_MAC_OPEN, _MAC_CLOSE = b'{"mac":"', b'",'
_MAC_END = len(_MAC_OPEN) + 64
_MAC_DOMAIN = b"pytest-citations cache document\0"
_OUR_DOCUMENT = re.compile(r"(results|delta|run)-[^/]*\.json\Z")  # the names the checker writes
_MARKS = {
    ".gitignore": b"# created by pytest-citations\n*\n",
    "CACHEDIR.TAG": b"Signature: 8a477f597d28d172789f06886806bc55\n"
                    b"# This file is a cache directory tag created by pytest-citations.\n",
}


# A fingerprint is a sha256 hex digest, or one of these for a path that holds no readable file.
ABSENT, NOT_A_FILE, UNRESOLVABLE = "absent", "not-a-file", "unresolvable"


def settings_key(config, registry, kinds, root_from_cache: str = "") -> str:
    """The digest of everything besides file contents that decides a result: the tool's
    version and code, the effective settings, the rules and kinds installed, and where the root
    lies relative to the cache folder (not where the repository lies on disk)."""
    where = ("root", "source", "cache_dir")
    settings = {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.name not in where}
    rules = sorted((item.code, item.kind or "", item.severity.value) for item in registry.declared())
    return dependencies.digest((FORMAT, __version__, code_identity(PACKAGE), root_from_cache, settings, rules,
                                [k.name for k in kinds]))


PACKAGE = Path(__file__).resolve().parent.parent
_CODE_SUFFIXES = (".py", ".json", ".sql")  # what the package's checks are made of


@functools.cache
def code_identity(folder: Path) -> str:
    """The digest of the name, size and modification time of every file of the package's code:
    results computed by other code (an upgrade keeps the version number until a release, a pin
    moved to another commit, an editable install edited) are never taken for this code's. A stat
    per file, no read: a few hundred microseconds."""
    found = []
    pending = [str(folder)]
    start = len(pending[0]) + 1
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        pending.append(entry.path)
                elif entry.name.endswith(_CODE_SUFFIXES):
                    info = entry.stat(follow_symlinks=False)
                    found.append((entry.path[start:], info.st_size, info.st_mtime_ns))
    return dependencies.digest(sorted(found))


def _today() -> int:
    return int(time.time() // 86400)


def diagnostic_to_json(d: Diagnostic) -> list:
    fix = None if d.fix is None else [d.fix.description, [[e.start, e.end, e.text] for e in d.fix.edits]]
    row = [d.code, d.name, d.severity.value, d.message, d.path, d.line, d.col, fix, d.context]
    # then where the context's window starts in its line, and the identity, when they are not the defaults
    if d.identity is not None:
        return [*row, d.context_start, d.identity]
    return [*row, d.context_start] if d.context_start else row


def diagnostic_from_json(row: list) -> Diagnostic:
    code, name, severity, message, path, line, col, fix, context, *rest = row
    context_start = rest[0] if rest else 0
    identity = rest[1] if len(rest) > 1 else None
    if fix is not None:
        fix = Fix(fix[0], tuple(Edit(*edit) for edit in fix[1]))
    return Diagnostic(code, name, Severity(severity), message, path, line, col, fix, context, context_start, identity)


class ResultCache:
    """One cache file: the files table (stat and hash, plus per-file memos) and the results.

    Without a folder it lives in memory only (``--since`` with ``--no-cache`` still needs to
    learn what each file depends on); so does it when the folder cannot be used safely or no key
    authenticates its documents (:func:`usable_folder`)."""

    def __init__(self, folder: Path | None, root: Path, key: str) -> None:
        self.folder = None if folder is None else usable_folder(folder, root)
        self.root = root
        self.key = key
        self.path = self.folder / f"results-{key[:24]}.json" if self.folder is not None else None
        self._has_base = False  # whether a base of this cache was read (else the next write is one)
        self._deltas: list[Path] = []  # the deltas read after the base, oldest first
        self._delta_entries = 0  # how many entries they hold
        self._unsaved: dict[str, set[str]] = {table: set() for table in TABLES}
        self.files: dict[str, dict[str, Any]] = {}  # rel -> {"stat": [...]|None, "sha": str, "memo": {...}}
        # rel -> {"kinds", "paths" (sorted), "digest" (of their fingerprints), "indexes", "diagnostics", "seen"}
        self.results: dict[str, dict[str, Any]] = {}
        # index name -> {"files": digest of its files' names and fingerprints, "digest": of its value}
        self.indexes: dict[str, dict[str, Any]] = {}
        self.dirty = False
        self.written: dict[str, set[str]] = {table: set() for table in TABLES}  # by this process
        self.hits = 0
        self.misses = 0
        # whether this process cannot vouch for a signature: it hashed a file in its racy window,
        # or saw a file change while it ran (a record of the run would then lie)
        self.racy = False
        self._fingerprints: dict[str, str] = {}  # this run's, computed once per path
        self._signatures: dict[str, list[int]] = {}  # rel -> the stat signature its fingerprint stands for
        self._unsettled: set[str] = set()  # rels seen with two signatures in this run
        self._root_prefix = str(root).rstrip(os.sep) + os.sep
        self._digest_pieces: dict[str, bytes] = {}  # path -> its part of paths_digest's text
        self._today = _today()
        self._load()

    # -- the file on disk ----------------------------------------------------------------------

    def _load(self) -> None:
        if self.path is None:
            return
        with kept_for_the_run():
            self._read_base_and_deltas()

    def _read_base_and_deltas(self) -> None:
        path, folder = cast(Path, self.path), cast(Path, self.folder)  # _load returns first without them
        self._has_base = self._take(read_document(path)) > 0
        try:
            deltas = sorted(folder.glob(f"delta-{self.key[:24]}-*.json"))
        except OSError:
            return
        for delta in deltas:
            data = read_document(delta)
            if data is not None:  # (one that does not authenticate is no delta of ours: never deleted)
                self._deltas.append(delta)
                self._delta_entries += self._take(data)

    def _take(self, data: Any) -> int:
        """Add the entries of a base or delta document; how many (none from a document that is
        not this cache's, and none of a shape other than expected)."""
        if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("key") == self.key):
            return 0
        files, results, indexes = data.get("files"), data.get("results"), data.get("indexes", {})
        if not (isinstance(files, dict) and isinstance(results, dict) and isinstance(indexes, dict)):
            return 0
        files = {rel: entry for rel, entry in files.items() if _is_entry(entry, "sha", str)}
        results = {rel: entry for rel, entry in results.items() if _is_entry(entry, "paths", list)}
        indexes = {name: entry for name, entry in indexes.items() if _is_entry(entry, "files", str)}
        self.files.update(files)
        self.results.update(results)
        self.indexes.update(indexes)
        return len(files) + len(results) + len(indexes)

    def save(self) -> None:
        """Write what changed, as a delta or as a new base (see the module's docstring). A cache
        that cannot be written is not an error: the next run is only slower."""
        if not self.dirty or self.folder is None:
            return
        try:
            prepare_folder(self.folder)
            if self._fits_a_delta():
                self._write_delta()
            else:
                self._write_base()
        except OSError:
            return
        self.dirty = False
        self._unsaved = {table: set() for table in TABLES}
        prune_folder(self.folder, self._today)

    def _fits_a_delta(self) -> bool:
        changed = sum(len(self._unsaved[table]) for table in TABLES)
        total = sum(len(getattr(self, table)) for table in TABLES)
        return (self._has_base and len(self._deltas) < MAX_DELTAS
                and self._delta_entries + changed <= total * DELTA_SHARE)

    def _write_delta(self) -> None:
        tables = self._entries(self._unsaved)
        # Named by the time it was written, so that deltas are read oldest first. (Only ``save``
        # calls it, with a folder.)
        path = cast(Path, self.folder) / f"delta-{self.key[:24]}-{time.time_ns():020d}-{os.getpid()}.json"
        self._write(path, tables)
        self._deltas.append(path)
        self._delta_entries += sum(len(entries) for entries in tables.values())

    def _entries(self, names: dict[str, set[str]]) -> dict[str, dict[str, Any]]:
        """The entries named in ``names`` (table -> names), table by table."""
        return {table: {name: getattr(self, table)[name] for name in names[table] if name in getattr(self, table)}
                for table in TABLES}

    def _write_base(self) -> None:
        """Prune, write every entry as the new base, and delete the deltas it now holds."""
        oldest = self._today - PRUNE_DAYS
        self.results = {rel: entry for rel, entry in self.results.items() if _seen_day(entry) >= oldest}
        self.files = {rel: entry for rel, entry in self.files.items() if _seen_day(entry) >= oldest}
        # (only ``save`` calls it, with a folder and so a path)
        self._write(cast(Path, self.path), {"files": self.files, "results": self.results, "indexes": self.indexes})
        for delta in self._deltas:
            with contextlib.suppress(OSError):  # another run may have folded it already
                delta.unlink()
        self._deltas, self._delta_entries, self._has_base = [], 0, True

    def _write(self, path: Path, tables: dict[str, dict[str, Any]]) -> None:
        write_document(path, {"format": FORMAT, "key": self.key, **tables})

    def _changed(self, table: str, rel: str) -> None:
        """Note an entry written in this process: for the file on disk, and for the process
        that writes it (see :meth:`take_changes`)."""
        self.written[table].add(rel)
        self._unsaved[table].add(rel)
        self.dirty = True

    def take_changes(self) -> dict[str, Any]:
        """The entries written (and the hits and misses counted) since the last call, for the
        process that writes the cache file (the ``-j`` parent, the xdist controller)."""
        changes = {"key": self.key, **self._entries(self.written), "hits": self.hits, "misses": self.misses,
                   "racy": self.racy}
        self.written = {table: set() for table in TABLES}
        self.hits = self.misses = 0
        return changes

    def absorb(self, changes: dict[str, Any]) -> None:
        """Take the entries (and counts) another process sent with :meth:`take_changes`."""
        if changes.get("key") != self.key:
            return
        for table in TABLES:
            entries = changes.get(table, {})
            getattr(self, table).update(entries)
            self._unsaved[table].update(entries)
        self.hits += changes.get("hits", 0)
        self.misses += changes.get("misses", 0)
        self.racy = self.racy or bool(changes.get("racy"))
        self.dirty = True

    # -- fingerprints --------------------------------------------------------------------------

    def fingerprint(self, rel: str) -> str:
        """The sha256 of the file at ``rel`` now (or what stands in its place), once per run."""
        found = self._fingerprints.get(rel)
        if found is None:
            found = self._fingerprints[rel] = self._fingerprint(rel)
        return found

    def _fingerprint(self, rel: str) -> str:
        try:
            path, info = sources.stat_inside(self.root, rel)
        except sources.SourceError:
            return UNRESOLVABLE
        except FileNotFoundError:
            return ABSENT
        except OSError:
            return UNRESOLVABLE
        if not stat.S_ISREG(info.st_mode):
            return NOT_A_FILE
        signature = stat_signature(info)
        entry = self.files.get(rel)
        if entry is not None and entry.get("stat") == signature:
            if entry.get("seen") != self._today:
                self._seen("files", rel, entry)
            self._signatures[rel] = signature
            return entry["sha"]
        try:
            sha, held_still = _sha256(path, signature)
        except OSError:
            return UNRESOLVABLE
        self._signatures[rel] = signature
        if not held_still:
            self._unsettle(rel)
        racy = not held_still or time.time_ns() - info.st_mtime_ns < RACY_SECONDS * 1e9
        self.racy = self.racy or racy
        recorded = {"stat": None if racy else signature, "sha": sha, "seen": self._today}
        if entry is None or entry.get("sha") != sha:
            entry = self.files[rel] = {"memo": {}}
        elif all(entry.get(field) == value for field, value in recorded.items()):
            return sha  # hashed again in its racy window, and found the same: nothing to write
        entry.update(recorded)
        self._changed("files", rel)
        return sha

    def _seen(self, table: str, rel: str, entry: dict[str, Any]) -> None:
        """Mark an entry used today: once a day, so that an unchanged cache is not rewritten
        (callers test ``entry["seen"]`` first, which costs less than this call on every hit)."""
        entry["seen"] = self._today
        self._changed(table, rel)  # an xdist worker's hits must reach the controller too

    def _settled(self, recorded: dependencies.Recorder) -> bool:
        """Whether every file of the root that ``recorded`` saw read had, when read, the signature
        its fingerprint in this run stands for: else it changed between the read and the hashing,
        and what was read is not what the hash says (the file is unsettled for the rest of the run)."""
        prefix, signatures = self._root_prefix, self._signatures
        settled = True
        for path, signature in recorded.reads.items():
            if not path.startswith(prefix):
                continue  # outside the root: nothing is read there
            rel = path[len(prefix):] if os.sep == "/" else path[len(prefix):].replace(os.sep, "/")
            known = signatures.get(rel)
            if known is None:
                self.fingerprint(rel)
                known = signatures.get(rel)
            if signature is None or known != signature:
                self._unsettle(rel)
                settled = False
        return settled

    def _held_still(self, rel: str) -> bool:
        """Whether the file at ``rel`` still has the signature its fingerprint stands for (else it
        changed since it was hashed, and what was read from it since may be of other bytes)."""
        try:
            _, info = sources.stat_inside(self.root, rel)
        except (sources.SourceError, OSError):
            info = None
        if info is not None and stat_signature(info) == self._signatures.get(rel):
            return True
        self._unsettle(rel)
        return False

    def _unsettle(self, rel: str) -> None:
        """Note a file seen changing in this run: nothing it keys is kept, and no record is written."""
        self._unsettled.add(rel)
        self.racy = True

    def relative(self, path: str) -> str | None:
        """A recorded absolute path as a root-relative one; None outside the root (never read)."""
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return None

    # -- per-file memos ------------------------------------------------------------------------

    def file_memo(self, name: str, rel: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` (a JSON value derived from the file ``rel`` alone), reused while the
        file's bytes stay the same; kept only when the file held still from its hashing to the
        end of ``compute`` (else the value may be of other bytes than the hash)."""
        sha = self._fingerprints.get(rel) or self.fingerprint(rel)
        entry = self.files.get(rel)
        if entry is None or entry.get("sha") != sha:  # no readable file: nothing to key it by
            return compute()
        memo = entry.get("memo")
        if type(memo) is not dict:
            memo = entry["memo"] = {}
        elif name in memo:
            return memo[name]
        value = compute()
        if rel not in self._unsettled and self._held_still(rel):  # (the file it was computed from was the one hashed)
            memo[name] = value
            self._changed("files", rel)
        return value

    # -- results -------------------------------------------------------------------------------

    def lookup(self, rel: str, kinds: list[str], index_digest: Callable[[str], str]) -> list[Diagnostic] | None:
        entry = self.results.get(rel)
        if entry is None or entry.get("kinds") != kinds:
            self.misses += 1
            return None
        try:
            fresh = self.paths_digest(entry["paths"]) == entry["digest"]
            if fresh:
                for name, value in entry["indexes"].items():
                    if index_digest(name) != value:
                        fresh = False
                        break
            diagnostics = [diagnostic_from_json(row) for row in entry["diagnostics"]] if fresh else None
        except (KeyError, TypeError, ValueError, AttributeError):  # a damaged entry: recheck
            diagnostics = None
        if diagnostics is None:
            self.misses += 1
            return None
        self.hits += 1
        if entry.get("seen") != self._today:
            self._seen("results", rel, entry)
        return diagnostics

    def store(self, rel: str, kinds: list[str], recorded: dependencies.Recorder, index_digest: Callable[[str], str],
              diagnostics: list[Diagnostic]) -> None:
        """Keep the ``diagnostics`` of ``rel``, keyed by what its check ``recorded``; unless a
        file it read changed in this run (its findings may be of other bytes than the key's, or
        of an index built from such), or one of the run's limits decided part of them
        (:func:`dependencies.note_run_limit`): then it is checked again next time."""
        if recorded.run_limited:  # (what the rest of the run spent decided part of it)
            return
        paths = {rel}
        for path in recorded.paths:
            shown = self.relative(path)
            if shown is not None:
                paths.add(shown)
        ordered = sorted(paths)
        digest = self.paths_digest(ordered)
        indexes = {name: index_digest(name) for name in sorted(recorded.indexes)}
        if not self._settled(recorded) or (self._unsettled and (indexes or not self._unsettled.isdisjoint(ordered))):
            return
        self.results[rel] = {
            "kinds": kinds,
            "paths": ordered,
            "digest": digest,
            "indexes": indexes,
            "diagnostics": [diagnostic_to_json(d) for d in diagnostics],
            "seen": self._today,
        }
        self._changed("results", rel)

    def paths_digest(self, paths: list[str]) -> str:
        """One digest of the current fingerprints of ``paths`` (the files table holds each file's
        hash once; a result keeps only this)."""
        pieces = self._digest_pieces
        try:
            joined = b"".join([pieces[path] for path in paths])
        except KeyError:
            joined = b"".join([pieces.get(path) or self._digest_piece(path) for path in paths])
        return hashlib.sha256(joined).hexdigest()

    def _digest_piece(self, path: str) -> bytes:
        """What :meth:`paths_digest` hashes for one path, once per run (every memory citing a
        file hashes the same piece)."""
        # (surrogatepass: a cited path may hold any lone surrogate, a YAML "\ud800" as well as a name
        # that is not UTF-8)
        piece = self._digest_pieces[path] = f"{path}\0{self.fingerprint(path)}\0".encode("utf-8", "surrogatepass")
        return piece

    # -- run-wide indexes ----------------------------------------------------------------------

    def index_digest(self, name: str, files: list[str], compute: Callable[[], str]) -> str:
        """``compute()``, the digest of the run-wide index ``name``, which is built from one share
        per file of ``files``; reused while those files (their paths, order and hashes) stay the
        same, so that a re-run does not build the index to learn that it has not changed."""
        key = self.paths_digest(files)
        entry = self.indexes.get(name)
        if (entry is not None and entry["files"] == key and isinstance(entry.get("digest"), str)
                and self._unsettled.isdisjoint(files)):
            return entry["digest"]
        digest = compute()
        if self._unsettled.isdisjoint(files):  # (else its shares may be of other bytes than the key's)
            self.indexes[name] = {"files": key, "digest": digest}
            self._changed("indexes", name)
        return digest

    def reads_of(self, rel: str) -> tuple[list[str], list[str]] | None:
        """(the root-relative paths, the run-wide indexes) the last check of ``rel`` read; None if unknown."""
        entry = self.results.get(rel)
        if entry is None or not isinstance(entry.get("paths"), list) or not isinstance(entry.get("indexes"), dict):
            return None
        return entry["paths"], list(entry["indexes"])

    def depends_on(self, rel: str, changed: set[str], index_changed: Callable[[str], bool]) -> bool | None:
        """Whether the last check of ``rel`` read one of the ``changed`` paths, or consulted a
        run-wide index for which ``index_changed(name)`` is true; None if unknown, or if what it
        read has changed since (it may read other files now)."""
        reads = self.reads_of(rel)
        if reads is None:
            return None
        paths, indexes = reads
        if self.paths_digest(paths) != self.results[rel].get("digest"):
            return None
        return not changed.isdisjoint(paths) or any(index_changed(name) for name in indexes)

    def trusted_signature(self, rel: str) -> list[int] | None:
        """The :func:`stat_signature` this run trusted for ``rel``, here or in a
        worker; None for a path it found missing. LookupError when it trusted none (the file was
        hashed in its racy window, or is no regular file, or was not looked at)."""
        if self._fingerprints.get(rel) == ABSENT:
            return None
        entry = self.files.get(rel)
        signature = entry.get("stat") if entry is not None else None
        if not (isinstance(signature, list) and len(signature) == 4):
            raise LookupError(rel)
        return signature


# -- documents and their key ---------------------------------------------------------------------


def key_file() -> Path | None:
    """Where this user's key is kept: ``$CITATIONS_CACHE_KEY_FILE``, else ``pytest-citations/key``
    in the user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``); None without a home."""
    named = os.environ.get(KEY_FILE_VARIABLE)
    if named:
        return Path(os.path.abspath(named))
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # unset, or relative (which the XDG specification says to ignore)
        try:
            base = os.path.join(Path.home(), ".cache")
        except (RuntimeError, KeyError):
            return None
    return Path(base, KEY_FOLDER, "key")


def document_key() -> bytes | None:
    """This user's key, made on first use; None when it can be neither read nor made, or is not
    this user's alone (then no cache document is believed or written: every run checks afresh)."""
    path = key_file()
    return None if path is None else _key_at(str(path))


@functools.lru_cache(maxsize=8)
def _key_at(path: str) -> bytes | None:
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        _create_key(path)
    except FileExistsError:  # another run made it meanwhile: its key is the one
        pass
    except OSError:
        return None
    try:
        return _read_key(path)
    except OSError:
        return None


def _read_key(path: str) -> bytes | None:
    """The key in the file at ``path``; None when it is no regular file of this user's that no one
    else may read or write (on Windows, the user's profile folder guards it), or holds too few or
    too many bytes."""
    with open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)), "rb") as stream:
        info = os.fstat(stream.fileno())
        private = os.name != "posix" or (info.st_uid == os.getuid() and info.st_mode & 0o077 == 0)
        if not (stat.S_ISREG(info.st_mode) and private):
            return None
        key = stream.read(MAX_KEY_SIZE + 1)
    return key if MIN_KEY_SIZE <= len(key) <= MAX_KEY_SIZE else None


def _create_key(path: str) -> None:
    """Make a random key at ``path``, readable by this user alone, whole or not at all: written to
    a temporary file and linked into place, which fails if another run made one first."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".key.", suffix=".tmp")  # mode 0600
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(os.urandom(32).hex().encode("ascii") + b"\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.link(temporary, path)
    finally:
        os.unlink(temporary)


def _mac(key: bytes, name: str, tail: memoryview | bytes) -> bytes:
    """The code of the document called ``name`` whose JSON text is ``{`` followed by ``tail``."""
    code = _code_of(key, name)
    code.update(tail)
    return code.hexdigest().encode("ascii")


def _code_of(key: bytes, name: str) -> hmac.HMAC:
    """The code of the document called ``name``, before the text after its ``{`` is fed to it."""
    return hmac.new(key, _MAC_DOMAIN + name.encode("utf-8", "surrogateescape") + b"\0{", "sha256")


def write_document(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` atomically at ``path`` (see :func:`sealed`)."""
    replace_atomically(path, sealed(path.name, data), 0o644, durable=False)


def sealed(name: str, data: dict[str, Any]) -> bytes:
    """The text of the document ``data`` (a non-empty JSON object) to be called ``name``: its
    JSON, led by an authentication code made with this user's key over its name and text;
    OSError when there is no key."""
    key = document_key()
    if key is None:
        raise OSError("no key to authenticate cache documents with")
    text = json.dumps(data, separators=(",", ":")).encode("utf-8", "surrogateescape")
    tail = memoryview(text)[1:]
    return b"".join((_MAC_OPEN, _mac(key, name, tail), _MAC_CLOSE, tail))


def read_document(path: Path, limit: int = MAX_DOCUMENT_SIZE) -> Any:
    """The document at ``path``; None unless it is a regular file of at most ``limit`` bytes that
    this user's key authenticates and that parses."""
    raw = _authenticated(path, limit)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    data.pop("mac", None)  # (a JSON object: it starts with its code)
    return data


def _authenticated(path: Path, limit: int) -> bytes | None:
    """The bytes at ``path`` when they are a document authenticated with this user's key.

    A document is held in memory only once its code is found right: the file is first streamed
    through the code a chunk at a time, so a forged one (a pull request may commit a file of a
    name the checker reads, up to the size cap) costs the time to read it and no memory. The
    bytes then read to be parsed are authenticated again, so that what is parsed is what was
    authenticated."""
    key = document_key()
    opened = None if key is None else _open_regular(path, limit)
    if key is None or opened is None:
        return None
    stream, size = opened
    with stream:
        if not _streams_authentic(stream, size, key, path.name):
            return None
        stream.seek(0)
        raw = _read_whole(stream, size)
    return raw if raw is not None and _is_authentic(raw, key, path.name) else None


def _authenticates(path: Path) -> bool:
    """Whether the file at ``path`` is a document authenticated with this user's key (streamed
    through its code, never held)."""
    key = document_key()
    opened = None if key is None else _open_regular(path, MAX_DOCUMENT_SIZE)
    if key is None or opened is None:
        return False
    stream, size = opened
    with stream:
        return _streams_authentic(stream, size, key, path.name)


def _is_authentic(raw: bytes, key: bytes, name: str) -> bool:
    """Whether ``raw``, the text of the document called ``name``, carries the code ``key`` makes."""
    if not (raw.startswith(_MAC_OPEN) and raw[_MAC_END:_MAC_END + 2] == _MAC_CLOSE):
        return False
    return hmac.compare_digest(raw[len(_MAC_OPEN):_MAC_END], _mac(key, name, memoryview(raw)[_MAC_END + 2:]))


def _streams_authentic(stream: io.BufferedReader, size: int, key: bytes, name: str) -> bool:
    """:func:`_is_authentic` of the ``size`` bytes ``stream`` holds from where it stands, read in
    chunks of :data:`_HASH_CHUNK` into one buffer; false when it holds more (it grew)."""
    try:
        head = stream.read(_MAC_END + 2)
        if not (head.startswith(_MAC_OPEN) and head[_MAC_END:] == _MAC_CLOSE):
            return False
        code = _code_of(key, name)
        buffer = bytearray(_HASH_CHUNK)
        chunk = memoryview(buffer)
        seen = len(head)
        while count := stream.readinto(buffer):
            seen += count
            if seen > size:
                return False
            code.update(chunk[:count])
    except OSError:
        return False
    return hmac.compare_digest(head[len(_MAC_OPEN):_MAC_END], code.hexdigest().encode("ascii"))


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of the regular file at ``path`` when it holds at most ``limit``; None for anything
    else (a symlink, a FIFO, a device, a folder, a larger file, a file that grows while read)."""
    opened = _open_regular(path, limit)
    if opened is None:
        return None
    stream, size = opened
    with stream:
        return _read_whole(stream, size)


def _open_regular(path: Path, limit: int) -> tuple[io.BufferedReader, int] | None:
    """(``path`` opened to be read, its size) when it is a regular file of at most ``limit``
    bytes, opened so (never through a symlink, never waiting on a FIFO's writer); None for
    anything else."""
    try:
        handle = os.open(path, _OPEN_REGULAR)
    except (OSError, ValueError):
        return None
    stream = open(handle, "rb")
    info = os.fstat(handle)
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        stream.close()
        return None
    return stream, info.st_size


def _read_whole(stream: io.BufferedReader, size: int) -> bytes | None:
    """The rest of ``stream``, which holds ``size`` bytes; None when it holds more (it grew) or
    cannot be read."""
    try:
        data = stream.read(size + 1)
    except OSError:
        return None
    return data if len(data) <= size else None


@contextlib.contextmanager
def kept_for_the_run() -> Iterator[None]:
    """Make objects that live as long as the run (a large repository's cache holds hundreds of
    thousands of containers) out of the garbage collector's reach: it is paused while they are
    made, and they then go to its permanent generation (``gc.freeze``). Otherwise collections set
    off while they are built, and every collection of older generations after, would walk them
    again; that cost a re-run of 10k unchanged memories a tenth of its time."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


def _is_entry(entry: Any, field: str, kind: type) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get(field), kind)


def _seen_day(entry: dict[str, Any]) -> int:
    seen = entry.get("seen")
    return seen if isinstance(seen, int) and not isinstance(seen, bool) else 0


def _sha256(path: str, signature: list[int]) -> tuple[str, bool]:
    """(the sha256 of the regular file at ``path``, whether it held still: its stat signature was
    ``signature`` before and after it was hashed)."""
    digest = hashlib.sha256()
    with open(os.open(path, _OPEN_REGULAR), "rb") as stream:
        before = os.fstat(stream.fileno())
        if not stat.S_ISREG(before.st_mode):
            raise OSError(f"{path} is not a regular file")
        while chunk := stream.read(_HASH_CHUNK):
            digest.update(chunk)
        after = os.fstat(stream.fileno())
    return digest.hexdigest(), stat_signature(before) == signature == stat_signature(after)


# -- the folder --------------------------------------------------------------------------------


def usable_folder(folder: Path, root: Path) -> Path | None:
    """``folder`` as :func:`confined_folder` gives it, when a key authenticates its documents;
    None when the cache must live in memory."""
    return confined_folder(folder, root) if document_key() is not None else None


def confined_folder(folder: Path, root: Path) -> Path | None:
    """The real path of ``folder`` (absolute) when no symlink inside the repository at ``root``
    leads to it; None otherwise. A symlink outside the repository is the user's (the command line
    or the environment named the folder) and is followed; one inside it may be the checkout's, and
    would make the run write and delete files wherever it points."""
    real_root = os.path.realpath(root)
    inside = real_root.rstrip(os.sep) + os.sep
    folder = Path(os.path.abspath(folder))  # (no ".." left: each part is looked at as it is)
    current = folder.anchor
    for part in folder.parts[1:]:
        candidate = os.path.join(current, part)
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            current = candidate  # made later, by mkdir: a real folder
            continue
        except (OSError, ValueError):
            return None
        if stat.S_ISLNK(info.st_mode):
            if current == real_root or current.startswith(inside):
                return None
            current = os.path.realpath(candidate)
        else:
            current = candidate
    return Path(current)


def prepare_folder(folder: Path) -> None:
    """Create the cache folder, and mark it (if it is not yet) so that git and backup tools leave
    it alone: a cache folder that git does not ignore gets committed, and a fresh clone would
    find a cache in it. A mark is created, never overwritten, never through a symlink."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in _MARKS.items():
        try:
            handle = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
        except FileExistsError:
            continue
        with open(handle, "wb") as stream:
            stream.write(text)


def prune_folder(folder: Path, today: int) -> None:
    """Delete cache files (of other versions or settings) and records of runs
    (:mod:`pytest_citations.run.replay`) not written for :data:`PRUNE_DAYS`: regular files of the
    checker's names that authenticate with this user's key, and nothing else."""
    oldest = today - PRUNE_DAYS
    try:
        with os.scandir(folder) as entries:
            old = [entry.path for entry in entries if _OUR_DOCUMENT.match(entry.name)
                   and entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime // 86400 < oldest]
    except OSError:
        return
    for path in old:
        if _authenticates(Path(path)):
            with contextlib.suppress(OSError):
                os.unlink(path)
