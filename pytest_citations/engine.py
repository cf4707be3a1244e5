"""files -> kinds -> units -> rules -> diagnostics for one repository root. No pytest here: every
front end comes through the run layer to this.

An :class:`Engine` is composed of collaborators with one job each: :class:`Discovery` (which files,
of which kinds), :class:`RunState` (memos, run-wide indexes, the result cache), the
:class:`RuleRunner` (rules over units, C006 isolation) and :class:`Decisions` (what is shown). It
plans a run over nested roots and checks one file; what a kind's code asks of the run (``memo``,
``index``, ``file_memo``, ``kinds_for``, ``relative``, ``discover``) it answers through them."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pytest_citations.contexts import FileContext
from pytest_citations.core import sources, suppressions
from pytest_citations.core.config import Config, load_config
from pytest_citations.core.decisions import Decisions
from pytest_citations.core.diagnostics import Diagnostic, sorted_diagnostics
from pytest_citations.core.suppressions import INTERNAL_ERROR
from pytest_citations.discovery import Discovery
from pytest_citations.hookspecs import plugin_manager
from pytest_citations.rule_runner import RuleRunner
from pytest_citations.rules import Finding, Rule, RuleRegistry
from pytest_citations.run import budget, dependencies
from pytest_citations.run_state import RunState

KEPT_PER_CODE = 200  # diagnostics of one code a file keeps; a C009 counts the others


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
    """The diagnostics of a run and the files it checked, paths from the repository root; the
    paths outside every root (``outside``) as the command line named them."""

    diagnostics: list[Diagnostic]
    files: list[str]
    outside: frozenset[str] = frozenset()

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
        self.state = RunState(self)  # memos, run-wide indexes, the result cache
        self.discovery = Discovery(config, kinds, self.state.file_memo)  # which files, of which kinds
        self.discovery.claim_ahead = self._claim_ahead
        self.decisions = Decisions(config, baseline)  # what is shown
        self.runner = RuleRunner(config, registry, self.decisions)
        self.display_prefix = display_prefix
        self.nested_engines: list[Engine] = []  # the nested roots checked from here (shares one list)
        # claims the files of a walk ahead of it, in worker processes (citations check -j; parallel.py)
        self.claim_ahead: Callable[[Engine, list[str]], None] | None = None
        # what the web answered for each cited URL, in an online run (pytest_citations.online.run);
        # the rule runner runs the online rules only when it is set
        self.web: Mapping[str, Any] | None = None

    @classmethod
    def load(cls, start: Path, config_file: Path | None = None, manager=None, baseline=None) -> Engine:
        """The engine of the root at or above ``start``, which begins a run (see :mod:`.run.budget`)."""
        budget.begin()
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
        nested.state.caching, nested.state.cache_folder = self.state.caching, self.state.cache_folder
        nested.nested_engines = self.nested_engines
        nested.claim_ahead = self.claim_ahead
        nested.web = self.web
        return nested

    def _claim_ahead(self, rels: list[str]) -> None:
        if self.claim_ahead is not None:
            self.claim_ahead(self, rels)

    def save_cache(self) -> None:
        """Write the cache of this engine and of every nested root it checked."""
        for engine in (self, *self.nested_engines):
            if engine.state.opened_cache is not None:
                engine.state.opened_cache.save()

    def forget(self) -> None:
        """Drop what was computed in this run (after a fix rewrote files)."""
        self.state.forget()
        self.discovery.forget()

    # -- what a kind's code asks of the run (the plugin API: docs/plugins.md) ------------------

    def relative(self, path: Path) -> str | None:
        """The repo-relative path of ``path``, or None outside the root (:meth:`Discovery.relative`)."""
        return self.discovery.relative(path)

    def kinds_for(self, rel: str) -> tuple:
        """The kinds that claim ``rel``; empty when none does."""
        return self.discovery.kinds_for(rel)

    def discover(self, paths: Iterable[Path], force_exclude: bool = False,
                 nested: list[str] | None = None) -> Iterator[tuple[str, tuple]]:
        """(rel, kinds) for every artifact under ``paths`` (:meth:`Discovery.discover`)."""
        return self.discovery.discover(paths, force_exclude, nested)

    def memo(self, key: Any, build):
        """``build()`` once per run (:meth:`RunState.memo`)."""
        return self.state.memo(key, build)

    def index(self, name: str, build):
        """A run-wide index, built once per run (:meth:`RunState.index`)."""
        return self.state.index(name, build)

    def file_memo(self, name: str, rel: str, compute):
        """A JSON value derived from the file ``rel`` alone (:meth:`RunState.file_memo`)."""
        return self.state.file_memo(name, rel, compute)



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
                   units: list[Any] | None = None,
                   keep_past_cap: Callable[[Diagnostic], bool] | None = None) -> list[Diagnostic]:
        """All diagnostics for one file from each of its kinds, after suppressions, per-file
        ignores and the baseline; from the cache when nothing the last check read has changed
        (never for a ``source`` given in memory, which is what ``--fix`` checks, nor when the units
        the kinds read are asked for in ``units``). ``keep_past_cap`` (what ``--fix`` checks its
        ``source`` with): a diagnostic with a fix past the cap of its code is kept when it says so."""
        cache = self.state.cache if source is None and units is None else None
        found: list[Diagnostic] | None
        if cache is None:
            found = self._check_file(rel, kinds, source, units, keep_past_cap)
        else:
            names = [kind.name for kind in kinds]
            found = cache.lookup(rel, names, self.state.index_digest)
            if found is None:
                with dependencies.recording() as recorded:
                    found = self._check_file(rel, kinds, None)
                if not any(d.code == "C006" for d in found):  # a crash is retried, never remembered
                    cache.store(rel, names, recorded, self.state.index_digest, found)
        if self.display_prefix:
            found = [dataclasses.replace(d, path=self.display_prefix + d.path) for d in found]
        return self.decisions.after_baseline(found)

    def _check_file(self, rel: str, kinds: tuple, source: sources.Source | None,
                    units: list[Any] | None = None,
                    keep_past_cap: Callable[[Diagnostic], bool] | None = None) -> list[Diagnostic]:
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
        found = _Bounded(KEPT_PER_CODE, keep_past_cap)
        for _, run in runs:
            for diagnostic in run:
                if shown(diagnostic):
                    found.add(diagnostic)
        for directive, code in suppressions.unused(directives):
            if self.web is None and self.registry.online(code):
                continue  # an online rule's suppression is used by online runs only
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




def run_task(task: Task, check_file=None) -> list[Diagnostic]:
    """The diagnostics of one task; ``check_file(engine, rel, kinds)`` replaces the engine's own
    check (``--fix`` passes one that fixes as it checks)."""
    if not task.kinds:
        return task.engine.outside_root(task.rel)
    if check_file is None:
        return task.engine.check_file(task.rel, task.kinds)
    return check_file(task.engine, task.rel, task.kinds)


def report_of(tasks: list[Task], results: list[list[Diagnostic]]) -> Report:
    return Report(sorted_diagnostics(d for found in results for d in found), [task.shown for task in tasks],
                  frozenset(task.shown for task in tasks if not task.kinds))





class _Bounded:
    """The diagnostics of one file as they are found, keeping at most ``cap`` of each code: the
    first by position. Of the others, only how many there are and the first of them; but those
    with a fix that ``keep_past_cap`` takes are kept too (for ``--fix``, which repairs them)."""

    def __init__(self, cap: int, keep_past_cap: Callable[[Diagnostic], bool] | None = None) -> None:
        self.cap = cap
        self.keep_past_cap = keep_past_cap
        self.kept: dict[str, list[Diagnostic]] = {}
        self.hidden: dict[str, tuple[int, Diagnostic]] = {}  # code -> (how many, the first)
        self.fixable: list[Diagnostic] = []  # kept past the cap, for their fixes

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
            if diagnostic.fix is not None and self.keep_past_cap is not None and self.keep_past_cap(diagnostic):
                self.fixable.append(diagnostic)
                continue
            count, first = self.hidden.get(code, (0, diagnostic))
            self.hidden[code] = (count + 1, diagnostic if diagnostic.sort_key < first.sort_key else first)

    def diagnostics(self, not_kept: Callable[[int, Diagnostic], Diagnostic]) -> list[Diagnostic]:
        """What is kept, sorted, with ``not_kept(count, first)`` for each code that has more."""
        for code, kept in self.kept.items():
            if len(kept) > self.cap:
                self._trim(code)
        kept = [d for found in self.kept.values() for d in found] + self.fixable
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
