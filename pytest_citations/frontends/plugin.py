"""``pytest --citations``: every artifact file is one item, ``path::citations``.

Nothing changes without the flag. Errors fail the item and are shown as ``path:line:col: CODE
message`` with the offending line, never a traceback; warnings pass and are reported through
pytest's warnings summary (which also carries them back from xdist workers). ``-W
error::pytest_citations.frontends.plugin.CitationsWarning`` makes warnings fail the item like errors.

The artifacts are those ``citations check`` checks with the same paths: those named on the
command line, else the folder pytest was started in, whatever ``testpaths`` says (it tells pytest
where its tests are, not where the repository's artifacts are). pytest's own walk finds most of
them; the rest (in folders ``norecursedirs`` skips, outside ``testpaths``, dangling symlinks) are
collected after it, by :class:`CitationsRemainder`.

Paths in the output are shown as pytest shows paths in tracebacks: relative to the directory
pytest was started in, as ``citations check`` shows them.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import os
import re
import shlex
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

from pytest_citations.core.config import ConfigError, find_settings
from pytest_citations.discovery import walk_files
from pytest_citations.engine import Engine
from pytest_citations.frontends.shown_paths import shown_from

if TYPE_CHECKING:
    from typing import TypedDict

    from pytest_citations.core.diagnostics import Diagnostic
    from pytest_citations.online.run import OnlineRequest, OnlineSummary
    from pytest_citations.run.checking import CheckRun
    from pytest_citations.run.replay import Answers, Request

    class _NodeNames(TypedDict, total=False):
        """The keyword arguments of :func:`_node_names` for a node's ``from_parent``."""

        name: str | None
        nodeid: str

ITEM_NAME = "citations"
_ONLINE_FIXABLE = re.compile(r": W[0-9]{3} \[\*\]")  # a fixable online finding, as an item shows it
WORKER_CACHE_KEY = "citations_cache"
_SENT_REPR = "citations_diagnostics"  # a failing item's DiagnosticsRepr in a report sent by an xdist worker


def _cache_folder(config: pytest.Config) -> Path | None:
    """The result cache's folder inside pytest's cache; None without pytest's cache provider
    (``-p no:cacheprovider``), or when the checkout leads it out of the repository: by a symlink
    in the repository, or by its own pytest settings (``cache_dir``; ``-o cache_dir=...`` on the
    command line may place it anywhere). ``--cache-clear`` empties it with the rest."""
    from pytest_citations.run.cache import confined_folder

    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    folder, root = cache.mkdir("citations"), config.rootpath
    inside = os.path.normpath(folder).startswith(os.path.join(os.path.normpath(root), ""))
    if not (inside or _set_on_the_command_line(config, "cache_dir")):
        return None
    return confined_folder(folder, root)


def _users_arguments(config: pytest.Config) -> list[str]:
    """The arguments the user gave: the command line and ``PYTEST_ADDOPTS``, never the ``addopts``
    of the checkout's pytest settings (which pytest puts among them, and a pull request writes)."""
    return [*map(str, config.invocation_params.args), *shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))]


def _set_on_the_command_line(config: pytest.Config, name: str) -> bool:
    """Whether the ini option ``name`` was given with ``-o``/``--override-ini`` by the user (the
    command line or ``PYTEST_ADDOPTS``), rather than in a settings file of the checkout."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("-o", "--override-ini", action="append", default=[])
    given = parser.parse_known_args(_users_arguments(config))[0].override_ini
    return any(entry.split("=", 1)[0].strip() == name for entry in given)


def _users_online_options(config: pytest.Config) -> argparse.Namespace:
    """``--citations-online`` and its options as the user gave them (see :func:`_users_arguments`):
    the checkout may not turn the online check on, allow a host or map one."""
    from pytest_citations.online.options import add_options

    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--citations-online", action="store_true")
    add_options(parser.add_argument, "--citations-online")
    return parser.parse_known_args(_users_arguments(config))[0]


class CitationsWarning(UserWarning):
    """A warning-severity diagnostic; it does not fail the item."""


def _warn(diagnostic: Diagnostic, path: str) -> None:
    """Issue ``diagnostic`` as a :class:`CitationsWarning` located at its line of the artifact at
    ``path``, so that pytest's warnings summary names that file and line (not this module), and
    shows under it the window of the line the diagnostic keeps, as ``citations check`` does.

    Python's warnings would read the line from the file (``linecache``: the whole file, outside
    ``sources.py``) and pytest would print all of it for each warning, so the warning is caught
    as the filters let it through and shown again with its line given: the filters decide as
    before (``-W error::...CitationsWarning`` raises here), and nothing reads the file."""
    from pytest_citations.frontends.reporters.text import format_diagnostic

    message = "\n".join(format_diagnostic(diagnostic, show_source=False))
    with warnings.catch_warnings(record=True) as caught:
        warnings.warn_explicit(CitationsWarning(message), CitationsWarning, path, diagnostic.line)
    for shown in caught:
        warnings.showwarning(shown.message, shown.category, shown.filename, shown.lineno, line=_window_of_line(diagnostic))


def _window_of_line(diagnostic: Diagnostic) -> str:
    """What ``citations check`` shows of the diagnostic's line (none when it keeps no line)."""
    from pytest_citations.frontends.reporters._common import source_lines

    return source_lines(diagnostic.context, diagnostic.col, diagnostic.context_start)[0].strip() if diagnostic.context else ""


class CitationsFailure(Exception):
    def __init__(self, diagnostics) -> None:
        super().__init__(f"{len(diagnostics)} citation problems")
        self.diagnostics = diagnostics


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("citations", "citation checks (pytest-citations)")
    group.addoption("--citations", action="store_true", default=False, help="check citation artifacts as test items")
    group.addoption("--citations-config", metavar="FILE", default=None, help="settings file instead of the nearest pyproject.toml")
    group.addoption("--citations-baseline", metavar="FILE", default=None, help="report only diagnostics not recorded in FILE")
    group.addoption("--citations-online", action="store_true", default=False,
                    help="fetch every URL the artifacts cite and run the online rules (W7xx), as citations check --online")
    from pytest_citations.online.options import add_options

    add_options(group.addoption, "--citations-online")


@pytest.hookimpl(trylast=True)  # after the cache provider has set up config.cache
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "citations: a citation artifact check (pytest-citations)")
    if _users_online_options(config).citations_online and not config.getoption("citations"):
        raise _usage_error("citations: --citations-online checks what --citations collects: add --citations")
    if config.getoption("citations"):
        _defuse_terminal(config)
        with _unforeseen_errors_as(_usage_error):
            collector = CitationsCollector(config)
            # Settings that govern the paths checked are read now, so that a bad setting is a usage
            # error before any collection (and before xdist starts workers).
            collector.load_settings_for(collector.paths)
        config.pluginmanager.register(collector, "citations-collector")


def _defuse_terminal(config: pytest.Config) -> None:
    """Pass every line pytest prints to the terminal through a :class:`DefusedStream`, so that no
    line of it starts a CI workflow command (``frontends/reporters/ci_log.py``): pytest itself prints the
    artifacts' paths (progress, node ids, headers), their lines (the warnings summary shows a window
    of each warning's line, see :func:`_warn`) and what the checks found. One place for all of it, the
    terminal writer's stream, which every report of the session (xdist's included) goes through."""
    from pytest_citations.frontends.reporters.ci_log import DefusedStream

    writer = getattr(config.pluginmanager.get_plugin("terminalreporter"), "_tw", None)
    if writer is not None and not isinstance(writer._file, DefusedStream):
        writer._file = DefusedStream(writer._file)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Write the last characters the terminal's :class:`DefusedStream` held back, if any."""
    from pytest_citations.frontends.reporters.ci_log import DefusedStream

    stream = getattr(getattr(config.pluginmanager.get_plugin("terminalreporter"), "_tw", None), "_file", None)
    if isinstance(stream, DefusedStream):
        stream.drain()


# pytest's own ways to end a session or a collection, which pass through as they are
_PYTESTS_OWN = (pytest.UsageError, pytest.exit.Exception, pytest.Collector.CollectError)


@contextlib.contextmanager
def _unforeseen_errors_as(error: Callable[[str], BaseException]):
    """An exception this plugin did not foresee (a bug), raised as ``error(text)``, ``text`` being
    its one line from :func:`~pytest_citations.frontends.internal_error.internal_error`: never a
    traceback, whose text may quote the checkout, printed where pytest does not defuse it."""
    try:
        yield
    except _PYTESTS_OWN:
        raise
    except Exception as exc:
        raise error(_internal_error_line(exc)) from None


def _internal_error_line(exc: BaseException) -> str:
    from pytest_citations.frontends.internal_error import internal_error

    return f"citations: {internal_error(exc)}"


def _collect_error(message: str) -> pytest.Collector.CollectError:
    """A collection error that pytest shows as its message alone (through the defused terminal),
    and that ends the session as any collection error does (exit 2)."""
    return pytest.Collector.CollectError(message)


def _usage_error(message: str) -> pytest.UsageError:
    """A usage error to end the session with: pytest prints it on standard error, outside the
    terminal writer, so it is defused here (it may quote settings or a baseline from the checkout)."""
    from pytest_citations.frontends.reporters.ci_log import defuse_text

    return pytest.UsageError(defuse_text(message))


class CitationsCollector:
    """Finds artifact files among the files pytest visits, with one engine per settings root."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        option = config.getoption("citations_config")
        self.config_file = Path(option).resolve() if option else None
        baseline = config.getoption("citations_baseline")
        self.baseline_file = Path(baseline) if baseline else None  # read by each root's run (engine_for)
        self.cache_folder = _cache_folder(config)
        self.paths = self._checked_paths()
        self._real: dict[Path, Path] = {}
        self._roots: dict[Path, Path | pytest.UsageError] = {}
        self._engines: dict[Path, Engine | pytest.UsageError] = {}
        self._errors: list[str] = []
        # a folder pytest visits -> (its files' engine, their root-relative prefix), or a bad setting's error
        self._folders: dict[str, tuple[Engine, str | None] | pytest.UsageError] = {}
        self._linked: dict[str, bool] = {}  # a folder pytest visits -> whether it lies in a symlinked folder
        self._received: dict = {}  # xdist controller: cache key -> cache the workers' entries go to
        # engine id -> (the request of its files in this session, the answers of its record or None)
        self._records: dict[int, tuple[Request, Answers | None]] = {}
        self.items: list[CitationsItem] = []  # every item collected, to record what they found
        self.notices: list[str] = []  # said at the end of the session, with the online summary
        self.online = self._online_request()
        self._first_run: CheckRun | None = None  # the run whose cache folder keeps the web's answers
        self.online_summary: OnlineSummary | None = None
        self._reached: set[tuple[Path, str]] = set()  # (root, rel) of every artifact file collected

    def _online_request(self) -> OnlineRequest | None:
        from pytest_citations.online.options import given, online_request

        if self._in_worker:  # (xdist gives a worker the options its controller vetted, below)
            read = self.config.getoption
        else:
            users = _users_online_options(self.config)
            if given(self.config.getoption, "--citations-online") != given(lambda name: getattr(users, name), "--citations-online") \
                    or self.config.getoption("citations_online") != users.citations_online:
                self.notices.append("warning: the online options in the repository's pytest settings (addopts) are "
                                    "ignored: only the command line and PYTEST_ADDOPTS ask for the online check")
            for name, value in vars(users).items():
                setattr(self.config.option, name, value)  # what xdist passes on to its workers
            read = self.config.getoption

        if not read("citations_online"):
            options = given(read, "--citations-online")
            if options:
                raise _usage_error(f"citations: {options[0]} tells the online check how to fetch: add --citations-online")
            return None
        return online_request(read, "--citations-online")

    def load_settings_for(self, paths: list[Path]) -> None:
        for path in paths:
            self.engine_for(self.real_folder(path if path.is_dir() else path.parent))

    def _checked_paths(self) -> list[Path]:
        """The paths whose artifacts this session checks, as ``citations check`` would be given
        them: those of pytest's arguments (node ids without their ``::`` parts) given on the
        command line, else the folder pytest was started in. pytest's own defaults say where its
        tests are, not which artifacts the repository has: ``testpaths``, and paths in
        ``addopts`` (which pytest puts before the command line's arguments)."""
        base = self.config.invocation_params.dir
        if self.config.args_source is not pytest.Config.ArgsSource.ARGS:
            return [base]
        typed = {str(arg) for arg in self.config.invocation_params.args}
        named = [arg for arg in self.config.args if str(arg) in typed]
        return [base / str(arg).split("::", 1)[0] for arg in named] or [base]

    def real_folder(self, folder: Path) -> Path:
        """``folder`` with symlinks resolved, as the repository root always is, so that a file
        reached through a symlinked folder is still inside its root (the file itself is not
        resolved: the engine decides about a symlinked file)."""
        real = self._real.get(folder)
        if real is None:
            real = self._real[folder] = Path(os.path.realpath(folder))
        return real

    def engine_for(self, folder: Path) -> Engine:
        """The engine for files in ``folder`` (a real path); a bad setting is a UsageError,
        remembered so that it is read once."""
        key: Path | pytest.UsageError
        if self.config_file is not None:
            key = self.config_file
        else:
            if folder not in self._roots:
                try:
                    self._roots[folder] = find_settings(folder)[0]
                except ConfigError as exc:  # an unreadable pyproject.toml
                    self._roots[folder] = _usage_error(f"citations: {exc}")
            key = self._roots[folder]
            if isinstance(key, pytest.UsageError):
                raise key
        engine: Engine | pytest.UsageError
        if key not in self._engines:
            from pytest_citations.core.baseline import BaselineError
            from pytest_citations.run.checking import RunError

            try:
                run = self._run_for(key)
            except BaselineError as exc:  # a usage error before anything is collected (see pytest_configure)
                raise _usage_error(str(exc)) from None
            except (ConfigError, RunError) as exc:
                self._engines[key] = _usage_error(f"citations: {exc}")
            else:
                self._engines[key] = run.engine
                self._first_run = self._first_run or run
                record = run.record()
                if record is not None and not self._in_worker:  # (workers' runs are recorded by no one: see sessionfinish)
                    from pytest_citations.run.replay import Answers

                    self._records[id(run.engine)] = record, Answers.of(record)
        engine = self._engines[key]
        if isinstance(engine, pytest.UsageError):
            raise engine
        return engine

    def _run_for(self, root: Path) -> CheckRun:
        """The run of this session's paths for the settings root ``root``, as ``citations check``
        would make it: the same settings, baseline, cache and record of the last run."""
        from pytest_citations.run.checking import CheckRequest, CheckRun

        return CheckRun(CheckRequest(
            paths=tuple(self.paths), root=root, config_file=self.config_file, baseline_file=self.baseline_file,
            use_cache=self.cache_folder is not None, cache_dir=self.cache_folder, online=self.online,
        ))

    def pytest_collection_finish(self, session) -> None:
        """In an online session, fetch what the collected files cite before any is checked (in each
        xdist worker, for the files it collected: every one)."""
        if self.online is None or self._first_run is None or not self.items:
            return
        from pytest_citations.engine import Task
        from pytest_citations.run.checking import RunError

        tasks = list({item.parent.key: Task(item.parent.engine, item.parent.rel, item.parent.kinds)
                      for item in self.items}.values())
        with _unforeseen_errors_as(_usage_error):
            try:
                self.online_summary = self._first_run.fetch_cited(tasks)
            except RunError as exc:
                raise _usage_error(f"citations: {exc}") from None

    def answers(self, engine: Engine) -> Answers | None:
        """What the record of ``engine``'s last run answers in this session; None: nothing."""
        return self._records.get(id(engine), (None, None))[1]

    @pytest.hookimpl(tryfirst=True)
    @_unforeseen_errors_as(_collect_error)
    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config):
        """Enter hidden folders that a kind's include names (``.serena/memories``), which pytest's
        default ``norecursedirs`` would skip; leave a folder more than 32 folders below every
        checked path to :class:`CitationsRemainder` (pytest walks folders by recursion, in time
        that grows with the square of their depth, and a checkout may nest them a thousand deep);
        leave every other decision to pytest. A folder pytest enters only because of this hook (in
        a hidden folder) is left to :class:`CitationsRemainder` too when pytest's walk could not
        list it (see :func:`_pytest_can_list`): pytest would end the session there."""
        under = [collection_path.parts[len(path.parts):] for path in self.paths if collection_path.is_relative_to(path)]
        if under and min(map(len, under)) > 32 and collection_path.is_dir():
            return True
        hidden = any(part.startswith(".") for parts in under for part in parts)
        if hidden and collection_path.is_dir() and not _pytest_can_list(collection_path):
            return True
        if not collection_path.name.startswith(".") or not collection_path.is_dir():
            return None
        try:
            engine = self.engine_for(self.real_folder(collection_path.parent))
        except pytest.UsageError:
            return None
        rel = engine.relative(collection_path)
        if rel is None or engine.discovery.is_excluded(rel):
            return None
        return False if engine.discovery.includes_folder(rel) else None

    def _in_a_symlinked_folder(self, folder: str) -> bool:
        """Whether ``folder`` lies in a symlinked folder below the path the session checks that
        holds it (a path named on the command line may itself be one)."""
        found = self._linked.get(folder)
        if found is None:
            parent, name = os.path.split(folder)
            named = not name or any(_same_folder(folder, path) for path in self.paths)
            found = not named and (os.path.islink(folder) or self._in_a_symlinked_folder(parent))
            self._linked[folder] = found
        return found

    def _folder(self, folder: str) -> tuple[Engine, str | None] | pytest.UsageError:
        """(the engine of a folder's files, their root-relative prefix or None outside its root),
        worked out once per folder, as thousands of files may share one; or a bad setting's error."""
        found = self._folders.get(folder)
        if found is None:
            real = self.real_folder(Path(folder))
            try:
                engine = self.engine_for(real)
            except pytest.UsageError as exc:
                found = exc
            else:
                found = (engine, engine.discovery.folder_prefix(str(real)))
            self._folders[folder] = found
        return found

    @_unforeseen_errors_as(_collect_error)
    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector):
        folder, name = os.path.split(str(file_path))
        if self._in_a_symlinked_folder(folder):
            return None  # (citations check never walks one either: it may lead out of the checkout)
        found = self._folder(folder)
        if isinstance(found, pytest.UsageError):
            return self._settings_error(found, parent, file_path)
        engine, prefix = found
        if prefix is None:
            return None
        rel = prefix + name
        if engine.discovery.is_excluded(rel) and not parent.session.isinitpath(file_path):  # (named: checked anyway)
            return None
        # The name pytest would work out with Path.relative_to, given when the parent is the folder.
        known = name if str(parent.path) == folder else None
        return self._artifact(parent, file_path, engine, rel, known)

    def _artifact(self, parent: pytest.Collector, path: Path, engine: Engine, rel: str, name: str | None = None):
        """The node of the file at ``path`` (``rel`` from ``engine``'s root) if a kind claims it."""
        answers = self.answers(engine)
        claimed = None if answers is None else answers.claim(rel)
        kinds = engine.kinds_for(rel) if claimed is None else engine.discovery.kinds_named(claimed)
        if not kinds:
            return None
        return CitationsFile.from_parent(parent, path=path, engine=engine, kinds=kinds, rel=rel, collector=self,
                                         **_node_names(parent, path, name))

    def _settings_error(self, error: pytest.UsageError, parent: pytest.Collector, path: Path):
        """Raised while collecting, a bad setting would become a collection error with a traceback:
        it is kept for pytest_collection_modifyitems, which ends the session with a usage error.
        An xdist worker's usage error never reaches the controller, so a worker reports it as a
        collection error instead (once per message; the controller drops repeats)."""
        message = str(error)
        if message in self._errors:
            return None
        self._errors.append(message)
        if self._in_worker:
            return SettingsErrorFile.from_parent(parent, path=path, message=message)
        return None

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        """Remember each artifact file collected (``--lf`` may leave its items out: it is still
        reached), so that :meth:`unreached` does not collect it again."""
        if isinstance(collector, CitationsFile):
            self._reached.add(collector.key)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_make_collect_report(self, collector: pytest.Collector):
        """The session's collectors, then one for the artifacts pytest's walk will not reach. Its
        collection comes after theirs (pytest collects depth first, in order), so it knows every
        file they collected; tryfirst makes it the outermost wrapper, so that no other wrapper (the
        ``--lf`` plugin sorts the session's collectors) moves it ahead of them."""
        report = yield
        if isinstance(collector, pytest.Session) and report.passed and any(path.is_dir() for path in self.paths):
            invoked = self.config.invocation_params.dir
            report.result.append(CitationsRemainder.from_parent(collector, name=ITEM_NAME, path=invoked, collector=self))
        return report

    def unreached(self, parent: pytest.Collector):
        """The nodes of the artifacts under the folders checked that no collector reached: those
        the walk of ``citations check`` finds, from each folder's root, with its settings."""
        for path in self.paths:
            if path.is_dir():
                yield from self._unreached_below(parent, path)

    def _unreached_below(self, parent: pytest.Collector, folder: Path):
        """Those below ``folder`` (as given: the nodes' paths are shown from it), and below the
        folders under it that have settings of their own, each with its own engine."""
        real = self.real_folder(folder)
        try:
            engine = self.engine_for(real)
            prefix = engine.discovery.folder_prefix(str(real))
            if prefix is None:  # --citations-config names another root: no file of it is below
                return
            files, nested = _files_below(engine, real)
        except pytest.UsageError as exc:
            error = self._settings_error(exc, parent, folder)
            if error is not None:
                yield error
            return
        for rel in files:
            key = (engine.config.root, rel)
            if key not in self._reached and (node := self._artifact(parent, folder / rel[len(prefix):], engine, rel)):
                self._reached.add(key)
                yield node
        for rel in nested:
            yield from self._unreached_below(parent, folder / rel[len(prefix):])

    @property
    def _in_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def _caches(self) -> list:
        """The result caches this session opened (one answered by its record alone was not)."""
        engines = [engine for engine in self._engines.values() if isinstance(engine, Engine)]
        return [engine.state.opened_cache for engine in engines if engine.state.opened_cache is not None]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        """xdist controller: take the cache entries a worker computed (it writes none itself)."""
        for changes in getattr(node, "workeroutput", {}).get(WORKER_CACHE_KEY, []):
            if not self._received:
                self._received.update({cache.key: cache for cache in self._caches()})
            cache = self._received.get(changes["key"])
            if cache is None and self.cache_folder is not None:
                from pytest_citations.run.cache import ResultCache

                cache = self._received[changes["key"]] = ResultCache(self.cache_folder, Path(changes["root"]), changes["key"])
            if cache is not None:
                cache.absorb(changes)

    def pytest_sessionfinish(self, session) -> None:
        if self._in_worker:
            # (xdist gives a worker's config its workeroutput, which pytest's Config does not declare)
            self.config.workeroutput[WORKER_CACHE_KEY] = [  # type: ignore[attr-defined]
                {**cache.take_changes(), "root": str(cache.root)} for cache in self._caches()
            ]
            return
        try:
            self._record_runs()
            for cache in {id(c): c for c in [*self._caches(), *self._received.values()]}.values():
                cache.save()
        except _PYTESTS_OWN:
            raise
        except Exception as exc:  # (pytest would let it out of pytest.main: a traceback printed raw)
            self._end_with_internal_error(session, exc)

    def _end_with_internal_error(self, session: pytest.Session, exc: Exception) -> None:
        """Say that the session met an internal error, in one line through the defused terminal,
        and end it with pytest's status for one (3)."""
        from pytest_citations.frontends.reporters.ci_log import defuse_text

        line = _internal_error_line(exc)
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(line)
        else:
            sys.stderr.write(defuse_text(line) + "\n")
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR

    def _record_runs(self) -> None:
        """Leave a record of each engine's run, when every one of its items ran here, none
        crashed (C006), and the engine checked at least one of them (else the record it answered
        from still stands)."""
        from pytest_citations.engine import Task

        for engine in (e for e in self._engines.values() if isinstance(e, Engine)):
            request, answers = self._records.get(id(engine), (None, None))
            items = [item for item in self.items if item.parent.engine is engine]
            if request is None or not items or any(item.found is None for item in items):
                continue
            found = cast("list[list[Diagnostic]]", [item.found for item in items])  # (none is None: see above)
            if (answers is not None and answers.used == len(items)) or any(
                    d.code == "C006" for diagnostics in found for d in diagnostics):
                continue
            request.record([Task(engine, item.parent.rel, item.parent.kinds) for item in items], found)

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_to_serializable(self, report) -> dict | None:
        """An xdist worker's report of a failing citation item, with its diagnostics and summary line
        kept as they are (pytest would send the text alone, and the short test summary would then
        show its first line instead of the first finding)."""
        longrepr = getattr(report, "longrepr", None)
        if not isinstance(longrepr, DiagnosticsRepr):
            return None
        data = report._to_json()
        data["$report_type"] = type(report).__name__
        crash = longrepr.reprcrash
        # as bytes: a name that is not UTF-8 holds a lone surrogate, which the wire cannot carry as text
        data[_SENT_REPR] = {
            "lines": [_to_wire(line) for line in longrepr.lines],
            "crash": [_to_wire(crash.path), crash.lineno, _to_wire(crash.message)],
        }
        return data

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_from_serializable(self, data: dict) -> pytest.TestReport | None:
        """The controller's side of :meth:`pytest_report_to_serializable`."""
        sent = data.get(_SENT_REPR)
        if sent is None or data.get("$report_type") != "TestReport":
            return None
        report = pytest.TestReport._from_json({key: value for key, value in data.items() if key != _SENT_REPR})
        path, lineno, message = sent["crash"]
        lines = [_from_wire(line) for line in sent["lines"]]
        report.longrepr = DiagnosticsRepr(lines, Crash(_from_wire(path), lineno, _from_wire(message)))  # type: ignore[assignment]  # pytest shows any object with toterminal()
        return report

    def pytest_terminal_summary(self, terminalreporter) -> None:
        """After failing citation items, what ``[*]`` marks and how to read about a rule, as
        ``citations check`` says below its findings."""
        from pytest_citations.frontends.reporters.text import FIX_LEGEND, ONLINE_FIX_LEGEND, RULE_HINT

        if self.online_summary is not None and not self._in_worker:
            for line in [*self.online_summary.notices, *self.online_summary.lines()]:
                terminalreporter.write_line(f"citations: {line}")
        if not self._in_worker:
            for notice in self.notices:
                terminalreporter.write_line(f"citations: {notice}")
        failed = [r for r in terminalreporter.stats.get("failed", ()) if r.nodeid.endswith(f"::{ITEM_NAME}")]
        if not failed:
            return
        shown = [str(report.longrepr) for report in failed]
        fixable = any("[*]" in text for text in shown)
        legend = ONLINE_FIX_LEGEND if any(_ONLINE_FIXABLE.search(text) for text in shown) else FIX_LEGEND
        terminalreporter.write_line(" ".join([*([f"[*] {legend}."] if fixable else []), RULE_HINT]))

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self) -> None:
        if self._errors and not self._in_worker:
            raise pytest.UsageError(*self._errors)


def _same_folder(folder: str, path: Path) -> bool:
    """Whether ``folder`` is ``path`` as named (not merely the same folder: a symlink to the
    checked folder, ``loop -> .``, is a symlinked folder like any other)."""
    return os.path.normpath(folder) == os.path.normpath(path)


def _node_names(parent: pytest.Collector, path: Path, name: str | None) -> _NodeNames:
    """The name (and node id) of the node of the file at ``path``: pytest's, unless pytest could
    not print or store them as they are. A file name that is not UTF-8 holds lone surrogates, which
    pytest's cache and JUnit XML cannot write, and one with control characters breaks pytest's
    lines: such a node is named as the text format shows the path, with escapes for those."""
    from pytest_citations.frontends.reporters._common import safe

    if safe(str(path)) == str(path):
        return {"name": name}
    try:
        rel = path.relative_to(parent.config.rootpath).as_posix()
    except ValueError:
        rel = path.as_posix()
    try:
        name = path.relative_to(parent.path).as_posix()
    except ValueError:
        name = path.name
    return {"name": safe(name), "nodeid": safe(rel)}


def _pytest_can_list(folder: Path) -> bool:
    """Whether pytest's walk can list ``folder``: it asks each entry whether it is a file, which
    raises for a committed symlink whose target's name is too long."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                entry.is_file()
    except OSError:
        return False
    return True


def _files_below(engine: Engine, folder: Path) -> tuple[list[str], list[str]]:
    """(the files below ``folder``, a real folder, that the walk of ``citations check`` finds,
    the folders below it with settings of their own); an unreadable settings file is a UsageError."""
    try:
        return walk_files(engine.config.root, folder, engine.discovery.walk_excludes(folder))
    except ConfigError as exc:
        raise _usage_error(f"citations: {exc}") from None


class CitationsRemainder(pytest.Collector):
    """The artifacts of the folders checked that pytest's walk did not reach (see
    :meth:`CitationsCollector.pytest_make_collect_report`): in folders ``norecursedirs`` or
    ``--ignore`` skip, outside ``testpaths``, dangling symlinks. Their node ids are the ones
    pytest's walk would give them."""

    def __init__(self, *, collector: CitationsCollector, **kwargs) -> None:
        super().__init__(**kwargs)
        self.collector = collector

    def collect(self):
        with _unforeseen_errors_as(_collect_error):
            yield from self.collector.unreached(self)


class SettingsErrorFile(pytest.File):
    """Stands for a settings error found while an xdist worker collects."""

    def __init__(self, *, message: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.message = message

    def collect(self):
        raise self.CollectError(self.message)


def _to_wire(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _from_wire(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


@dataclasses.dataclass(frozen=True)
class Crash:
    """Where and what, in one line: pytest's short test summary and JUnit's failure message."""

    path: str
    lineno: int
    message: str


class DiagnosticsRepr:
    """A failing item's report: every diagnostic with its source line, and a one-line summary
    (a plain string would be repeated whole in the short test summary)."""

    def __init__(self, lines: list[str], crash: Crash) -> None:
        self.lines = lines
        self.reprcrash = crash

    def toterminal(self, tw) -> None:
        for line in self.lines:
            tw.line(line)

    def __str__(self) -> str:
        return "\n".join(self.lines)


class _HooksOfTheFolder:
    """A node of an artifact file, whose pytest hooks are those of the file's folder.

    pytest works them out from the conftest files of the folder of ``path``, asking first
    whether ``path`` is a file; that question raises for a committed symlink whose target's name
    is too long (an INTERNALERROR), where the check reports ``C001`` for that file. The folder is
    the one pytest would find for any file, so the hooks are the same."""

    @property
    def ihook(self):
        return self.session.gethookproxy(self.path.parent)


class CitationsFile(_HooksOfTheFolder, pytest.File):
    def __init__(self, *, engine: Engine, kinds: tuple, rel: str, collector: CitationsCollector, **kwargs) -> None:
        super().__init__(**kwargs)
        self.engine = engine
        self.kinds = kinds
        self.rel = rel
        self.collector = collector

    @property
    def key(self) -> tuple[Path, str]:
        """The file as its root sees it: the same for every path that leads to it."""
        return self.engine.config.root, self.rel

    @functools.cached_property
    def shown_path(self) -> str:
        """The file's path as pytest shows paths: relative to where pytest was started (with the
        text format's escapes for characters that cannot be printed as they are)."""
        from pytest_citations.frontends.reporters._common import safe

        return safe(shown_from(self.path, self.config.invocation_params.dir))

    def collect(self):
        yield CitationsItem.from_parent(self, name=ITEM_NAME)


class CitationsItem(_HooksOfTheFolder, pytest.Item):
    parent: CitationsFile  # (made only by CitationsFile.collect)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.add_marker(ITEM_NAME)
        self.diagnostics: list[Diagnostic] | None = None
        # the engine's diagnostics, paths from the root (what a record keeps)
        self.found: list[Diagnostic] | None = None
        self.parent.collector.items.append(self)

    def check(self) -> list:
        """The file's diagnostics, computed once: from the record of the last run when nothing
        they depend on changed, else by the engine (and its result cache)."""
        if self.diagnostics is None:
            parent = self.parent
            answers = parent.collector.answers(parent.engine)
            found = None if answers is None else answers.diagnostics(parent.rel)
            if found is None:
                found = self._checked_by_the_engine()
            self.found = found
            shown = parent.shown_path
            self.diagnostics = [
                dataclasses.replace(d, path=shown) if d.path == parent.rel else d for d in found
            ]
        return self.diagnostics

    def _checked_by_the_engine(self) -> list[Diagnostic]:
        """The engine's diagnostics of the file; an exception it let out (a bug) is the file's
        C006, as a rule's is: one line, and the item fails."""
        from pytest_citations.core.diagnostics import Diagnostic, Severity
        from pytest_citations.frontends.internal_error import internal_error

        parent = self.parent
        try:
            return parent.engine.check_file(parent.rel, parent.kinds)
        except _PYTESTS_OWN:
            raise
        except Exception as exc:
            return [Diagnostic("C006", "internal-error", Severity.ERROR, internal_error(exc), parent.rel)]

    def setup(self) -> None:
        # The check runs in the setup phase so that every report of the item (setup, call,
        # teardown; JUnit takes the first) has the first diagnostic's line as its location.
        if self.check():  # its first line moves the location from line 0 (see reportinfo)
            self.__dict__.pop("location", None)  # pytest's cached_property, computed at logstart

    def runtest(self) -> None:
        failures = []
        shown = self.parent.shown_path
        for diagnostic in self.check():
            if diagnostic.severity != "warning":
                failures.append(diagnostic)
                continue
            try:
                _warn(diagnostic, shown)
            except CitationsWarning:  # -W error::...CitationsWarning: the warning fails the item
                failures.append(diagnostic)
        if failures:
            raise CitationsFailure(failures)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CitationsFailure):
            from pytest_citations.frontends.reporters.text import format_diagnostic

            diagnostics = excinfo.value.diagnostics
            lines: list[str] = []
            for diagnostic in diagnostics:
                lines.extend(format_diagnostic(diagnostic, show_source=True))
            first = diagnostics[0]
            summary = f"{first.code} {first.message}" + (f" (and {len(diagnostics) - 1} more)" if len(diagnostics) > 1 else "")
            return DiagnosticsRepr(lines, Crash(first.path, first.line, summary))
        return super().repr_failure(excinfo, style)

    @functools.cached_property
    def location(self) -> tuple[str, int | None, str]:
        """pytest's (path relative to the rootdir, 0-based line, heading), the path cut from the
        file's own when it lies below the rootdir: pytest's ``bestrelpath`` of each of thousands
        of files would cost more than the rest of their reports."""
        from pytest_citations.frontends.reporters._common import safe

        path, line, heading = self.reportinfo()
        text, root = str(path), str(self.config.rootpath).rstrip(os.sep) + os.sep
        if not (text.startswith(root) and os.path.normpath(text) == text):
            shown, line, heading = super().location
            return safe(shown), line, heading
        return safe(text[len(root):]), line, heading

    def reportinfo(self):
        """The file, the 0-based line of its first diagnostic, and its path as the report's
        heading (the node id itself would be mangled by ``-v``, which turns its dots into ``::``)."""
        line = self.diagnostics[0].line - 1 if self.diagnostics else 0
        return self.path, line, self.parent.shown_path
