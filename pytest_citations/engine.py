"""files -> kinds -> units -> rules -> diagnostics. No pytest here: both front ends call this."""

from __future__ import annotations

import dataclasses
import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pytest_citations.contexts import FileContext
from pytest_citations.core import globs, sources, suppressions
from pytest_citations.core.config import Config, has_settings, load_config
from pytest_citations.core.decisions import Decisions
from pytest_citations.core.diagnostics import Diagnostic, sorted_diagnostics
from pytest_citations.core.suppressions import INTERNAL_ERROR
from pytest_citations.hookspecs import plugin_manager
from pytest_citations.rule_runner import RuleRunner
from pytest_citations.rules import Finding, Rule, RuleRegistry
from pytest_citations.run import dependencies

if TYPE_CHECKING:
    from pytest_citations.run.cache import ResultCache

SNIFF_BYTES = 64 * 1024
KEPT_PER_CODE = 200  # diagnostics of one code a file keeps; a C009 counts the others
# A kind's claims(rel): its include globs claim rel; its head decides; its include globs name rel
# but its head decides (by_content_only), and a head that cannot be read or is not UTF-8 is
# claimed, for the read to say why.
_INCLUDED, _SNIFFED, _CONTENT_DECIDES = 0, 1, 2


@dataclass(frozen=True)
class Task:
    """One file to check with the engine of its root; no kinds for a path outside every root."""

    engine: Engine
    rel: str
    kinds: tuple

    @property
    def shown(self) -> str:
        return self.engine.display_prefix + self.rel if self.kinds else self.rel


@dataclass
class Report:
    diagnostics: list[Diagnostic]
    files: list[str]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


class Engine:
    """Checks the files of one repository root with its settings.

    A folder below the root that holds settings of its own (a ``pyproject.toml`` with
    ``[tool.citations]``) is another root: :meth:`check` checks it with an engine of its own and
    shows its paths from this root (``display_prefix``), as ``pytest --citations`` does per file.
    """

    def __init__(self, config: Config, kinds: list, registry: RuleRegistry, baseline=None, display_prefix: str = ""):
        sources.forget_folders()
        self.config = config
        self.kinds = kinds
        self.registry = registry
        self.decisions = Decisions(config, baseline)  # what is shown
        self.runner = RuleRunner(config, registry, self.decisions)
        self.display_prefix = display_prefix
        self.caching = False  # whether results are cached (see enable_cache)
        self.cache_folder: Path | None = None  # where; None: in memory, for this run only
        self._cache: ResultCache | None = None
        self._memos: dict[Any, tuple[Any, dependencies.Recorder]] = {}
        self._index_digests: dict[str, str] = {}
        self._kinds: dict[str, tuple] = {}  # rel -> kinds_for(rel), once per run
        self._kinds_named: dict[tuple, tuple] = {}  # claimed kinds' names -> those kinds
        # (folder, excludes) -> (artifacts with their kinds, nested roots, every file found), once per run
        self._walks: dict[tuple, tuple[list, list[str], list[str]]] = {}
        self._kind_matchers: tuple | None = None
        self._folders: dict[str, str | None] = {}  # folder -> its root-relative prefix, None outside
        self.nested_engines: list[Engine] = []  # the nested roots checked from here (shares one list)
        # claims the files of a walk ahead of it, in worker processes (citations check -j; parallel.py)
        self.claim_ahead: Callable[[Engine, list[str]], None] | None = None

    @classmethod
    def load(cls, start: Path, config_file: Path | None = None, manager=None, baseline=None) -> Engine:
        kinds, registry = load_plugins(manager)
        config = load_config(start, kinds, registry, config_file)
        return cls(config, kinds, registry, baseline)

    def override(self, select: tuple[str, ...] | None = None, ignore: tuple[str, ...] | None = None,
                 extend_select: tuple[str, ...] | None = None, extend_ignore: tuple[str, ...] | None = None) -> None:
        """Replace (or extend) the settings' select/ignore here and in every nested root checked from here."""
        self.decisions.override(select, ignore, extend_select, extend_ignore)

    def _nested(self, rel: str) -> Engine:
        nested = self.engine_below(rel)
        self.nested_engines.append(nested)
        return nested

    def engine_below(self, rel: str) -> Engine:
        """The engine of the root with settings of its own at folder ``rel``, set up as this one."""
        folder = self.config.root / rel
        nested = Engine(load_config(folder, self.kinds, self.registry), self.kinds, self.registry,
                        self.decisions.baseline, f"{self.display_prefix}{rel}/")
        nested.override(**self.decisions.overrides)
        nested.caching, nested.cache_folder = self.caching, self.cache_folder
        nested.nested_engines = self.nested_engines
        nested.claim_ahead = self.claim_ahead
        return nested

    # -- what kinds compute once per run, and the result cache --------------------------------

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
        return settings_key(self.config, self.registry, self.kinds, Path(where).as_posix())

    def save_cache(self) -> None:
        """Write the cache of this engine and of every nested root it checked."""
        for engine in (self, *self.nested_engines):
            if engine._cache is not None:
                engine._cache.save()

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
        return self.registry.indexes

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
                return dependencies.digest(declared(self) if declared is not None else None)

            if shares is None or cache is None:
                digest = compute()
            else:
                digest = cache.index_digest(name, shares.files(self), compute)
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
        self._kinds.clear()
        self._walks.clear()

    # -- which files -------------------------------------------------------------------------

    def relative(self, path: Path) -> str | None:
        """The repo-relative path of ``path``, or None outside the root.

        The folders leading to the file are resolved (the root is a resolved path, and a repository
        may be reached through a symlinked folder); the file itself is not, so that a symlinked
        artifact is judged, and refused if it leaves the root, when it is read.
        """
        folder, name = os.path.split(os.path.abspath(path))
        prefix = self.folder_prefix(folder)
        return None if prefix is None else prefix + name

    def folder_prefix(self, folder: str) -> str | None:
        """What :meth:`relative` puts before the names of the files in ``folder`` (an absolute
        path): ``sub/folder/``, ``""`` for the root, None outside it; once per folder."""
        if folder not in self._folders:
            self._folders[folder] = self._folder_prefix(os.path.realpath(folder))
        return self._folders[folder]

    def _folder_prefix(self, real: str) -> str | None:
        """``sub/folder/`` for a real folder below the root, ``""`` for the root, None outside."""
        root = str(self.config.root)
        if real == root:
            return ""
        if not real.startswith(root.rstrip(os.sep) + os.sep):
            return None
        return Path(real[len(root.rstrip(os.sep)) + 1 :]).as_posix() + "/"

    def is_excluded(self, rel: str) -> bool:
        return globs.matches(rel, self.config.exclude)

    def includes_folder(self, rel: str) -> bool:
        """Whether a kind's include globs can claim files in folder ``rel`` or below it."""
        for kind in self.kinds:
            for pattern in self.config.kinds[kind.name].include:
                literal = globs.literal_prefix(pattern)
                if literal and (literal.startswith(rel + "/") or (rel + "/").startswith(literal)):
                    return True
        return False

    def kinds_for(self, rel: str) -> tuple:
        """The kinds that claim ``rel``: by path, or by content; empty when none does.

        One file may be several kinds' artifact (a memory whose body holds inline code citations);
        each kind reads it and runs its rules, and the file's diagnostics are merged.
        """
        found = self._kinds.get(rel)
        if found is None:
            found = self._kinds[rel] = self._claim(rel)
        return found

    def _claim(self, rel: str) -> tuple:
        """The kinds that claim ``rel``; kept with the file's hash, since they depend only on its
        path and bytes (and the settings, which key the whole cache)."""
        claimable, matchers = self._matchers()
        if not claimable(rel):
            return ()
        names = self.file_memo("claim", rel, lambda: self._claim_names(rel, matchers))
        if type(names) is list:
            try:
                return self._kinds_named[tuple(names)]  # only lists of names found valid are keys
            except (KeyError, TypeError):  # TypeError: an unhashable part of a damaged memo
                pass
        if not (isinstance(names, list) and all(isinstance(name, str) for name in names)):  # a damaged memo
            names = self._claim_names(rel, matchers)
        return self._kinds_of(names)

    def kinds_named(self, names: list[str]) -> tuple:
        """The kinds of these names, in the order of ``self.kinds``."""
        found = self._kinds_named.get(tuple(names))
        return found if found is not None else self._kinds_of(names)

    def _kinds_of(self, names: list[str]) -> tuple:
        """The kinds of these names, in the order of ``self.kinds`` (remembered by the names)."""
        found = self._kinds_named[tuple(names)] = tuple(kind for kind in self.kinds if kind.name in names)
        return found

    def index_touched(self, name: str, changed: set[str], sources: list[str] | None = None,
                      earlier: Callable[[list[str]], dict[str, str | None]] | None = None) -> bool:
        """Whether the ``changed`` paths may have changed the run-wide index ``name``: one of them
        is one of the files it is built from now (``sources``, when known already), or a path its
        kind claims by its include or sniff globs (it may have been one: deleted, or its head no
        longer claimed).

        ``earlier(rels)`` (``{rel: the text it had before, None when there was no such file}``,
        without the paths it cannot tell of) makes an index built from one share per file exact:
        it counts as changed only when a changed path's share then and now differ (an edit below a
        memory's front matter changes no id and no link)."""
        declared = self.indexes.get(name)
        if declared is None or declared.sources is None or not changed:
            return False
        kind = declared.kind
        files = set(declared.sources(self) if sources is None else sources)
        candidates = [rel for rel in changed if rel in files or self._path_claimed_by(kind, rel)]
        shares = declared.shares
        if not candidates or earlier is None or shares is None or shares.share_of_text is None:
            return bool(candidates)
        texts = earlier(candidates)
        for rel in candidates:
            if rel not in texts:
                return True  # what it held before cannot be told
            before = texts[rel]
            then = None if before is None or not self._claims_text(kind, rel, before) else shares.share_of_text(rel, before)
            now = shares.share(self, rel) if any(claimed.name == kind for claimed in self.kinds_for(rel)) else None
            if then != now:
                return True
        return False

    def _claims_text(self, kind_name: str | None, rel: str, text: str) -> bool:
        """Whether the kind ``kind_name`` would claim a file at ``rel`` holding ``text``."""
        if not self._path_claimed_by(kind_name, rel):
            return False
        for kind, claims, _ in self._matchers()[1]:
            if kind.name == kind_name:
                return claims(rel) == _INCLUDED or _sniffs(kind, rel, text[:SNIFF_BYTES])
        return False

    def _path_claimed_by(self, kind_name: str | None, rel: str) -> bool:
        """Whether the kind ``kind_name`` would claim a file at ``rel`` by its include or sniff
        globs (by its path alone: whether its head says so is not asked)."""
        if self.is_excluded(rel):
            return False
        for kind, claims, excluded in self._matchers()[1]:
            if kind.name == kind_name:
                return claims(rel) is not None and not excluded(rel)
        return False

    def settings_rel(self) -> str | None:
        """The root-relative path of the settings file of this root, None when it has none there."""
        return None if self.config.source is None else self.relative(self.config.source)

    def claimable(self, rel: str) -> bool:
        """Whether any kind's include or sniff globs match ``rel`` (else no kind claims it)."""
        return self._matchers()[0](rel)

    def remember_claim(self, rel: str, names: list[str]) -> None:
        """Take the names of the kinds that claim ``rel`` as worked out elsewhere (a worker)."""
        self._kinds[rel] = self._kinds_of(names)

    def _claim_names(self, rel: str, matchers: list[tuple]) -> list[str]:
        claimed = []
        to_sniff = []
        for kind, claims, excluded in matchers:
            how = claims(rel)
            if how is None or excluded(rel):
                continue
            if how == _INCLUDED:
                claimed.append(kind)
            else:
                to_sniff.append((kind, how))
        if to_sniff:
            head = self._head(rel)
            claimed.extend(kind for kind, how in to_sniff
                           if (how == _CONTENT_DECIDES and _unreadable(head)) or (head is not None and _sniffs(kind, rel, head)))
        return [kind.name for kind in claimed]

    def _matchers(self) -> tuple:
        """(claimable(rel), [(kind, claims(rel), excluded(rel)), ...]): whether any kind's include
        or sniff globs match, and per kind how its globs take a path (:func:`_claims`) and whether
        its excludes match; compiled once, since every file of a walk goes through them."""
        if self._kind_matchers is None:
            settings = [self.config.kinds[kind.name] for kind in self.kinds]
            every = tuple(p for kind, own in zip(self.kinds, settings, strict=True) for p in (*own.include, *kind.sniff_include))
            self._kind_matchers = (globs.matcher(every), [
                (kind, _claims(kind, own.include), globs.matcher(own.exclude))
                for kind, own in zip(self.kinds, settings, strict=True)
            ])
        return self._kind_matchers

    def _head(self, rel: str) -> str | None:
        """The first :data:`SNIFF_BYTES` of ``rel``, whatever its size (a file over max-file-size
        that its head claims is an artifact, reported as too large (C003) when it is read, not
        passed over); None when it cannot be read (a dangling symlink, one out of the root)."""
        try:
            data = sources.read_head(self.config.root, rel, SNIFF_BYTES, max_size=sys.maxsize)
        except sources.SourceError:
            return None
        return data.decode("utf-8", "replace")

    def discover(
        self, paths: Iterable[Path], force_exclude: bool = False, nested: list[str] | None = None
    ) -> Iterator[tuple[str, tuple]]:
        """(rel, kinds) for every artifact under ``paths``; (shown path, ()) for one outside.

        Folders with settings of their own are not entered; their paths go into ``nested``.
        """
        for path in paths:
            if Path(path).is_dir():
                folder = Path(os.path.realpath(path))
                if not folder.is_relative_to(self.config.root):
                    yield Path(path).as_posix(), ()
                    continue
                yield from self._walk(folder, nested if nested is not None else [], self.walk_excludes(folder, force_exclude))
                continue
            rel = self.relative(path)
            if rel is None:
                yield Path(path).as_posix(), ()
            elif not (force_exclude and self.is_excluded(rel)):
                kinds = self.kinds_for(rel)
                if kinds:
                    yield rel, kinds

    def unclaimed(self, paths: Iterable[Path], force_exclude: bool = False) -> list[str]:
        """The files among ``paths`` (named one by one, not found in a folder) that are inside the
        root and that no kind claims: named to be checked, they are not, and the user is told. The
        claim is worked out afresh from each file's head, without the result cache."""
        found = []
        for path in paths:
            if Path(path).is_dir() or (rel := self.relative(path)) is None or not os.path.lexists(path):
                continue
            if force_exclude and self.is_excluded(rel):
                continue
            claimable, matchers = self._matchers()
            if not (claimable(rel) and self._claim_names(rel, matchers)):
                found.append(Path(path).as_posix())
        return found

    def walk_excludes(self, folder: Path, force_exclude: bool = False) -> tuple[str, ...]:
        """The excludes of a walk of ``folder`` (a real folder below the root) named on the command
        line: it is entered even if an exclude covers it (as a named file is checked), unless
        excludes are forced; excludes below it still apply."""
        start = folder.relative_to(self.config.root).as_posix()
        if force_exclude or start == ".":
            return self.config.exclude
        return tuple(p for p in self.config.exclude if not globs.matches(start, [p]))

    def _walk(self, folder: Path, nested: list[str], excludes: tuple[str, ...]) -> Iterator[tuple[str, tuple]]:
        """The artifacts below ``folder``, walked once per run (a run-wide index walks the root
        again to find every file of its kind)."""
        key = (str(folder), excludes)
        walked = self._walks.get(key)
        if walked is None:
            walked = self._walks[key] = self._walk_tree(folder, excludes)
        found, nested_here, _ = walked
        nested.extend(nested_here)
        yield from found

    def _walk_tree(self, folder: Path, excludes: tuple[str, ...]) -> tuple[list[tuple[str, tuple]], list[str], list[str]]:
        """(artifacts with their kinds, nested roots, every file the walk found)."""
        candidates, nested = walk_files(self.config.root, folder, excludes)
        if self.claim_ahead is not None:
            self.claim_ahead(self, candidates)
        kinds_for = self.kinds_for
        return [(rel, kinds) for rel in candidates if (kinds := kinds_for(rel))], nested, candidates

    def walks(self) -> list[tuple[str, tuple[str, ...], list[str], list[str]]]:
        """(folder, excludes, files found, nested roots) of every walk of this run, in order."""
        return [(folder, excludes, candidates, nested) for (folder, excludes), (_, nested, candidates) in self._walks.items()]

    # -- checking ----------------------------------------------------------------------------

    def check(self, paths: Iterable[Path], force_exclude: bool = False, check_file=None) -> Report:
        """Check every artifact under ``paths``, nested roots with their own settings.

        ``check_file(engine, rel, kinds)`` may replace the per-file check (``--fix`` passes one
        that fixes as it checks).
        """
        tasks = self.plan(paths, force_exclude)
        return report_of(tasks, [run_task(task, check_file) for task in tasks])

    def plan(self, paths: Iterable[Path], force_exclude: bool = False) -> list[Task]:
        """Every file to check under ``paths``, those of each nested root after its parent's own
        and before the next nested root of that parent (depth first; in a loop, since nested
        roots may go a thousand deep)."""
        tasks: list[Task] = []
        pending: list[tuple[Engine, str | None]] = [(self, None)]  # (engine, its nested root to plan next)
        while pending:
            parent, rel = pending.pop()
            engine = parent if rel is None else parent._nested(rel)
            nested: list[str] = []
            where = paths if rel is None else [engine.config.root]
            tasks.extend(Task(engine, found, kinds) for found, kinds in engine.discover(where, force_exclude, nested))
            pending.extend((engine, below) for below in reversed(nested))
        return tasks

    def outside_root(self, shown: str) -> list[Diagnostic]:
        finding = Finding(f"path is outside the repository root {self.config.root.as_posix()}")
        diagnostic = self.runner.diagnostic("C008", finding, shown)
        return [diagnostic] if diagnostic else []

    def check_file(self, rel: str, kinds: tuple, source: sources.Source | None = None,
                   units: list[Any] | None = None) -> list[Diagnostic]:
        """All diagnostics for one file from each of its kinds, after suppressions, per-file
        ignores and the baseline; from the cache when nothing the last check read has changed
        (never for a ``source`` given in memory, which is what ``--fix`` checks, nor when the units
        the kinds read are asked for in ``units``)."""
        cache = self.cache if source is None and units is None else None
        found: list[Diagnostic] | None
        if cache is None:
            found = self._check_file(rel, kinds, source, units)
        else:
            names = [kind.name for kind in kinds]
            found = cache.lookup(rel, names, self.index_digest)
            if found is None:
                with dependencies.recording() as recorded:
                    found = self._check_file(rel, kinds, None)
                if not any(d.code == "C006" for d in found):  # a crash is retried, never remembered
                    cache.store(rel, names, recorded, self.index_digest, found)
        if self.display_prefix:
            found = [dataclasses.replace(d, path=self.display_prefix + d.path) for d in found]
        return self.decisions.after_baseline(found)

    def _check_file(self, rel: str, kinds: tuple, source: sources.Source | None,
                    units: list[Any] | None = None) -> list[Diagnostic]:
        """The file's diagnostics from each of its kinds, after suppressions and per-file
        ignores, at most :data:`KEPT_PER_CODE` of each code (a C009 counts the others).

        Each diagnostic is judged as it is found, so that what is not kept is never held: every
        kind is first run up to its first diagnostic, by which time it has read the file's
        suppression comments (a kind sets ``ctx.directives`` before its first unit)."""
        runs = []
        for kind in kinds:
            ctx = FileContext(self, rel, kind, source)
            run = self.runner.diagnostics(ctx, units)
            runs.append((ctx, itertools.chain([first] if (first := next(run, None)) else [], run)))
            source = ctx.source  # read once, whichever kind read it first
        # Two Markdown kinds of one file read the same comments: each directive counts once.
        directives = list({(d.line, d.col, d.action, d.codes): d for ctx, _ in runs for d in ctx.directives}.values())
        shown = self.decisions.shown_in_file(rel, directives)
        found = _Bounded(KEPT_PER_CODE)
        for _, run in runs:
            for diagnostic in run:
                if shown(diagnostic):
                    found.add(diagnostic)
        for directive, code in suppressions.unused(directives):
            message = f"suppression of {code} is unused: " + (
                "an internal error cannot be suppressed" if code == INTERNAL_ERROR else
                f"no {code} diagnostic on this " + ("file" if directive.action == "disable-file" else "line")
            )
            unused = self.runner.diagnostic("C007", Finding(message, directive.line, directive.col), rel, source)
            if unused and not unused.code.startswith(self.decisions.ignored_in(rel)):
                found.add(unused)
        return found.diagnostics(self._not_kept)

    def _not_kept(self, count: int, first: Diagnostic) -> Diagnostic:
        """The C009 that stands for ``count`` diagnostics of ``first``'s code that a file does not
        keep, at the first of them and with its severity: it fails the run when they would."""
        item = cast(Rule, self.registry.get("C009"))  # a core rule: always registered
        many = count != 1
        message = (f"{count} more {first.code} diagnostic{'s' if many else ''} in this file {'are' if many else 'is'} "
                   f"not shown: a file keeps at most {KEPT_PER_CODE} of each code")
        return Diagnostic(item.code, item.name, first.severity, message, first.path, first.line, first.col,
                          context=first.context, context_start=first.context_start)



def _unreadable(head: str | None) -> bool:
    """Whether a head cannot be read, or is not UTF-8 text (decoded, its bad bytes are U+FFFD): a
    file whose content decides is then claimed, so that reading it reports why (C001, C002)."""
    return head is None or "\ufffd" in head


def _sniffs(kind: Any, rel: str, head: str) -> bool:
    """Whether ``kind`` claims the file ``rel`` by its ``head``: its ``sniff_file(rel, head)``,
    for a kind that weighs a file's content by where it is, else its ``sniff(head)``."""
    sniff_file = getattr(kind, "sniff_file", None)
    return bool(sniff_file(rel, head) if sniff_file is not None else kind.sniff(head))


def _claims(kind: Any, include: tuple[str, ...]) -> Callable[[str], int | None]:
    """``claims(rel)`` of a kind: _INCLUDED where its include globs match, _SNIFFED where its
    sniff globs do, None elsewhere. A path matching the kind's ``by_content_only`` globs is
    _CONTENT_DECIDES wherever its include globs would claim it (an agent's CLAUDE.md in a memories
    folder is a memory only if its front matter cites files)."""
    first = globs.first_match((include, kind.sniff_include))
    by_content_only = tuple(getattr(kind, "by_content_only", ()))
    if not by_content_only:
        return first
    content_only = globs.matcher(by_content_only)
    return lambda rel: _CONTENT_DECIDES if (found := first(rel)) == _INCLUDED and content_only(rel) else found


def walk_files(root: Path, folder: Path, excludes: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(root-relative paths of the files below ``folder`` that ``excludes`` leave, folders below
    it with settings of their own), in a stable order; those folders are not entered."""
    excluded = globs.matcher(excludes)
    found: list[str] = []
    nested: list[str] = []
    for current, dirnames, filenames in _walk(str(folder)):
        base = Path(current).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        kept = []
        for name in sorted(dirnames):
            if excluded(prefix + name):
                continue
            if has_settings(Path(current) / name):
                nested.append(prefix + name)
            else:
                kept.append(name)
        dirnames[:] = kept
        found.extend(rel for rel in (prefix + name for name in sorted(filenames)) if not excluded(rel))
    return found, nested


def _walk(top: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top)``, top down, without following symlinked folders, in a loop rather than by
    recursion (which Python 3.11's ``os.walk`` uses): a checkout may nest folders a thousand deep.
    The caller may prune the folder names it is given, as with ``os.walk``."""
    pending = [top]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as entries:
                listed = list(entries)
        except OSError:
            continue
        dirnames: list[str] = []
        filenames: list[str] = []
        for entry in listed:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (dirnames if is_dir else filenames).append(entry.name)
        yield current, dirnames, filenames
        pending.extend(path for name in reversed(dirnames) if not os.path.islink(path := os.path.join(current, name)))


def run_task(task: Task, check_file=None) -> list[Diagnostic]:
    """The diagnostics of one task; ``check_file(engine, rel, kinds)`` replaces the engine's own
    check (``--fix`` passes one that fixes as it checks)."""
    if not task.kinds:
        return task.engine.outside_root(task.rel)
    if check_file is None:
        return task.engine.check_file(task.rel, task.kinds)
    return check_file(task.engine, task.rel, task.kinds)


def report_of(tasks: list[Task], results: list[list[Diagnostic]]) -> Report:
    return Report(sorted_diagnostics(d for found in results for d in found), [task.shown for task in tasks])





class _Bounded:
    """The diagnostics of one file as they are found, keeping at most ``cap`` of each code: the
    first by position. Of the others, only how many there are and the first of them."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept: dict[str, list[Diagnostic]] = {}
        self.hidden: dict[str, tuple[int, Diagnostic]] = {}  # code -> (how many, the first)

    def add(self, diagnostic: Diagnostic) -> None:
        kept = self.kept.setdefault(diagnostic.code, [])
        kept.append(diagnostic)
        if len(kept) >= 2 * self.cap:
            self._trim(diagnostic.code)

    def _trim(self, code: str) -> None:
        """Keep the first ``cap`` diagnostics of ``code`` (exact repeats dropped); count the rest."""
        kept = sorted_diagnostics(self.kept[code])
        self.kept[code] = kept[: self.cap]
        for diagnostic in kept[self.cap :]:
            count, first = self.hidden.get(code, (0, diagnostic))
            self.hidden[code] = (count + 1, diagnostic if diagnostic.sort_key < first.sort_key else first)

    def diagnostics(self, not_kept: Callable[[int, Diagnostic], Diagnostic]) -> list[Diagnostic]:
        """What is kept, sorted, with ``not_kept(count, first)`` for each code that has more."""
        for code, kept in self.kept.items():
            if len(kept) > self.cap:
                self._trim(code)
        kept = [d for found in self.kept.values() for d in found]
        return sorted_diagnostics([*kept, *(not_kept(count, first) for count, first in self.hidden.values())])


def load_plugins(manager=None) -> tuple[list, RuleRegistry]:
    """Kinds and rules from the built-ins and every installed plugin; the registry carries the
    run-wide indexes they declare too."""
    manager = manager or plugin_manager()
    kinds = [kind for group in manager.hook.citations_kinds() for kind in group]
    registry = RuleRegistry((item for group in manager.hook.citations_rules() for item in group),
                            (index for group in manager.hook.citations_indexes() for index in group))
    names = [kind.name for kind in kinds]
    if len(names) != len(set(names)):
        raise ValueError(f"a kind name is declared twice: {sorted(names)}")
    return kinds, registry
