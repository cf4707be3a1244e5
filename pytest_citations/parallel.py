"""``citations check -j N``: the planned files checked by N worker processes.

Workers are forked from the planning process, so they start with its engines, settings and
plugins already loaded; only task numbers go to them and only plain rows come back. Each worker
checks chunks of tasks and sends back their diagnostics, its cache hit counts and the cache
entries it wrote; only the parent writes the cache file. Where ``fork`` is not available the
files are checked in this process.

One file is the unit of work: a single large file is checked by one worker.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pytest_citations.diagnostics import Diagnostic
from pytest_citations.engine import Task, run_task


def available() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _engines(tasks: list[Task]) -> list:
    return list({id(task.engine): task.engine for task in tasks}.values())


def _chunks(count: int, jobs: int) -> Iterator[list[int]]:
    """Task numbers in chunks small enough to balance the workers, large enough to be cheap."""
    size = max(1, min(64, count // (jobs * 8)))
    for start in range(0, count, size):
        yield list(range(start, min(start + size, count)))


def _work(tasks: list[Task], todo, done) -> None:
    """A worker: check chunks until told to stop; diagnostics travel as plain rows, cache entries
    as the JSON values they are (nothing depends on classes being the same objects at both ends)."""
    from pytest_citations.cache import diagnostic_to_json

    try:
        while (numbers := todo.get()) is not None:
            found = [(number, [diagnostic_to_json(d) for d in run_task(tasks[number])]) for number in numbers]
            engines = _engines([tasks[number] for number in numbers])
            done.put((found, [engine.cache.take_changes() for engine in engines if engine.cache is not None], None))
    except BaseException as exc:  # reported by the parent, which then stops
        done.put(([], [], f"{type(exc).__name__}: {exc}"))


def check(tasks: list[Task], jobs: int, advance: Callable[[str], None]) -> list[list[Diagnostic]]:
    """The diagnostics of each task, in order, from ``jobs`` worker processes."""
    if jobs <= 1 or len(tasks) <= 1 or not available():
        results = []
        for task in tasks:
            results.append(run_task(task))
            advance(task.shown)
        return results
    import multiprocessing  # here, not at the top: most runs are -j 1 (tests/test_lazy_imports.py)

    from pytest_citations.cache import diagnostic_from_json

    caches = {engine.cache.key: engine.cache for engine in _engines(tasks) if engine.cache is not None}
    _build_indexes(tasks)
    context = multiprocessing.get_context("fork")
    todo, done = context.SimpleQueue(), context.Queue()
    chunks = list(_chunks(len(tasks), jobs))
    for numbers in chunks:
        todo.put(numbers)
    workers = [context.Process(target=_work, args=(tasks, todo, done), daemon=True) for _ in range(min(jobs, len(chunks)))]
    for worker in workers:
        todo.put(None)
        worker.start()
    results: list[list[Diagnostic]] = [[] for _ in tasks]
    try:
        for _ in chunks:
            found, changes, error = _next(done, workers)
            if error:
                raise RuntimeError(f"a worker process failed: {error}")
            for number, rows in found:
                results[number] = [diagnostic_from_json(row) for row in rows]
                advance(tasks[number].shown)
            for change in changes:
                caches[change["key"]].absorb(change)
    finally:
        for worker in workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.terminate()
    return results


def _build_indexes(tasks: list[Task]) -> None:
    """Build, before forking, the run-wide indexes the tasks' kinds use, so that every worker
    inherits them instead of building each its own."""
    from pytest_citations import dependencies

    needed = {(id(task.engine), kind.name): task.engine for task in tasks for kind in task.kinds}
    for name, kind in dependencies.INDEX_KINDS.items():
        for (_, kind_name), engine in needed.items():
            if kind_name == kind:
                engine.index_digest(name)


def _next(done, workers):
    """The next chunk's results; an error if every worker has died before sending it."""
    import queue

    while True:
        try:
            return done.get(timeout=1.0)
        except queue.Empty:
            if not any(worker.is_alive() for worker in workers):
                return [], [], "every worker process exited early"
