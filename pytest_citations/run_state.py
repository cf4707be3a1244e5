"""What a run computes once for one repository root and keeps: values the kinds build once per run
(memos), the run-wide indexes and their digests, and the result cache."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_citations.run import dependencies

if TYPE_CHECKING:
    from pytest_citations.engine import Engine
    from pytest_citations.run.cache import ResultCache


class RunState:
    """The memos, run-wide indexes and result cache of ``engine``'s root. An index is built by
    the kinds' code from the engine (it walks the root, claims files, reads them)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.config = engine.config
        self.caching = False  # whether results are cached (see enable_cache)
        self.cache_folder: Path | None = None  # where; None: in memory, for this run only
        self._cache: ResultCache | None = None
        self._memos: dict[Any, tuple[Any, dependencies.Recorder]] = {}
        self._index_digests: dict[str, str] = {}

    def enable_cache(self, folder: Path | None) -> None:
        """Cache results in ``folder`` (shared with nested roots, each under its own key), or in
        memory only when ``folder`` is None."""
        self.caching, self.cache_folder = True, folder

    @property
    def cache(self) -> ResultCache | None:
        """The result cache of this root and its settings, opened on first use."""
        if self._cache is None and self.caching:
            from pytest_citations.run.cache import ResultCache

            self._cache = ResultCache(self.cache_folder, self.config.root, self.cache_key())
        return self._cache

    @property
    def opened_cache(self) -> ResultCache | None:
        """The result cache if this run has opened it (what was never opened has nothing to save)."""
        return self._cache

    def cache_key(self) -> str:
        """The key of this root's cache: its settings, rules and kinds, and where the root lies
        seen from the cache folder (stable when a checkout moves with its cache, different for two
        roots sharing one cache folder)."""
        from pytest_citations.run.cache import settings_key

        where = os.path.relpath(self.config.root, self.cache_folder) if self.cache_folder else ""
        return settings_key(self.config, self._engine.registry, self._engine.kinds, Path(where).as_posix())

    def memo(self, key: Any, build):
        """``build()`` once per run; every check that uses the value depends on what it read."""
        entry = self._memos.get(key)
        if entry is None:
            with dependencies.recording() as recorded:
                value = build()
            entry = self._memos[key] = (value, recorded)
        else:
            dependencies.merge(entry[1])
        return entry[0]

    @property
    def indexes(self) -> dependencies.RunWideIndexes:
        """The run-wide indexes the plugins declared (the ``citations_indexes`` hook), which the
        rule registry carries from :func:`load_plugins`."""
        return self._engine.registry.indexes

    def index(self, name: str, build):
        """A run-wide index (see :class:`dependencies.RunWideIndex`): built once per run; a check
        that uses it depends on its value, not on the files it was built from."""
        dependencies.note_index(name)
        entry = self._memos.get(("index", name))
        if entry is None:
            with dependencies.recording(into_parent=False) as recorded:
                value = build()
            entry = self._memos[("index", name)] = (value, recorded)
        return entry[0]

    def index_digest(self, name: str) -> str:
        """The digest of the run-wide index ``name``'s value, once per run; for an index built
        from one share per file, kept in the cache with its files' hashes."""
        digest = self._index_digests.get(name)
        if digest is None:
            declared = self.indexes.get(name)
            shares = None if declared is None else declared.shares
            cache = self.cache

            def compute() -> str:
                return dependencies.digest(declared(self._engine) if declared is not None else None)

            if shares is None or cache is None:
                digest = compute()
            else:
                digest = cache.index_digest(name, shares.files(self._engine), compute)
            self._index_digests[name] = digest
        return digest

    def file_memo(self, name: str, rel: str, compute):
        """``compute()``, a JSON value derived from the file ``rel`` alone, cached with the file's hash."""
        cache = self.cache
        return compute() if cache is None else cache.file_memo(name, rel, compute)

    def forget(self) -> None:
        """Drop what was computed in this run (after a fix rewrote files)."""
        self._memos.clear()
        self._index_digests.clear()
