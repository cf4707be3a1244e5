"""Re-runs from a record of the last run: its report when nothing it read has changed, and only the
files a change affects when a few things have.

With the result cache alone, a re-run works file by file: it loads every entry, claims every file
and verifies every result's key, and past some thousands of files that is most of a re-run. So a
``citations check`` also leaves a *record* next to the cache, one per request (the same settings,
paths, shard and baseline). It holds what each walk found, the stat signature (size, mtime_ns,
ctime_ns, inode) of every file the run read, which kinds claimed each file, what each check read
(files and run-wide indexes, with the per-file shares of an index built from shares), and each
file's diagnostics.

A later run of the same request walks again and takes an ``lstat`` per recorded file:

- the same files found and every signature the same: the recorded report;
- some signatures differ: the files they affect are checked again (their own file changed, they
  read a changed file, or they consulted an index built from one), without the result cache, and
  the others keep their recorded diagnostics;
- anything else (a file found or gone, a changed file claimed differently, more than
  :data:`MAX_AFFECTED_SHARE` of the files affected, a damaged record): the run goes the usual way.

``--since`` and ``--affected-by`` choose their files from the record as
:mod:`pytest_citations.run.selection` does from the cache; those changed since the record are checked
again and chosen by what they read now, and the record is left as it was.

The trust is the result cache's own (see :mod:`pytest_citations.run.cache`): a record is believed only
when this user's key authenticates it, a signature stands for the bytes, and a file modified
within :data:`~pytest_citations.run.cache.RACY_SECONDS` of a run's start is not trusted, so that run
writes no record (the previous one stays, and the file counts as changed); nor does a run in
which a file changed between a check's read and its hashing (the cache's ``racy``), or a partial
re-run whose checks read a file under another signature than the one it would record. An index built from no file of the work tree (the commit checked out, which no
``lstat`` sees) is built again on a re-run and compared with its recorded digest. A run that
crashed in a rule (C006), used a result the cache did not keep, or consulted an index built from
no file and not cheap to build again is not recorded; nor is a partial re-run that consulted an
index the record holds nothing of. A symlinked file is recorded with its target's signature, which its own ``lstat``
never matches: it always counts as changed.

The record is one JSON document. Its rows are flat lists, since a re-run decodes all of them:

- ``roots``: [root, shown prefix] of the request's root (0) and of each nested root;
- ``walks``: [root number, folder, excludes, files found, nested roots];
- ``extra``: [path, signature] of the settings files and the baseline;
- ``names``: lists of kind or index names, which the rows below give by number;
- ``files``: [root number, path, names of the kinds that claim it or null, size, mtime_ns, ctime_ns,
  inode] (null signature fields: the path was found missing);
- ``indexes``: [root number, index name, its files' numbers, their shares or null, its digest
  or null] (a digest for an index built from no file but cheap to build again: the commit checked
  out, which a re-run reads again and compares);
- ``tasks``: [root number, its file's number, kind names, index names, diagnostics, numbers of
  the files it read...]; ``outside``: the diagnostics of paths outside every root; ``shown``: the
  report's files.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pytest_citations import __version__
from pytest_citations.core.diagnostics import Diagnostic, sorted_diagnostics
from pytest_citations.discovery import walk_files
from pytest_citations.engine import Engine, Report, Task
from pytest_citations.run import dependencies
from pytest_citations.run.cache import (
    RACY_SECONDS,
    ResultCache,
    diagnostic_from_json,
    diagnostic_to_json,
    kept_for_the_run,
    prepare_folder,
    read_document,
    stat_signature,
    usable_folder,
    write_document,
)

if TYPE_CHECKING:
    from pytest_citations.run.selection import Changes

FORMAT = 3
MAX_AFFECTED_SHARE = 0.1  # past this share of the files affected, the result cache and -j do better
_UNTRUSTED = "untrusted"  # the signature of a path that is there but no regular file, or cannot be read
_MISSING = [None, None, None, None]  # the signature fields of a file row for a path found missing
# What reading a record of another shape raises; such a record is not trusted (the usual run goes on).
_DAMAGED = (KeyError, IndexError, TypeError, ValueError, AttributeError)


class _NotRecordable(Exception):
    """The run read something a record cannot vouch for."""


class Request:
    """One ``citations check`` request: replayed from its record, or recorded after a usual run."""

    def __init__(self, engine: Engine, paths: list[Path], force_exclude: bool, shard: tuple[int, int] | None,
                 baseline: Path | None) -> None:
        self.engine = engine
        self.paths = paths
        self.started_ns = time.time_ns()
        self.baseline = os.path.abspath(baseline) if baseline is not None else None
        self.key = dependencies.digest((
            FORMAT, __version__, engine.state.cache_key(), [_resolved(p) for p in paths],
            force_exclude and _excludes_a_named_path(engine, paths), shard, self.baseline,
        ))
        # (CheckRun and the pytest session make a request only for an engine with a cache folder)
        folder = usable_folder(cast(Path, engine.state.cache_folder), engine.config.root)
        if folder is None:  # the engine's, and its nested roots', caches live in memory too
            engine.state.enable_cache(None)
        self.path = None if folder is None else folder / f"run-{self.key[:24]}.json"

    # -- replaying -----------------------------------------------------------------------------

    def replayed(self, selection: Changes | None = None) -> tuple[Report, int] | None:
        """(the report, how many files kept their recorded diagnostics), when the record answers
        this run; None when it must go the usual way. With ``selection`` (the changes ``--since``
        or ``--affected-by`` name), only the files those changes affect are reported, as
        :mod:`pytest_citations.run.selection` chooses them."""
        data = self.read()
        if data is None:
            return None
        try:
            changed = _changes(data)
        except _DAMAGED:
            return None
        if changed is None:
            return None
        with _without_cache(self.engine):  # (and the nested roots' engines, made from it)
            try:
                rerun = _Rerun(self, data, changed, selection)
                return rerun.run() if changed or rerun.revalued else rerun.report({})
            except _DAMAGED:
                return None

    def read(self) -> dict[str, Any] | None:
        """This request's record; None when there is none of this format and request that this
        user's key authenticates."""
        if self.path is None:
            return None
        with kept_for_the_run():
            data = read_document(self.path)
        if isinstance(data, dict) and data.get("format") == FORMAT and data.get("key") == self.key:
            return data
        return None

    # -- recording -----------------------------------------------------------------------------

    def record(self, tasks: list[Task], results: list[list[Diagnostic]]) -> None:
        """Leave a record of a usual run of ``tasks`` (from the result cache, which it filled),
        when every file it read can vouch for it."""
        try:
            data = _Recorder(self, tasks, results).data()
        except _NotRecordable:
            return
        self.write(data)

    def write(self, data: dict[str, Any]) -> None:
        """Write the record atomically; one that cannot be written is no error (the next run is
        only slower)."""
        if self.path is None:
            return
        try:
            prepare_folder(self.path.parent)
            write_document(self.path, data)
        except OSError:
            return

    def trusted(self, signature: Any) -> bool:
        """Whether a signature taken in this run may stand for its file's bytes in the next."""
        if signature is None:
            return True
        return isinstance(signature, list) and signature[1] < self.started_ns - RACY_SECONDS * 1e9


class Answers:
    """What a record tells a run that asks file by file (``pytest --citations``): which kinds
    claim a file, and a file's diagnostics, each while nothing it depends on has changed since the
    record; None otherwise (the caller asks the engine and its result cache)."""

    def __init__(self, claims: dict[str, list[str]], diagnostics: dict[str, list[Diagnostic]]) -> None:
        self._claims = claims
        self._diagnostics = diagnostics
        self.used = 0  # the files whose diagnostics came from the record

    @classmethod
    def of(cls, request: Request) -> Answers | None:
        """The answers of ``request``'s record; None when it has none that can answer (files
        found or gone, a changed file claimed otherwise, a damaged record)."""
        data = request.read()
        if data is None:
            return None
        try:
            changed = _changes(data)
            if changed is None or len(data["roots"]) != 1:
                return None
            rerun = _Rerun(request, data, changed, None)
            if not rerun.claims_hold():
                return None
            files, names = rerun.files, rerun.names
            claims = {row[1]: names[row[2]] for number, row in enumerate(files) if row[2] is not None and number not in changed}
            affected = set(rerun.affected)
            diagnostics = {files[task[1]][1]: [diagnostic_from_json(row) for row in task[4]]
                           for position, task in enumerate(rerun.tasks) if position not in affected}
        except _DAMAGED:
            return None
        return cls(claims, diagnostics)

    def claim(self, rel: str) -> list[str] | None:
        return self._claims.get(rel)

    def diagnostics(self, rel: str) -> list[Diagnostic] | None:
        found = self._diagnostics.get(rel)
        if found is not None:
            self.used += 1
        return found


class _Recorder:
    """A record built from a usual run, its result cache and its walks."""

    def __init__(self, request: Request, tasks: list[Task], results: list[list[Diagnostic]]) -> None:
        self.request = request
        self.tasks = tasks
        self.results = results
        self.engines = [request.engine, *request.engine.nested_engines]
        self.caches = [engine.state.cache for engine in self.engines]
        self.numbers: dict[tuple[int, str], int] = {}
        self.files: list[list] = []
        self.names: dict[tuple[str, ...], int] = {}

    def data(self) -> dict[str, Any]:
        if any(cache is None or cache.racy for cache in self.caches):
            raise _NotRecordable
        number_of = {id(engine): number for number, engine in enumerate(self.engines)}
        tasks, outside = [], []
        consulted: dict[tuple[int, str], None] = {}
        for task, found in zip(self.tasks, self.results, strict=True):
            rows = [diagnostic_to_json(d) for d in found]
            if not task.kinds:
                outside.extend(rows)
                continue
            number = number_of[id(task.engine)]
            reads = cast(ResultCache, self.caches[number]).reads_of(task.rel)  # (none is None: see above)
            if reads is None:
                raise _NotRecordable  # a result the cache did not keep: nothing says what it read
            paths, indexes = reads
            for name in indexes:
                consulted.setdefault((number, name), None)
            kinds = [kind.name for kind in task.kinds]
            tasks.append([number, self._file(number, task.rel, kinds), self._name(kinds),
                          self._name(sorted(indexes)), rows, *(self._file(number, rel) for rel in paths)])
        index_rows = [self._index(number, name) for number, name in consulted]  # (it may walk)
        named = [rel for path in self.request.paths if not path.is_dir() and (rel := self.request.engine.relative(path))]
        for number, engine in enumerate(self.engines):
            listed = [rel for _, _, walked, _ in engine.discovery.walks() for rel in walked]
            for rel in (listed + named if number == 0 else listed):
                if engine.discovery.claimable(rel):  # whether a kind claims it may depend on its head
                    self._file(number, rel, [kind.name for kind in engine.kinds_for(rel)])
        extra = [os.path.abspath(engine.config.source) for engine in self.engines if engine.config.source is not None]
        extra += [self.request.baseline] if self.request.baseline else []
        return {
            "format": FORMAT,
            "key": self.request.key,
            "roots": [[str(engine.config.root), engine.display_prefix] for engine in self.engines],
            "walks": [[number, folder, list(excludes), found, nested]
                      for number, engine in enumerate(self.engines) for folder, excludes, found, nested in engine.discovery.walks()],
            "extra": [[path, self._trusted(_signature(path))] for path in dict.fromkeys(extra)],
            "shown": [task.shown for task in self.tasks],
            "outside": outside,
            "indexes": index_rows,
            "tasks": tasks,
            "files": self.files,
            "names": [list(names) for names in self.names],
        }

    def _file(self, number: int, rel: str, claim: list[str] | None = None) -> int:
        """The number of the file row of ``rel`` (at root ``number``), added on first use."""
        key = (number, rel)
        found = self.numbers.get(key)
        if found is None:
            try:
                # (data, which asks this, has made sure that no cache is None)
                signature = self._trusted(cast(ResultCache, self.caches[number]).trusted_signature(rel))
            except LookupError:  # not looked at here: a -j worker may have found it missing
                signature = _signature(str(self.engines[number].config.root / rel))
                if signature is not None:
                    raise _NotRecordable from None
            found = self.numbers[key] = len(self.files)
            self.files.append([number, rel, None, *(signature or _MISSING)])
        if claim is not None:
            self.files[found][2] = self._name(claim)
        return found

    def _name(self, names: list[str]) -> int:
        return self.names.setdefault(tuple(names), len(self.names))

    def _trusted(self, signature: Any) -> Any:
        if signature == _UNTRUSTED or not self.request.trusted(signature):
            raise _NotRecordable
        return signature

    def _index(self, number: int, name: str) -> list:
        """[root number, index name, its files' numbers, their shares or None, its digest or None]:
        an index built from files is followed by their signatures, one built from none by its
        digest, when it is cheap to build again."""
        engine = self.engines[number]
        declared = engine.state.indexes.get(name)
        if declared is None or declared.sources is None:
            if declared is None or not declared.checked_by_value:
                raise _NotRecordable  # built from nothing a signature sees, and costly to build again
            return [number, name, [], None, engine.state.index_digest(name)]
        rels = declared.sources(engine)
        shares = declared.shares
        return [number, name, [self._file(number, rel) for rel in rels],
                None if shares is None else [shares.share(engine, rel) for rel in rels], None]


class _Rerun:
    """The recorded files a run reports (all, or those a selection affects), and among them those
    that the ``changed`` files (number -> signature now) affect, which are checked again."""

    def __init__(self, request: Request, data: dict[str, Any], changed: dict[int, Any], selection: Changes | None) -> None:
        self.request = request
        self.data = data
        self.changed = changed
        self.tasks = data["tasks"]
        self.files = data["files"]
        self.names = [_strings(names) for names in data["names"]]
        self.prefixes = [prefix for _, prefix in data["roots"]]
        self.engines: dict[int, Engine] = {0: request.engine}
        self.selecting = selection is not None
        # the indexes checked by value whose value is another now (the commit checked out)
        self.revalued = {(number, name) for number, name, _, _, digest in data["indexes"]
                         if digest is not None and self.engine(number).state.index_digest(name) != digest}
        touched = self._touched(changed.keys()) | self.revalued
        self.affected = self._reading(changed.keys(), touched) if changed or touched else []
        for position in self.affected:  # what the checks act on must be of the recorded shape
            task = self.tasks[position]
            _strings(self.names[task[2]] + [self.files[task[1]][1]])
        if selection is None:
            self.reported = list(range(len(self.tasks)))
        else:
            self._select(selection)

    def engine(self, number: int) -> Engine:
        if number not in self.engines:
            self.engines[number] = self.engines[0].engine_below(self.prefixes[number].rstrip("/"))
        return self.engines[number]

    def _touched(self, changed) -> set[tuple[int, str]]:
        """(root number, index name) of the indexes built from one of the ``changed`` (file numbers):
        for an index built from one share per file, only when a changed file's share is another now
        (an edit below a memory's front matter changes no id and no link)."""
        touched = set()
        for number, name, sources, shares, _ in self.data["indexes"]:
            hit = [position for position, file_number in enumerate(sources) if file_number in changed]
            if hit and (shares is None or not self._shares_hold(number, name, [(sources[p], shares[p]) for p in hit])):
                touched.add((number, name))
        return touched

    def _shares_hold(self, number: int, name: str, recorded: list[tuple[int, Any]]) -> bool:
        """Whether each (file number, recorded share) still holds: the file's share now is the same."""
        engine = self.engine(number)
        declared = engine.state.indexes.get(name)
        if declared is None or declared.shares is None:
            return False
        for file_number, share in recorded:
            rel = self.files[file_number][1]
            if _as_json(declared.shares.share(engine, rel)) != share:
                return False
        return True

    def _reading(self, changed, touched: set[tuple[int, str]]) -> list[int]:
        """The positions of the tasks whose own file or a file they read is one of the ``changed``
        (file numbers), or that consulted one of the ``touched`` indexes."""
        touching = {(number, names) for number, names in {(task[0], task[3]) for task in self.tasks}
                    if any((number, name) in touched for name in self.names[names])}
        return [position for position, task in enumerate(self.tasks)
                if (task[0], task[3]) in touching or task[1] in changed or not changed.isdisjoint(task[5:])]

    def _select(self, selection: Changes) -> None:
        """The tasks a selection reports, as :mod:`pytest_citations.run.selection` chooses them: those
        whose settings file, own file or a file they read is among its paths, or that consulted an
        index its paths may have changed. A task that changed since the record is chosen after it
        is checked again, by what it reads now (:meth:`_still_selected`)."""
        self.selection = {number: selection.paths(self.engine(number)) for number in range(len(self.prefixes))}
        numbers = {number for number, row in enumerate(self.files) if row[1] in self.selection[row[0]]}
        self.selection_touched = {
            (number, name) for number, name, sources, *_ in self.data["indexes"]
            if selection.index_touched(self.engine(number), name, sources=[self.files[n][1] for n in sources])
        }
        whole = {number for number in self.selection if self.engine(number).discovery.settings_rel() in self.selection[number]}
        stale = set(self.affected)
        chosen = set(self._reading(numbers, self.selection_touched))
        self.reported = [position for position, task in enumerate(self.tasks)
                         if position not in stale and (position in chosen or task[0] in whole)]
        self.whole = whole

    def _still_selected(self, position: int, recorded: dependencies.Recorder) -> bool:
        """Whether a task checked again is chosen by the selection, by what it read this time."""
        number, file_number = self.tasks[position][:2]
        paths = self.selection[number]
        root = str(self.engine(number).config.root).rstrip(os.sep) + os.sep
        reads = {self.files[file_number][1], *(_below(path, root) for path in recorded.paths)}
        return (number in self.whole or not paths.isdisjoint(reads)
                or any((number, name) in self.selection_touched for name in recorded.indexes))

    def run(self) -> tuple[Report, int] | None:
        """Check the affected tasks again (the result cache off), and record the run anew; None
        when the record cannot answer after all."""
        if len(self.affected) > MAX_AFFECTED_SHARE * len(self.tasks) or not self.claims_hold():
            return None
        self._seed_indexes({(self.tasks[position][0], name) for position in self.affected
                            for name in self.names[self.tasks[position][3]]})
        found = {position: self._check(position) for position in self.affected}
        if self.selecting:
            chosen = {position for position, (_, recorded) in found.items() if self._still_selected(position, recorded)}
            self.reported = sorted({*self.reported, *chosen})
            found = {position: found[position] for position in chosen}
        else:  # (a selection leaves files that changed unreported and maybe unchecked: its record would lie)
            self._record(found)
        return self.report(found)

    def claims_hold(self) -> bool:
        """Whether every changed file is claimed by the kinds that claimed it before (else the
        files to check are not the recorded ones)."""
        for number in self.changed:
            engine_number, rel, claim, *_ = self.files[number]
            if claim is not None and [kind.name for kind in self.engine(engine_number).kinds_for(rel)] != self.names[claim]:
                return False
        return True

    def report(self, found: dict[int, tuple[list[Diagnostic], dependencies.Recorder]]) -> tuple[Report, int]:
        """The report of the reported tasks: the diagnostics ``found`` again, the recorded ones of
        the others; and how many kept theirs."""
        rows = [row for position in self.reported if position not in found for row in self.tasks[position][4]]
        outside = [diagnostic_from_json(row) for row in self.data["outside"]] if not self.selecting else []
        # (paths outside every root are reported only when named, never selected)
        diagnostics = [diagnostic_from_json(row) for row in rows] + outside
        diagnostics += [d for found_here, _ in found.values() for d in found_here]
        if self.selecting:
            tasks = map(self.tasks.__getitem__, self.reported)
            shown = [self.prefixes[task[0]] + self.files[task[1]][1] for task in tasks]
        else:
            shown = _strings(self.data["shown"])
        report = Report(sorted_diagnostics(diagnostics), shown, frozenset(d.path for d in outside))
        return report, len(self.reported) - len(found)

    def _seed_indexes(self, needed: set[tuple[int, str]]) -> None:
        """Build the share-built indexes the checks will consult from the recorded shares, with
        those of changed files computed again (the others are built on first use, as usual)."""
        for engine_number, name, sources, shares, _ in self.data["indexes"]:
            if (engine_number, name) not in needed or shares is None:
                continue
            engine = self.engine(engine_number)
            declared = engine.state.indexes.get(name)
            if declared is None or declared.shares is None:
                continue
            shared = declared.shares
            for position, number in enumerate(sources):
                if number in self.changed:
                    shares[position] = shared.share(engine, self.files[number][1])
            ordered = {self.files[number][1]: share for number, share in zip(sources, shares, strict=True)}
            engine.index(name, functools.partial(shared.combine, engine, ordered))

    def _check(self, position: int) -> tuple[list[Diagnostic], dependencies.Recorder]:
        engine_number, file_number, kinds = self.tasks[position][:3]
        engine = self.engine(engine_number)
        with dependencies.recording() as recorded:
            found = engine.check_file(self.files[file_number][1], engine.discovery.kinds_named(self.names[kinds]))
        return found, recorded

    def _record(self, found: dict[int, tuple[list[Diagnostic], dependencies.Recorder]]) -> None:
        """The record again, with the checked files' reads and diagnostics and the changed files'
        signatures; none when one of those cannot be trusted yet (the old record stays)."""
        files, names = self.files, self.data["names"]
        indexed = {(row[0], row[1]) for row in self.data["indexes"]}
        for position, (diagnostics, recorded) in found.items():
            if any(d.code == "C006" for d in diagnostics):
                return  # a crash is checked again next time, never replayed
            if any((self.tasks[position][0], name) not in indexed for name in recorded.indexes):
                return  # an index the record does not know the files of (the next usual run records it)
        for number, signature in self.changed.items():
            if signature == _UNTRUSTED or not self.request.trusted(signature):
                return
            files[number][3:] = signature or _MISSING
        for row in self.data["indexes"]:
            if (row[0], row[1]) in self.revalued:
                row[4] = self.engine(row[0]).state.index_digest(row[1])
        numbers = {(row[0], row[1]): number for number, row in enumerate(files)}
        roots = [root.rstrip(os.sep) + os.sep for root, _ in self.data["roots"]]
        for position, (diagnostics, recorded) in found.items():
            task = self.tasks[position]
            engine_number = task[0]
            reads = {files[task[1]][1]} | {rel for rel in (_below(path, roots[engine_number]) for path in recorded.paths) if rel}
            for rel in sorted(rel for rel in reads if (engine_number, rel) not in numbers):
                signature = _signature(roots[engine_number] + rel)
                if signature == _UNTRUSTED or not self.request.trusted(signature):
                    return
                numbers[(engine_number, rel)] = len(files)
                files.append([engine_number, rel, None, *(signature or _MISSING)])
            indexes = sorted(recorded.indexes)
            if indexes not in names:
                names.append(indexes)
            task[3:] = [names.index(indexes), [diagnostic_to_json(d) for d in diagnostics],
                        *sorted(numbers[(engine_number, rel)] for rel in reads)]
        if self._held_still(found, numbers, roots):
            self.request.write(self.data)

    def _held_still(self, found: dict[int, tuple[list[Diagnostic], dependencies.Recorder]],
                    numbers: dict[tuple[int, str], int], roots: list[str]) -> bool:
        """Whether every file the checks read had, when read, the signature the record gives it
        (else it changed while this run read it, and the record would pair its new signature with
        findings about the bytes that were read)."""
        for position, (_, recorded) in found.items():
            engine_number = self.tasks[position][0]
            for path, signature in recorded.reads.items():
                rel = _below(path, roots[engine_number])
                if rel is None:
                    continue
                number = numbers.get((engine_number, rel))
                # (a file read by another path than the one the check named: its signature now)
                known = self.files[number][3:] if number is not None else _signature(path)
                if signature is None or known != signature:
                    return False
        return True


@contextlib.contextmanager
def _without_cache(engine: Engine) -> Iterator[None]:
    """The engine with its result cache off (a partial re-run goes by the record), then back on
    and with what it worked out forgotten, for a usual run after it."""
    engine.state.caching = False
    try:
        yield
    finally:
        engine.state.caching = True
        engine.forget()


def _changes(data: dict[str, Any]) -> dict[int, Any] | None:
    """{number: signature now} of the recorded files whose signature is not the recorded one;
    None when a walk finds other files than it did, or a settings or baseline file changed."""
    roots = [Path(root) for root, _ in data["roots"]]
    for number, folder, excludes, found, nested in data["walks"]:
        if walk_files(roots[number], Path(folder), tuple(_strings(excludes))) != (found, nested):
            return None
    if any(_signature(path) != signature for path, signature in data["extra"]):
        return None
    prefixes = [str(root).rstrip(os.sep) + os.sep for root in roots]
    changed: dict[int, Any] = {}
    lstat = os.lstat
    for number, (engine_number, rel, _, *recorded) in enumerate(data["files"]):
        try:
            info = lstat(prefixes[engine_number] + rel)
        except FileNotFoundError:
            if recorded != _MISSING:
                changed[number] = None
            continue
        except OSError:
            changed[number] = _UNTRUSTED
            continue
        signature = stat_signature(info)
        if signature != recorded or not stat.S_ISREG(info.st_mode):
            changed[number] = signature if stat.S_ISREG(info.st_mode) else _UNTRUSTED
    return changed


def _strings(value: Any) -> list[str]:
    """``value``, a list of strings; TypeError otherwise."""
    if not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
        raise TypeError("not a list of strings")
    return value


def _signature(path: str) -> list[int] | str | None:
    """The stat signature of a regular file, None when there is none, else :data:`_UNTRUSTED`."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return _UNTRUSTED
    return stat_signature(info) if stat.S_ISREG(info.st_mode) else _UNTRUSTED


def _resolved(path: Path) -> str:
    """A path named on the command line as the engine reads it: a folder resolved, a file's
    folder resolved (a symlinked folder named twice may lead to two places)."""
    if os.path.isdir(path):
        return os.path.realpath(path)
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(os.path.realpath(folder), name)


def _below(path: str, prefix: str) -> str | None:
    """The root-relative form of an absolute path a check read, None outside the root."""
    return Path(path[len(prefix):]).as_posix() if path.startswith(prefix) else None


def _excludes_a_named_path(engine: Engine, paths: list[Path]) -> bool:
    """Whether ``--force-exclude`` may change what ``paths`` plan: only when the settings exclude one
    of them, by the path as named (a file) or as resolved (a folder is walked from where it leads),
    or one lies outside the root. A walk from the root applies the excludes either way, so the
    pre-commit hook, which always forces them, replays the record of a plain check."""
    root = engine.config.root
    for path in paths:
        real = Path(os.path.realpath(path))
        if real == root:
            continue
        rel = engine.relative(path)
        if rel is None or not real.is_relative_to(root):
            return True
        if engine.discovery.is_excluded(rel.rstrip("/")) or engine.discovery.is_excluded(real.relative_to(root).as_posix()):
            return True
    return False


def _as_json(value: Any) -> Any:
    """``value`` as a record holds it once written and read back (tuples become lists)."""
    return json.loads(json.dumps(value))
