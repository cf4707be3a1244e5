"""The run layer: a front end says what to check (a :class:`CheckRequest`) and gets a
:class:`CheckOutcome` back. Everything between lives here: the settings and the engine, the
result cache and the record of the last run, change selection (``--since``, ``--staged``,
``--affected-by``), shards, parallel workers and fixing. A front end only parses its arguments
and renders the outcome; a request it cannot carry out is a :class:`RunError` with the message to
show.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from pytest_citations.core.diagnostics import Diagnostic
    from pytest_citations.engine import Engine, Report, Task
    from pytest_citations.online.run import OnlineRequest, OnlineSummary
    from pytest_citations.run.progress import Progress
    from pytest_citations.run.replay import Request
    from pytest_citations.run.selection import Changes

INTERNAL_ERROR = "C006"


class RunError(Exception):
    """A request that cannot be carried out (a usage error): the message says why."""


@dataclass(frozen=True)
class CheckRequest:
    """What to check, and how. ``paths`` empty means the current folder."""

    paths: tuple[Path, ...] = ()
    root: Path | None = None  # where the settings are found; None: the deepest folder holding the paths
    config_file: Path | None = None
    baseline_file: Path | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    extend_ignore: tuple[str, ...] | None = None
    force_exclude: bool = False
    use_cache: bool = True
    cache_dir: Path | None = None
    since: str | None = None
    staged: tuple[Path, ...] | None = None
    affected_by: tuple[Path, ...] | None = None
    shard: tuple[int, int] | None = None
    jobs: int = 1
    fix: bool = False
    refresh_verified: bool = False
    write_fixes: bool = True  # False: work out what ``fix`` would change, and write nothing
    # A binary stream (standard input) whose text is checked as the file ``stdin_filename`` would
    # be; ``paths`` are not checked then. With ``fix``, nothing is written: see CheckOutcome.fixed_text.
    stdin: Any = None
    stdin_filename: Path | None = None
    # check the cited URLs against the live web (``--online``): what the user asked of the fetch
    online: OnlineRequest | None = None

    @property
    def selecting(self) -> bool:
        """Whether the run checks only what changes affect (``since``, ``staged``, ``affected_by``)."""
        return bool(self.since or self.affected_by) or self.staged is not None

    @property
    def checked_paths(self) -> list[Path]:
        return list(self.paths) or [Path.cwd()]


@dataclass
class CheckOutcome:
    """What a run found: the report, the engine that made it (its settings and rules, for rendering),
    how many files the cache answered, the files ``fix`` wrote (shown path -> ``FixResult``),
    notices for the person running it and, with a baseline, how many findings it hid."""

    engine: Engine
    report: Report
    cache_hits: int
    fixed: dict[str, Any] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    hidden_by_baseline: int | None = None  # None: no baseline
    fixed_text: str | None = None  # standard input's text once fixed (a fix of standard input)
    online_lines: list[str] = field(default_factory=list)  # what an online run fetched, per host (a summary)


def _existing_folder(named: Path | None) -> Path:
    """The deepest folder that exists on the way to the file ``named`` (which need not exist):
    where its settings are looked for."""
    folder = Path(os.path.abspath(cast(Path, named))).parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    return folder


def start_folder(paths: list[Path]) -> Path:
    """The folder whose settings apply to ``paths``: the deepest folder holding all of them."""
    if not paths:
        return Path.cwd()
    folders = [os.path.abspath(p if p.is_dir() else p.parent) for p in paths]
    return Path(os.path.commonpath(folders))


def cache_folder(option: Path | None, engine: Engine) -> Path:
    """The given cache folder, else $CITATIONS_CACHE_DIR, else the cache-dir setting below the root.
    Symlinks are left in the path: the cache refuses one that lies in the checkout
    (:func:`pytest_citations.run.cache.confined_folder`)."""
    chosen = option or os.environ.get("CITATIONS_CACHE_DIR")
    return Path(os.path.abspath(chosen)) if chosen else engine.config.root / engine.config.cache_dir


class CheckRun:
    """One check of a request. Building it reads the settings and loads the engine (start-up);
    :meth:`check` does the work."""

    def __init__(self, request: CheckRequest) -> None:
        from pytest_citations.core import baseline as baseline_module
        from pytest_citations.engine import Engine

        self.request = request
        self.online_summary: OnlineSummary | None = None  # what an online run fetched
        paths = request.checked_paths if request.stdin is None else [_existing_folder(request.stdin_filename)]
        missing = [p for p in paths if not p.exists() and not p.is_symlink()]
        if missing:
            raise RunError(f"no such file or folder: {missing[0]}")
        baseline = baseline_module.load(request.baseline_file) if request.baseline_file else None
        self.engine = engine = Engine.load(request.root or start_folder(paths), request.config_file, baseline=baseline)
        for option, codes in (("--select", request.select), ("--ignore", request.ignore),
                              ("--extend-select", request.extend_select), ("--extend-ignore", request.extend_ignore)):
            unknown = [code for code in codes or () if not any(item.code.startswith(code) for item in engine.registry.declared())]
            if unknown:
                raise RunError(f"{option}: no rule code starts with {unknown[0]!r}; `citations rules` lists them")
        engine.override(request.select, request.ignore, request.extend_select, request.extend_ignore)
        # What the run plans: a run that selects by changes and names no path looks at the whole
        # repository, wherever it runs (the changes are the repository's, and an artifact they
        # affect may lie outside the current folder).
        self.paths = [engine.config.root] if request.selecting and not request.paths else paths
        # An online run's results depend on the web, not only on files: no result cache, no record
        # (its answers are cached on their own: online/response_cache.py).
        if request.use_cache and not request.fix and request.online is None:
            engine.state.enable_cache(cache_folder(request.cache_dir, engine))
        elif request.selecting:
            engine.state.enable_cache(None)  # what each file reads must be learned, even if not kept

    def record(self) -> Request | None:
        """The request as the record of the last run knows it, when the run keeps one (it has a
        cache folder, and it does not fix). It names the baseline only when the engine applies it:
        a record :meth:`check` leaves holds the findings before the baseline."""
        request = self.request
        if self.engine.state.cache_folder is None or request.fix:
            return None
        from pytest_citations.run.replay import Request

        baseline_file = request.baseline_file if self.engine.decisions.baseline is not None else None
        return Request(self.engine, self.paths, request.force_exclude, request.shard, baseline_file)

    def check(self) -> CheckOutcome:
        """The outcome of the request. Unless it fixes, the baseline is applied here, to the whole
        report, not by the engine to each file: then how many findings it hid is known whether the
        files were checked here, in workers or answered by the record of the last run. A fix
        checks with the engine's baseline, so that what it hides is not fixed."""
        from pytest_citations.core import git_history

        baseline = self.engine.decisions.baseline
        if not self.request.fix:
            self.engine.decisions.baseline = None  # (nested roots' engines are made from it during the run)
        try:
            outcome = self._check()
        except git_history.ChangesError as exc:
            option = f"--since {self.request.since}" if self.request.since else "--staged"
            raise RunError(f"{option}: {exc}") from None
        finally:
            self.engine.decisions.baseline = baseline
        if baseline is not None and not self.request.fix:
            outcome.report, outcome.hidden_by_baseline = _after_baseline(outcome.report, baseline)
        return outcome

    def _check(self) -> CheckOutcome:
        from pytest_citations.engine import report_of
        from pytest_citations.run import parallel
        from pytest_citations.run.progress import Progress

        request, engine = self.request, self.engine
        if request.stdin is not None:
            return self._check_stdin()
        changes = _changes(request) if request.selecting else None
        record = self.record()
        if record is not None:
            replayed = record.replayed(changes)
            if replayed is not None:
                report, kept = replayed
                return CheckOutcome(engine, report, kept)
        fixed: dict[str, Any] = {}
        notices: list[str] = []
        counts_hidden = request.fix and request.write_fixes and engine.decisions.baseline is not None  # (--diff: no summary)
        hidden: list[int] | None = [] if counts_hidden else None
        progress = Progress()
        if not request.fix:  # a fix goes one file after another
            parallel.claim_in_workers(engine, request.jobs)
        try:
            fixer = _fixer(fixed, notices, request.refresh_verified, request.write_fixes, hidden) if request.fix else None
            planned, tasks, results = self._run_tasks(changes, progress, fixer)
            caches = [e.state.cache for e in (engine, *engine.nested_engines) if e.state.caching and e.state.cache is not None]
            hits = sum(cache.hits for cache in caches)
            if record is not None and changes is not None:
                _record_every_file(record, planned, dict(zip(tasks, results, strict=True)), request.jobs)
        except parallel.WorkerError as exc:  # a file not checked: the run must not pass, as for a C006
            raise RunError(f"{exc} while checking files (-j {request.jobs}): the check is incomplete") from None
        finally:
            progress.close()
        report = report_of(tasks, results)
        if record is not None and not request.selecting and not any(d.code == INTERNAL_ERROR for d in report.diagnostics):
            record.record(tasks, results)
        engine.save_cache()
        outcome = CheckOutcome(engine, report, hits, fixed, notices, None if hidden is None else sum(hidden))
        if self.online_summary is not None:
            notices.extend(self.online_summary.notices)
            outcome.online_lines = self.online_summary.lines()
        return outcome

    def _check_stdin(self) -> CheckOutcome:
        """Standard input checked as the file ``stdin_filename``: claimed by its path and the head
        of the text, read within the limits a file is read within, its findings under that path;
        what its rules read of other files comes from disk. No cache, no record of the run."""
        from pytest_citations.core import sources
        from pytest_citations.discovery import SNIFF_BYTES
        from pytest_citations.engine import Report
        from pytest_citations.rules import Finding

        request, engine = self.request, self.engine
        named = cast(Path, request.stdin_filename)
        rel = engine.relative(named)
        if rel is None:
            return CheckOutcome(engine, Report(engine.outside_root(named.as_posix()), [named.as_posix()]), 0)
        data = sources.read_stream(request.stdin, engine.config.max_file_size)
        head = data[:SNIFF_BYTES].decode("utf-8", "replace")
        if request.force_exclude and engine.discovery.is_excluded(rel):
            return CheckOutcome(engine, Report([], []), 0, notices=["warning: no artifact files found under the given paths"])
        kinds = engine.discovery.kinds_of_text(rel, head, data)
        if not kinds:
            notice = f"warning: {rel} is not checked: no kind claims it (see \"Which files are checked\" in docs/configuration.md)"
            return CheckOutcome(engine, Report([], []), 0, notices=[notice])
        try:
            source = sources.source_of_bytes(engine.config.root, rel, data, engine.config.max_file_size)
        except sources.SourceError as exc:
            unread = engine.runner.diagnostic(exc.code, Finding(exc.message, exc.line, exc.col), rel)
            return CheckOutcome(engine, Report([unread] if unread else [], [rel]), 0)
        if not request.fix:
            return CheckOutcome(engine, Report(engine.check_file(rel, kinds, source=source), [rel]), 0)
        from pytest_citations.run.fix import fix_file

        result = fix_file(engine, rel, kinds, request.refresh_verified, write=False, given=source)
        fixed = {rel: result} if result.written else {}
        text = (sources.BOM if source.has_bom else "") + result.after
        return CheckOutcome(engine, Report(result.diagnostics, [rel]), 0, fixed, fixed_text=text)

    def _run_tasks(
        self, changes: Changes | None, progress: Progress, fix_and_check: Callable | None
    ) -> tuple[list[Task], list[Task], list[list[Diagnostic]]]:
        """The tasks planned (the request's shard), those of them checked (what its changes
        affect, or all) and the diagnostics of each checked one."""
        from pytest_citations.engine import run_task
        from pytest_citations.run import parallel

        request = self.request
        planned = tasks = self.engine.plan(self.paths, request.force_exclude)
        if request.shard:
            from pytest_citations.run.selection import shard_of

            planned = tasks = shard_of(tasks, request.shard)
        known: dict[Task, list[Diagnostic]] = {}
        if changes is not None:
            tasks, known = _affected_tasks(tasks, changes, request.jobs, progress)
        if request.online is not None:
            self.online_summary = self.fetch_cited(tasks)
        if fix_and_check is not None:  # one file after another: a fix may change what the next file reads
            fix_and_check = progress.wrap(fix_and_check)
            return planned, tasks, [run_task(task, fix_and_check) for task in tasks]
        if known:
            todo = [task for task in tasks if task not in known]
            checked = dict(zip(todo, parallel.check(todo, request.jobs, progress.advance), strict=True))
            return planned, tasks, [known[task] if task in known else checked[task] for task in tasks]
        return planned, tasks, parallel.check(tasks, request.jobs, progress.advance)


    def fetch_cited(self, tasks: list[Task]) -> OnlineSummary:
        """Fetch what ``tasks`` cite and give the answers to their engines, for the online rules;
        the answers are cached in the cache folder unless the run uses no cache."""
        from pytest_citations.online.run import OnlineUnavailable, fetch
        from pytest_citations.run.cache import prepare_folder, usable_folder

        request, engine = self.request, self.engine
        folder = usable_folder(cache_folder(request.cache_dir, engine), engine.config.root) if request.use_cache else None
        if folder is not None:
            try:
                prepare_folder(folder)
            except OSError:
                folder = None
        try:
            return fetch(engine, tasks, cast("OnlineRequest", request.online), folder)
        except OnlineUnavailable as exc:
            raise RunError(str(exc)) from None


def _fixer(fixed: dict[str, Any], notices: list[str], refresh: bool, write: bool = True,
           hidden: list[int] | None = None) -> Callable:
    """A check_file for ``fix`` that fixes as it checks (and, with ``refresh``, records verification),
    keeping the :class:`~pytest_citations.run.fix.FixResult` of each written file by its shown path
    in ``fixed``; a file that changed while it was fixed is checked as it is, and said in ``notices``.
    With ``hidden``, how many findings the baseline hid in each file is added to it."""
    from pytest_citations.run.fix import FileChangedError, fix_file

    def fix_and_check(owner, rel, kinds):
        try:
            result = fix_file(owner, rel, kinds, refresh, write)
        except FileChangedError as exc:
            notices.append(str(exc))
            found = owner.check_file(rel, kinds)
        else:
            if result.written:
                fixed[owner.display_prefix + rel] = result
            found = result.diagnostics
        if hidden is not None:
            hidden.append(_hidden_in_file(owner, rel, kinds, found))
        return found

    return fix_and_check


def _hidden_in_file(owner: Engine, rel: str, kinds: tuple, shown: list[Diagnostic]) -> int:
    """How many findings the baseline hid in a file that has just been fixed, of which ``shown``
    were shown: the file is checked once more without the baseline (only one the baseline names)."""
    baseline = owner.decisions.baseline
    if not baseline or owner.display_prefix + rel not in baseline:
        return 0
    owner.decisions.baseline = None
    try:
        return len(owner.check_file(rel, kinds)) - len(shown)
    finally:
        owner.decisions.baseline = baseline


def _after_baseline(report: Report, baseline: Any) -> tuple[Report, int]:
    """``report`` without what ``baseline`` records, file by file, and how many findings that hid."""
    from pytest_citations.core import baseline as baseline_module
    from pytest_citations.engine import Report

    by_file: dict[str, list[Diagnostic]] = {}
    for diagnostic in report.diagnostics:  # (sorted by path first: each file's stay in their order)
        by_file.setdefault(diagnostic.path, []).append(diagnostic)
    kept = [d for found in by_file.values() for d in baseline_module.subtract(found, baseline)]
    return Report(kept, report.files), len(report.diagnostics) - len(kept)


def _changes(request: CheckRequest) -> Changes:
    """The changes the request names (:class:`selection.Changes`): the changed paths of each root,
    relative to it (git is asked once per root), with the files named in ``staged`` or
    ``affected_by``, and for ``since`` and ``staged`` the text a changed path had at the merge base
    or at HEAD. Git is asked only about the checkout's own repository: every file of a root that
    lies in a repository nested in it counts as changed."""
    from pytest_citations.core import git_history, sources
    from pytest_citations.run import selection

    found: dict[Path, git_history.Changes] = {}
    named = [Path(os.path.abspath(p)) for p in request.affected_by or request.staged or ()]
    asks_git = bool(request.since) or request.staged is not None

    def listed(engine: Engine) -> git_history.Changes:
        root = engine.config.root
        if root not in found:
            found[root] = (git_history.changes_since(root, request.since) if request.since
                           else git_history.staged_changes(root))
        return found[root]

    def changed_for(engine: Engine) -> set[str]:
        paths = {rel for rel in map(engine.relative, named) if rel is not None}
        if not asks_git:
            return paths
        changes = listed(engine)
        if not changes.unlisted:
            return changes.paths | paths
        # a root inside a repository nested in the checkout, whose changes git is not asked for:
        # its settings count as changed, so every file of it is checked
        settings = engine.discovery.settings_rel()
        if settings is None:
            raise git_history.ChangesError(changes.unlisted)
        return paths | {settings}

    def earlier(engine: Engine, rels: list[str]) -> dict[str, str | None]:
        texts = {}
        for rel, data in git_history.files_at(engine.config.root, listed(engine).base, rels,
                                              engine.config.max_file_size).items():
            try:
                texts[rel] = None if data is None else sources.decode_text(data)
            except sources.SourceError:  # not UTF-8 then: left out, as git cannot tell of it
                continue
        return texts

    return selection.Changes(changed_for, earlier if asks_git else None)


def _record_every_file(record: Request, planned: list[Task], checked: dict[Task, list[Diagnostic]], jobs: int) -> None:
    """A run that selects by changes, and that the record of the last run could not answer, checks
    the files it did not select too, through the result cache (what nothing changed in is an entry
    of it), and leaves the record a check of every file would: the next run that selects (the next
    commit's pre-commit hook) is answered by it, though such runs never check every file."""
    from pytest_citations.run import parallel

    rest = [task for task in planned if task not in checked]
    found = dict(zip(rest, parallel.check(rest, jobs, lambda shown: None), strict=True))
    results = [checked[task] if task in checked else found[task] for task in planned]
    if not any(d.code == INTERNAL_ERROR for result in results for d in result):
        record.record(planned, results)


def _affected_tasks(tasks, changes, jobs: int, progress) -> tuple[list, dict]:
    """The tasks a change affects, and the diagnostics of those that had to be checked to learn
    what they read (kept only when they turned out to read a changed path, or crashed)."""
    from pytest_citations.run import parallel, selection

    certain, unknown = selection.affected(tasks, changes)
    learned = parallel.check(unknown, jobs, progress.advance)
    known = {
        task: found for task, found in zip(unknown, learned, strict=True)
        if selection.learned_affected(task, changes) or any(d.code == INTERNAL_ERROR for d in found)
    }
    chosen = set(certain) | set(known)
    return [task for task in tasks if task in chosen], known
