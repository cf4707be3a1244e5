"""``citations check -j N``: the planned files checked by N worker processes.

Workers are forked from the planning process, so they start with its engines, settings and
plugins already loaded; only task numbers go to them and only plain rows come back. Each worker
takes chunks of work and sends back their results, its cache hit counts and the cache entries it
wrote; only the parent writes the cache file. Where ``fork`` is not available the files are
checked in this process.

A run goes in three rounds. While the files are planned, the walk's files are claimed by kinds in
workers (a claim may read a file's head). Then the run-wide indexes the tasks' kinds use are built:
one built from a share per file (every memory's id and links) has its shares computed by workers,
which read and parse those files in parallel, and is combined in the parent. Then workers forked
from the parent, which now holds every index, check the files.

One file is the unit of work: a single large file is checked by one worker.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from pytest_citations.core.diagnostics import MESSAGE_LIMIT, Diagnostic, clipped
from pytest_citations.engine import Task, run_task
from pytest_citations.run.dependencies import RunWideIndex, Shares

# Fewer shares than this are computed in the parent: forking workers would cost more.
MIN_SHARES_IN_WORKERS = 256
# Fewer files of a walk than this are claimed in the parent, for the same reason.
MIN_FILES_TO_CLAIM_IN_WORKERS = 1024
# From this many tasks on, the parent checks the first one itself before forking (see check()).
MIN_TASKS_TO_CHECK_ONE_FIRST = 64


class WorkerError(Exception):
    """A worker process died or failed before sending every result: the run is incomplete, so it
    must not pass (``citations check`` stops with exit status 2)."""


def available() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _engines(tasks: list[Task]) -> list:
    return list({id(task.engine): task.engine for task in tasks}.values())


def claim_in_workers(engine, jobs: int) -> None:
    """Have ``engine`` (and the nested roots it checks) claim the files of its walks in ``jobs``
    workers: which kinds claim a file may depend on its head, read for every Markdown file."""
    if jobs > 1 and available():
        engine.claim_ahead = functools.partial(_claim_ahead, jobs=jobs)


def _claim_ahead(engine, rels: list[str], jobs: int) -> None:
    todo = [rel for rel in rels if engine.discovery.claimable(rel)]
    if len(todo) < MIN_FILES_TO_CLAIM_IN_WORKERS:
        return
    import multiprocessing

    cache = engine.state.cache  # opened before forking, so that the workers start with its entries
    caches = {} if cache is None else {cache.key: cache}
    work = functools.partial(_claims, engine, todo)
    for found in _in_workers(multiprocessing.get_context("fork"), jobs, _chunks(0, len(todo), jobs), work, caches):
        for number, names in found:
            engine.discovery.remember_claim(todo[number], names)


def _claims(engine, rels: list[str], numbers: list[int]) -> tuple[list, list]:
    """A chunk of claims: (file number, names of the kinds that claim it) each, and the engine."""
    return [(number, [kind.name for kind in engine.kinds_for(rels[number])]) for number in numbers], [engine]


def _chunks(first: int, count: int, jobs: int) -> list[list[int]]:
    """Item numbers ``first`` to ``count - 1`` in chunks small enough to balance the workers
    (about 32 per worker: the last chunks to finish leave the others idle), large enough to be
    cheap (at most 64 items: a chunk costs one message each way)."""
    size = max(1, min(64, (count - first) // (jobs * 32)))
    return [list(range(start, min(start + size, count))) for start in range(first, count, size)]


def check(tasks: list[Task], jobs: int, advance: Callable[[str], None]) -> list[list[Diagnostic]]:
    """The diagnostics of each task, in order, from ``jobs`` worker processes."""
    if jobs <= 1 or len(tasks) <= 1 or not available():
        results: list[list[Diagnostic]] = []
        for task in tasks:
            results.append(run_task(task))
            advance(task.shown)
        return results
    import multiprocessing  # here, not at the top: most runs are -j 1 (tests/frontends/test_lazy_imports.py)

    from pytest_citations.run.cache import diagnostic_from_json

    context = multiprocessing.get_context("fork")
    caches = {engine.state.cache.key: engine.state.cache for engine in _engines(tasks) if engine.state.cache is not None}
    _build_indexes(tasks, jobs, context, caches)
    results = [[] for _ in tasks]
    # Among many tasks, the first is checked here: what checking loads on first use (a Markdown
    # parser, a source registry) is then loaded once, before forking, not once in every worker.
    # Among few, one task is too large a part of the run to check before the workers start.
    first = 1 if len(tasks) >= MIN_TASKS_TO_CHECK_ONE_FIRST else 0
    if first:
        results[0] = run_task(tasks[0])
        advance(tasks[0].shown)
    for found in _in_workers(context, jobs, _chunks(first, len(tasks), jobs), functools.partial(_check, tasks), caches):
        for number, rows in found:
            results[number] = [diagnostic_from_json(row) for row in rows]
            advance(tasks[number].shown)
    return results


def _check(tasks: list[Task], numbers: list[int]) -> tuple[list, list]:
    """A worker's chunk of tasks: (task number, diagnostics as plain rows) each, and the engines
    whose cache it used. Rows, not objects: nothing depends on classes being the same at both ends."""
    from pytest_citations.run.cache import diagnostic_to_json

    found = [(number, [diagnostic_to_json(d) for d in run_task(tasks[number])]) for number in numbers]
    return found, _engines([tasks[number] for number in numbers])


# -- the run-wide indexes, before forking the checking workers ----------------------------------------


def _build_indexes(tasks: list[Task], jobs: int, context, caches: dict) -> None:
    """Build the run-wide indexes the tasks' kinds use, so that every checking worker inherits
    them instead of building each its own; the shares of an index built from one share per file
    are computed by workers first, when there are enough of them."""
    needed = _needed_indexes(tasks)
    of_shares = [(engine, index.name, index.shares) for engine, index in needed if index.shares is not None]
    files = {(id(engine), name): shared.files(engine) for engine, name, shared in of_shares}
    shares = [(engine, name, shared, rel) for engine, name, shared in of_shares for rel in files[(id(engine), name)]]
    if len(shares) >= MIN_SHARES_IN_WORKERS:
        found = _computed_shares(shares, jobs, context, caches)
        for engine, name, shared in of_shares:
            key = (id(engine), name)
            ordered = {rel: found[key][rel] for rel in files[key]}
            engine.index(name, functools.partial(shared.combine, engine, ordered))
    for engine, index in needed:
        engine.state.index_digest(index.name)


def _needed_indexes(tasks: list[Task]) -> list[tuple[Any, RunWideIndex]]:
    """(engine, run-wide index) for every index a kind of the tasks uses, once each. The engines
    of a run share the indexes of one registry (a nested root's engine gets its parent's)."""
    kinds = {(id(task.engine), kind.name): task.engine for task in tasks for kind in task.kinds}
    names = {kind_name for _, kind_name in kinds}
    declared = {index.name: index for engine in kinds.values() for index in engine.state.indexes.of_kinds(names)}
    return [
        (engine, index)
        for index in declared.values()
        for (_, kind_name), engine in kinds.items()
        if kind_name == index.kind
    ]


def _computed_shares(shares: list[tuple[Any, str, Shares, str]], jobs: int, context, caches: dict) -> dict:
    """{(engine id, index name): {file: share}} for every (engine, index name, its shares, file) of ``shares``:
    the first computed here, as the first task in check() (what it imports, it imports once), the
    rest by workers."""
    first, _ = _shares(shares, [0])
    in_workers = _in_workers(context, jobs, _chunks(1, len(shares), jobs), functools.partial(_shares, shares), caches)
    found: dict[tuple[int, str], dict[str, Any]] = {}
    for chunk in [first, *in_workers]:
        for number, value in chunk:
            engine, name, _, rel = shares[number]
            found.setdefault((id(engine), name), {})[rel] = value
    return found


def _shares(shares: list[tuple[Any, str, Shares, str]], numbers: list[int]) -> tuple[list, list]:
    """A chunk of index shares: (share number, value) each, and the engines whose cache it used."""
    found = []
    for number in numbers:
        engine, _, shared, rel = shares[number]
        found.append((number, shared.share(engine, rel)))
    return found, list({id(shares[number][0]): shares[number][0] for number in numbers}.values())


# -- the worker pool ------------------------------------------------------------------------------


def _in_workers(context, jobs: int, chunks: list[list[int]], work: Callable[[list[int]], tuple[Any, list]],
                caches: dict) -> Iterator[Any]:
    """``work(chunk)`` -> (result, engines whose cache it used) for every chunk, in up to ``jobs``
    forked workers; yields each chunk's result as it arrives, after taking the cache entries the
    worker wrote into the parent's caches."""
    import threading

    todo, done = context.SimpleQueue(), context.Queue()
    workers = [
        context.Process(target=_work, args=(work, list(caches.values()), todo, done), daemon=True)
        for _ in range(min(jobs, len(chunks)))
    ]
    for worker in workers:
        worker.start()
    # The chunks are fed by a thread, started once the workers are forked: a pipe holds only so
    # much (64 KiB on Linux, some hundreds of chunks), and the parent must go on to read results.
    threading.Thread(target=_feed, args=(todo, chunks, len(workers)), daemon=True).start()
    failed = True
    try:
        for _ in chunks:
            result, changes, error = _next(done, workers)
            if error:
                raise WorkerError(error)
            for change in changes:
                caches[change["key"]].absorb(change)
            yield result
        failed = False
    finally:
        for worker in workers:
            if failed:  # the others may wait on a queue the dead one held: they are not waited for
                worker.terminate()
            worker.join(timeout=5)
            if worker.is_alive():
                worker.terminate()


def _feed(todo, chunks: list[list[int]], workers: int) -> None:
    """Put every chunk on the queue, then one stop sign per worker."""
    for numbers in chunks:
        todo.put(numbers)
    for _ in range(workers):
        todo.put(None)


def _work(work: Callable[[list[int]], tuple[Any, list]], caches: list, todo, done) -> None:
    """A worker: do chunks until told to stop; cache entries travel as the JSON values they are.
    What the parent wrote and counted before forking is the parent's: the worker sends only its own."""
    try:
        for cache in caches:
            cache.take_changes()
        while (numbers := todo.get()) is not None:
            result, engines = work(numbers)
            done.put((result, [engine.state.cache.take_changes() for engine in engines if engine.state.cache is not None], None))
    except BaseException as exc:  # reported by the parent, which then stops
        # (the exception's text may quote the checkout at any length: cut to a message's)
        done.put((None, [], clipped(f"a worker process failed: {type(exc).__name__}: {exc}", MESSAGE_LIMIT)))


def _next(done, workers):
    """The next chunk's results; an error as soon as a worker has died (a killed worker takes the
    chunk it was checking with it, and may hold the lock of the queue the others read from), or
    when every worker has exited before sending it."""
    import queue

    while True:
        try:
            return done.get(timeout=1.0)
        except queue.Empty:
            dead = next((worker for worker in workers if worker.exitcode not in (None, 0)), None)
            if dead is not None:
                return None, [], f"a worker process {_how_it_ended(dead.exitcode)}"
            if not any(worker.is_alive() for worker in workers):
                return None, [], "every worker process exited before sending every result"


def _how_it_ended(exitcode: int) -> str:
    """``was killed by signal 9 (SIGKILL)`` or ``exited with status 3``."""
    if exitcode < 0:
        import signal

        try:
            name = f" ({signal.Signals(-exitcode).name})"
        except ValueError:
            name = ""
        return f"was killed by signal {-exitcode}{name}"
    return f"exited with status {exitcode}"
