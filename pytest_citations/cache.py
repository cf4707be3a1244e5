"""The result cache: a file's diagnostics, reused while nothing they depend on has changed.

An entry is keyed by the sha256 of the artifact and of every path its check resolved (see
:mod:`pytest_citations.dependencies`), the digests of the run-wide indexes it consulted, and the
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
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import json
import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pytest_citations import __version__, dependencies, sources
from pytest_citations.diagnostics import Diagnostic, Edit, Fix, Severity
from pytest_citations.fix import replace_atomically

FORMAT = 4
TABLES = ("files", "results", "indexes")
PRUNE_DAYS = 30
DELTA_SHARE = 1 / 8  # the share of the entries that deltas may hold before a new base is written
MAX_DELTAS = 16
RACY_SECONDS = 2.0
DEFAULT_FOLDER = ".citations_cache"
_HASH_CHUNK = 1 << 20


def stat_signature(info: os.stat_result) -> list[int]:
    """[size, mtime_ns, ctime_ns, inode]: what stands for a regular file's bytes between runs.

    ctime is part of it because no program can set it: a file rewritten in place with its old
    mtime put back (``cp -p``, ``touch -r``) keeps its size, inode and mtime, but not its ctime."""
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


# A fingerprint is a sha256 hex digest, or one of these for a path that holds no readable file.
ABSENT, NOT_A_FILE, UNRESOLVABLE = "absent", "not-a-file", "unresolvable"


def settings_key(config, registry, kinds, root_from_cache: str = "") -> str:
    """The digest of everything besides file contents that decides a result: the tool's
    version, the effective settings, the rules and kinds installed, and where the root lies
    relative to the cache folder (not where the repository lies on disk)."""
    where = ("root", "source", "cache_dir")
    settings = {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.name not in where}
    rules = sorted((item.code, item.kind or "", item.severity.value) for item in registry)
    return dependencies.digest((FORMAT, __version__, root_from_cache, settings, rules, [k.name for k in kinds]))


def _today() -> int:
    return int(time.time() // 86400)


def diagnostic_to_json(d: Diagnostic) -> list:
    fix = None if d.fix is None else [d.fix.description, [[e.start, e.end, e.text] for e in d.fix.edits]]
    return [d.code, d.name, d.severity.value, d.message, d.path, d.line, d.col, fix, d.context]


def diagnostic_from_json(row: list) -> Diagnostic:
    code, name, severity, message, path, line, col, fix, context = row
    if fix is not None:
        fix = Fix(fix[0], tuple(Edit(*edit) for edit in fix[1]))
    return Diagnostic(code, name, Severity(severity), message, path, line, col, fix, context)


class ResultCache:
    """One cache file: the files table (stat and hash, plus per-file memos) and the results.

    Without a folder it lives in memory only (``--since`` with ``--no-cache`` still needs to
    learn what each file depends on)."""

    def __init__(self, folder: Path | None, root: Path, key: str) -> None:
        self.folder = folder
        self.root = root
        self.key = key
        self.path = folder / f"results-{key[:24]}.json" if folder is not None else None
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
        self.racy = False  # whether this process hashed a file in its racy window
        self._fingerprints: dict[str, str] = {}  # this run's, computed once per path
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
        self._has_base = self._take(read_json(self.path)) > 0
        try:
            self._deltas = sorted(self.folder.glob(f"delta-{self.key[:24]}-*.json"))
        except OSError:
            return
        for delta in self._deltas:
            self._delta_entries += self._take(read_json(delta))

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
        # Named by the time it was written, so that deltas are read oldest first.
        path = self.folder / f"delta-{self.key[:24]}-{time.time_ns():020d}-{os.getpid()}.json"
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
        self._write(self.path, {"files": self.files, "results": self.results, "indexes": self.indexes})
        for delta in self._deltas:
            with contextlib.suppress(OSError):  # another run may have folded it already
                delta.unlink()
        self._deltas, self._delta_entries, self._has_base = [], 0, True

    def _write(self, path: Path, tables: dict[str, dict[str, Any]]) -> None:
        data = {"format": FORMAT, "key": self.key, **tables}
        replace_atomically(path, json.dumps(data, separators=(",", ":")).encode("utf-8"), 0o644, durable=False)

    def _changed(self, table: str, rel: str) -> None:
        """Note an entry written in this process: for the file on disk, and for the process
        that writes it (see :meth:`take_changes`)."""
        self.written[table].add(rel)
        self._unsaved[table].add(rel)
        self.dirty = True

    def take_changes(self) -> dict[str, Any]:
        """The entries written (and the hits and misses counted) since the last call, for the
        process that writes the cache file (the ``-j`` parent, the xdist controller)."""
        changes = {"key": self.key, **self._entries(self.written), "hits": self.hits, "misses": self.misses}
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
            return entry["sha"]
        try:
            sha = _sha256(path)
        except OSError:
            return UNRESOLVABLE
        racy = time.time_ns() - info.st_mtime_ns < RACY_SECONDS * 1e9
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

    def relative(self, path: str) -> str | None:
        """A recorded absolute path as a root-relative one; None outside the root (never read)."""
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return None

    # -- per-file memos ------------------------------------------------------------------------

    def file_memo(self, name: str, rel: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` (a JSON value derived from the file ``rel`` alone), reused while the
        file's bytes stay the same."""
        sha = self._fingerprints.get(rel) or self.fingerprint(rel)
        entry = self.files.get(rel)
        if entry is None or entry.get("sha") != sha:  # no readable file: nothing to key it by
            return compute()
        memo = entry.get("memo")
        if type(memo) is not dict:
            memo = entry["memo"] = {}
        elif name in memo:
            return memo[name]
        value = memo[name] = compute()
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
        paths = {rel}
        for path in recorded.paths:
            shown = self.relative(path)
            if shown is not None:
                paths.add(shown)
        ordered = sorted(paths)
        self.results[rel] = {
            "kinds": kinds,
            "paths": ordered,
            "digest": self.paths_digest(ordered),
            "indexes": {name: index_digest(name) for name in sorted(recorded.indexes)},
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
        piece = self._digest_pieces[path] = f"{path}\0{self.fingerprint(path)}\0".encode("utf-8", "surrogateescape")
        return piece

    # -- run-wide indexes ----------------------------------------------------------------------

    def index_digest(self, name: str, files: list[str], compute: Callable[[], str]) -> str:
        """``compute()``, the digest of the run-wide index ``name``, which is built from one share
        per file of ``files``; reused while those files (their paths, order and hashes) stay the
        same, so that a re-run does not build the index to learn that it has not changed."""
        key = self.paths_digest(files)
        entry = self.indexes.get(name)
        if entry is not None and entry["files"] == key and isinstance(entry.get("digest"), str):
            return entry["digest"]
        digest = compute()
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


def read_json(path: Path) -> Any:
    """The JSON document at ``path``, None if it cannot be read or parsed."""
    try:
        with open(path, "rb") as stream:
            return json.loads(stream.read().decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


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


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def prepare_folder(folder: Path) -> None:
    """Create the cache folder, marked so that git and backup tools leave it alone."""
    if folder.is_dir():
        return
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".gitignore").write_text("# created by pytest-citations\n*\n", encoding="utf-8")
    (folder / "CACHEDIR.TAG").write_text(
        "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by pytest-citations.\n",
        encoding="utf-8",
    )


def prune_folder(folder: Path, today: int) -> None:
    """Delete cache files (of other versions or settings) and records of runs
    (:mod:`pytest_citations.replay`) not written for :data:`PRUNE_DAYS`."""
    try:
        entries = [*folder.glob("results-*.json"), *folder.glob("delta-*.json"), *folder.glob("run-*.json")]
        for entry in entries:
            if entry.stat().st_mtime // 86400 < today - PRUNE_DAYS:
                entry.unlink()
    except OSError:
        return
