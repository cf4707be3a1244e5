"""``citations check -j N``: the planned files checked by N worker processes.

Workers are forked from the planning process, so they start with its engines, settings and
plugins already loaded and nothing is pickled but task numbers and diagnostics. Each worker
checks chunks of tasks and sends back their diagnostics, its cache hit counts and the cache
entries it wrote; only the parent writes the cache file. Where ``fork`` is not available the
files are checked in this process.

One file is the unit of work: a single large file is checked by one worker.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator

from pytest_citations.diagnostics import Diagnostic
from pytest_citations.engine import Task, run_task

_tasks: list[Task] = []  # the parent's plan, inherited by forked workers


def available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _engines(tasks: list[Task]) -> list:
    return list({id(task.engine): task.engine for task in tasks}.values())


def _check_chunk(numbers: list[int]) -> tuple[list[tuple[int, list[Diagnostic]]], list[dict]]:
    found = [(number, run_task(_tasks[number])) for number in numbers]
    engines = _engines([_tasks[number] for number in numbers])
    return found, [engine.cache.take_changes() for engine in engines if engine.cache is not None]


def _chunks(count: int, jobs: int) -> Iterator[list[int]]:
    """Task numbers in chunks small enough to balance the workers, large enough to be cheap."""
    size = max(1, min(64, count // (jobs * 8)))
    for start in range(0, count, size):
        yield list(range(start, min(start + size, count)))


def check(tasks: list[Task], jobs: int, advance: Callable[[str], None]) -> list[list[Diagnostic]]:
    """The diagnostics of each task, in order, from ``jobs`` worker processes."""
    global _tasks
    if jobs <= 1 or len(tasks) <= 1 or not available():
        results = []
        for task in tasks:
            results.append(run_task(task))
            advance(task.shown)
        return results
    caches = {engine.cache.key: engine.cache for engine in _engines(tasks) if engine.cache is not None}
    results: list[list[Diagnostic]] = [[] for _ in tasks]
    _tasks = tasks
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for found, changes in pool.imap_unordered(_check_chunk, _chunks(len(tasks), jobs)):
                for number, diagnostics in found:
                    results[number] = diagnostics
                    advance(tasks[number].shown)
                for change in changes:
                    caches[change["key"]].absorb(change)
    finally:
        _tasks = []
    return results
