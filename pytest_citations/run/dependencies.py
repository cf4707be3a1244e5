"""What a check depended on: every path it resolved, and every run-wide index it consulted.

A cached result is only as good as its key, and a kind cannot be trusted to list what it read.
So nothing is listed by hand: :func:`pytest_citations.core.sources.resolve_inside`, which every read
goes through, notes the path in the innermost active :class:`Recorder`. A path that was looked
up and found missing is noted too (a file that appears later changes the result).

Run-wide indexes (every memory's id, every corpus doc_id) are built from many files once per
run. A result that consulted one depends on the index's *value*, not on each file it was built
from, so that editing the body of one memory does not invalidate every other memory: such a
dependency is noted by name. Its builder is declared with :func:`run_index`, which makes a
:class:`RunWideIndex`; the plugin manager collects the declarations (the ``citations_indexes``
hook) and the engine finds them by name in :class:`RunWideIndexes`, so that a later run can
rebuild the index and compare digests.

Every file read is noted too, with its :func:`stat_signature` taken before the read: the result
cache keys a result by the hashes of what it read, and a file that changed between the check's
read and the cache's hashing would otherwise key old findings by new bytes (see
:meth:`pytest_citations.run.cache.ResultCache.store`).

A check that met one of the run's limits (:mod:`pytest_citations.run.budget`: the time of the
evidence stores, the bytes of git history, the time of the settings' patterns), or a limit of time
(a git command, a store's query, a pattern on a claim), found what it found because of what the
rest of the run spent or how busy the machine was, not only because of what it read: it notes so
(:func:`note_run_limit`), and its result is never kept. Kept, it would outlive its cause until the
file's own bytes changed.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_active: contextvars.ContextVar[Recorder | None] = contextvars.ContextVar("citations_recorder", default=None)


def stat_signature(info: os.stat_result) -> list[int]:
    """[size, mtime_ns, ctime_ns, inode]: what stands for a regular file's bytes between runs.

    ctime is part of it because no program can set it: a file rewritten in place with its old
    mtime put back (``cp -p``, ``touch -r``) keeps its size, inode and mtime, but not its ctime."""
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


class Recorder:
    """The absolute paths resolved, the index names consulted and the files read (by real path,
    each with the signature it had when read; None when it was read twice with two) while it was
    active."""

    def __init__(self) -> None:
        self.paths: set[str] = set()
        self.indexes: set[str] = set()
        self.reads: dict[str, list[int] | None] = {}
        self.run_limited = False  # a run-wide limit decided part of the result (see note_run_limit)

    def merge(self, other: Recorder) -> None:
        self.paths |= other.paths
        self.indexes |= other.indexes
        self.run_limited = self.run_limited or other.run_limited
        reads = self.reads
        for path, signature in other.reads.items():
            if reads.setdefault(path, signature) != signature:
                reads[path] = None

    def note_read(self, path: str, signature: list[int]) -> None:
        if self.reads.setdefault(path, signature) != signature:
            self.reads[path] = None


@contextmanager
def recording(into_parent: bool = True) -> Iterator[Recorder]:
    """Record into a fresh recorder; on exit its notes also go to the enclosing one, unless
    ``into_parent`` is false (an index hides the files it was built from behind its name)."""
    parent = _active.get()
    recorder = Recorder()
    token = _active.set(recorder)
    try:
        yield recorder
    finally:
        _active.reset(token)
        if parent is not None and into_parent:
            parent.merge(recorder)


def note_path(root: Path, path: os.PathLike[str] | str) -> None:
    recorder = _active.get()
    if recorder is not None:
        recorder.paths.add(os.path.normpath(os.path.join(root, path)))


def note_read(real_path: str, info: os.stat_result) -> None:
    """Note that the file at ``real_path`` (symlinks resolved) is read, and its stat just before."""
    recorder = _active.get()
    if recorder is not None:
        recorder.note_read(real_path, stat_signature(info))


def note_run_limit() -> None:
    """Note that one of the run's limits, or a limit of time, decided part of the result: it is
    not to be kept."""
    recorder = _active.get()
    if recorder is not None:
        recorder.run_limited = True


def note_index(name: str) -> None:
    recorder = _active.get()
    if recorder is not None:
        recorder.indexes.add(name)


def merge(recorded: Recorder) -> None:
    """Note again what a memoized value was built from, for the check that now reuses it."""
    recorder = _active.get()
    if recorder is not None:
        recorder.merge(recorded)


@dataclass(frozen=True)
class Shares:
    """An index built from one share per file: ``files(engine)`` lists the files, in order;
    ``share(engine, rel)`` is one file's share, a plain value computed from that file alone; and
    ``combine(engine, shares)`` builds the index from ``{rel: share}`` in the order of ``files``.
    ``citations check -j`` computes the shares in its workers (see parallel.py)."""

    files: Callable[[Any], list[str]]
    share: Callable[[Any, str], Any]
    combine: Callable[[Any, dict[str, Any]], Any]
    # share_of_text(rel, text): the share of a file holding ``text`` (its earlier version), when
    # the index can tell; --since then selects by the shares that changed
    share_of_text: Callable[[str, str], Any] | None = None

    def build(self, engine) -> Any:
        return self.combine(engine, {rel: self.share(engine, rel) for rel in self.files(engine)})


@dataclass(frozen=True)
class RunWideIndex:
    """The declaration of the run-wide index ``name``, which ``build(engine)`` builds and checks of
    ``kind`` consult: calling it returns the run's one value of it and notes the dependency.

    ``sources(engine)`` lists the files of the work tree it is built from (None: from no file);
    ``checked_by_value`` says that an index built from no file is cheap to build again; ``shares``
    is how an index built from one share per file is built (see :class:`Shares`)."""

    name: str
    kind: str
    build: Callable[[Any], Any]
    sources: Callable[[Any], list[str]] | None = None
    checked_by_value: bool = False
    shares: Shares | None = None

    def __call__(self, engine) -> Any:
        return engine.index(self.name, lambda: self.build(engine))


@dataclass(frozen=True)
class IndexDeclaration:
    """A run-wide index as a catalog declares it: its name, its kind, and the module that holds it
    (imported when the index is first asked for)."""

    name: str
    kind: str
    module: str


class RunWideIndexes:
    """The run-wide indexes the plugins declared, by name; a name declared twice is a programming
    error, raised at start-up. A declaration from a catalog becomes its index on first use."""

    def __init__(self, indexes: Iterable[RunWideIndex | IndexDeclaration] = ()) -> None:
        self._by_name: dict[str, RunWideIndex | IndexDeclaration] = {}
        for index in indexes:
            if index.name in self._by_name:
                raise ValueError(f"run-wide index {index.name} is declared twice")
            self._by_name[index.name] = index

    def __iter__(self) -> Iterator[RunWideIndex]:
        return iter([self._loaded(index) for index in list(self._by_name.values())])

    def of_kinds(self, kinds: set[str]) -> list[RunWideIndex]:
        """The indexes that checks of these kinds consult (no other kind's module imported)."""
        return [self._loaded(index) for index in list(self._by_name.values()) if index.kind in kinds]

    def get(self, name: str) -> RunWideIndex | None:
        index = self._by_name.get(name)
        return None if index is None else self._loaded(index)

    def _loaded(self, index: RunWideIndex | IndexDeclaration) -> RunWideIndex:
        if isinstance(index, RunWideIndex):
            return index
        import importlib

        found = {value.name: value for value in vars(importlib.import_module(index.module)).values()
                 if isinstance(value, RunWideIndex)}
        if index.name not in found:
            raise ValueError(f"run-wide index {index.name} is catalogued in {index.module}, which does not hold it")
        self._by_name[index.name] = found[index.name]
        return found[index.name]


def run_index(name: str, kind: str, sources: Callable[[Any], list[str]] | None = None,
              checked_by_value: bool = False) -> Callable[[Callable[[Any], Any]], RunWideIndex]:
    """Declare ``builder(engine)`` as the run-wide index ``name``, used by checks of ``kind``: the
    decorated function becomes a :class:`RunWideIndex`, which a ``citations_indexes`` hook returns
    (the built-in kinds' ``model.py`` hold theirs: see :mod:`pytest_citations.builtins`).

    ``sources(engine)`` lists the files of the work tree the index is built from: a change to one
    of them selects, under ``--since`` and ``--affected-by``, every artifact that consulted the
    index (see :mod:`pytest_citations.run.selection`). An index built from none (the commit checked
    out) gives none; ``checked_by_value`` says it is cheap to build again, which a record of a run
    then does to learn whether it changed."""

    def declare(builder: Callable[[Any], Any]) -> RunWideIndex:
        return RunWideIndex(name, kind, builder, sources, checked_by_value)

    return declare


def run_index_of_shares(name: str, kind: str, files: Callable[[Any], list[str]], share: Callable[[Any, str], Any],
                        share_of_text: Callable[[str, str], Any] | None = None
                        ) -> Callable[[Callable[[Any, dict[str, Any]], Any]], RunWideIndex]:
    """:func:`run_index` for an index that ``combine(engine, shares)`` builds from one share per
    file (see :class:`Shares`)."""

    def declare(combine: Callable[[Any, dict[str, Any]], Any]) -> RunWideIndex:
        shares = Shares(files, share, combine, share_of_text)

        @functools.wraps(combine)
        def build(engine) -> Any:
            return shares.build(engine)

        return RunWideIndex(name, kind, build, sources=files, shares=shares)

    return declare


def digest(value: Any) -> str:
    """A digest of a plain value (built from str, numbers, tuples, lists, dicts, dataclasses)."""
    return hashlib.sha256(repr(value).encode("utf-8", "surrogatepass")).hexdigest()
