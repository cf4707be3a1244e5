"""The result cache: a file's diagnostics, reused while nothing they depend on has changed.

An entry is keyed by the sha256 of the artifact and of every path its check resolved (see
:mod:`pytest_citations.dependencies`), the digests of the run-wide indexes it consulted, and the
kinds that claimed the file; the cache file as a whole belongs to one tool version and one
effective configuration (:func:`settings_key`). Re-hashing is avoided by a stat fast path: a file
whose size, mtime_ns and inode are those recorded with its hash is taken to hold the same bytes.
mtime alone is never trusted (a CI checkout resets it), and a file modified within
:data:`RACY_SECONDS` of being hashed never takes the fast path (a same-tick edit could hide).

The cache is a single JSON document written atomically; one that is unreadable, corrupt or
written by another version or configuration is ignored and replaced, never trusted. Entries
unseen for :data:`PRUNE_DAYS` days are dropped when it is written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_citations import __version__, dependencies, sources
from pytest_citations.diagnostics import Diagnostic, Edit, Fix, Severity
from pytest_citations.fix import replace_atomically

FORMAT = 2
PRUNE_DAYS = 30
RACY_SECONDS = 2.0
DEFAULT_FOLDER = ".citations_cache"
_HASH_CHUNK = 1 << 20

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
        self.files: dict[str, dict[str, Any]] = {}  # rel -> {"stat": [...]|None, "sha": str, "memo": {...}}
        # rel -> {"kinds", "paths" (sorted), "digest" (of their fingerprints), "indexes", "diagnostics", "seen"}
        self.results: dict[str, dict[str, Any]] = {}
        self.dirty = False
        self.written: dict[str, set[str]] = {"files": set(), "results": set()}  # by this process
        self.hits = 0
        self.misses = 0
        self._fingerprints: dict[str, str] = {}  # this run's, computed once per path
        self._today = _today()
        self._load()

    # -- the file on disk ----------------------------------------------------------------------

    def _load(self) -> None:
        if self.path is None:
            return
        try:
            with open(self.path, encoding="utf-8") as stream:
                data = json.load(stream)
        except (OSError, ValueError, RecursionError):
            return
        if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("key") == self.key):
            return
        files, results = data.get("files"), data.get("results")
        if isinstance(files, dict) and isinstance(results, dict):  # entries of another shape are dropped
            self.files = {rel: entry for rel, entry in files.items() if _is_entry(entry, "sha", str)}
            self.results = {rel: entry for rel, entry in results.items() if _is_entry(entry, "paths", list)}

    def save(self) -> None:
        """Write the cache if anything changed: atomically, after pruning old entries. A cache
        that cannot be written is not an error: the next run is only slower."""
        if not self.dirty or self.folder is None:
            return
        oldest = self._today - PRUNE_DAYS
        self.results = {rel: entry for rel, entry in self.results.items() if _seen_day(entry) >= oldest}
        self.files = {rel: entry for rel, entry in self.files.items() if _seen_day(entry) >= oldest}
        data = {"format": FORMAT, "key": self.key, "files": self.files, "results": self.results}
        try:
            prepare_folder(self.folder)
            replace_atomically(self.path, json.dumps(data, separators=(",", ":")).encode("utf-8"), 0o644, durable=False)
        except OSError:
            return
        self.dirty = False
        prune_folder(self.folder, self._today)

    def take_changes(self) -> dict[str, Any]:
        """The entries written (and the hits and misses counted) since the last call, for the
        process that writes the cache file (the ``-j`` parent, the xdist controller)."""
        changes = {
            "key": self.key,
            "files": {rel: self.files[rel] for rel in self.written["files"] if rel in self.files},
            "results": {rel: self.results[rel] for rel in self.written["results"] if rel in self.results},
            "hits": self.hits,
            "misses": self.misses,
        }
        self.written = {"files": set(), "results": set()}
        self.hits = self.misses = 0
        return changes

    def absorb(self, changes: dict[str, Any]) -> None:
        """Take the entries (and counts) another process sent with :meth:`take_changes`."""
        if changes.get("key") != self.key:
            return
        self.files.update(changes.get("files", {}))
        self.results.update(changes.get("results", {}))
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
        signature = [info.st_size, info.st_mtime_ns, info.st_ino]
        entry = self.files.get(rel)
        if entry is not None and entry.get("stat") == signature:
            self._seen("files", rel)
            return entry["sha"]
        try:
            sha = _sha256(path)
        except OSError:
            return UNRESOLVABLE
        racy = time.time_ns() - info.st_mtime_ns < RACY_SECONDS * 1e9
        if entry is None or entry.get("sha") != sha:
            entry = {"memo": {}}
        entry.update(stat=None if racy else signature, sha=sha, seen=self._today)
        self.files[rel] = entry
        self.written["files"].add(rel)
        self.dirty = True
        return sha

    def _seen(self, table: str, rel: str) -> None:
        """Mark an entry used today (once a day, so that an unchanged cache is not rewritten)."""
        entry = getattr(self, table)[rel]
        if entry.get("seen") != self._today:
            entry["seen"] = self._today
            self.written[table].add(rel)  # an xdist worker's hits must reach the controller too
            self.dirty = True

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
        sha = self.fingerprint(rel)
        entry = self.files.get(rel)
        if entry is None or entry.get("sha") != sha:  # no readable file: nothing to key it by
            return compute()
        memo = entry.get("memo")
        if not isinstance(memo, dict):
            memo = entry["memo"] = {}
        if name in memo:
            return memo[name]
        value = memo[name] = compute()
        self.written["files"].add(rel)
        self.dirty = True
        return value

    # -- results -------------------------------------------------------------------------------

    def lookup(self, rel: str, kinds: list[str], index_digest: Callable[[str], str]) -> list[Diagnostic] | None:
        entry = self.results.get(rel)
        if entry is None or entry.get("kinds") != kinds:
            self.misses += 1
            return None
        try:
            fresh = self.paths_digest(entry["paths"]) == entry["digest"] and all(
                index_digest(name) == value for name, value in entry["indexes"].items()
            )
            diagnostics = [diagnostic_from_json(row) for row in entry["diagnostics"]] if fresh else None
        except (KeyError, TypeError, ValueError, AttributeError):  # a damaged entry: recheck
            diagnostics = None
        if diagnostics is None:
            self.misses += 1
            return None
        self.hits += 1
        self._seen("results", rel)
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
        self.written["results"].add(rel)
        self.dirty = True

    def paths_digest(self, paths: list[str]) -> str:
        """One digest of the current fingerprints of ``paths`` (the files table holds each file's
        hash once; a result keeps only this)."""
        fingerprint = self.fingerprint
        text = "".join([f"{path}\0{fingerprint(path)}\0" for path in paths])
        return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()

    def depends_on(self, rel: str, changed: set[str]) -> bool | None:
        """Whether the last check of ``rel`` read one of the ``changed`` paths; None if unknown."""
        entry = self.results.get(rel)
        if entry is None or not isinstance(entry.get("paths"), list):
            return None
        return not changed.isdisjoint(entry["paths"])


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
    """Delete cache files (of other versions or settings) not written for :data:`PRUNE_DAYS`."""
    try:
        entries = list(folder.glob("results-*.json"))
        for entry in entries:
            if entry.stat().st_mtime // 86400 < today - PRUNE_DAYS:
                entry.unlink()
    except OSError:
        return
