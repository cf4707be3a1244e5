"""Time bounds of the cases that prove a run ends: hostile input, exhaustion, linear time.

Each of those cases took minutes, or never ended, before its fix; its bound tells such a run from a
bounded one, not how fast the checker is (the benchmark harness measures that). A bound is written
as the CPU seconds the case may take on the machine the suite was written on, and is scaled by how
much slower the machine running the suite is, measured once in the same run by a reference
workload, with room on top for the noise of a shared machine. CPU time, never wall time: the work
done by the case, whatever else runs beside it.
"""

from __future__ import annotations

import contextlib
import functools
import re
import signal
import time
from collections.abc import Iterator

REFERENCE_CPU_SECONDS = 0.1  # the reference workload, at its fastest, on the machine the bounds were written on
HEADROOM = 2.0  # a shared machine's noise: a neighbour's load slows the CPU time of the same work too


def _reference_workload() -> float:
    """CPU seconds of work like the checker's own: regular expressions over text, and dictionaries."""
    text = "- The Fed held rates at 5.25% in 2024. [1]\n" * 2_000
    pattern = re.compile(r"\[(\d+)\]|(\d+(?:\.\d+)?)%")
    started = time.process_time()
    counts: dict[str, int] = {}
    for _ in range(12):
        for found in pattern.finditer(text):
            counts[found.group(0)] = counts.get(found.group(0), 0) + 1
        counts.update((word, len(word)) for word in text.split())
    return time.process_time() - started


@functools.cache
def slowdown() -> float:
    """How much slower this machine runs the reference workload (at least 1: a faster machine
    keeps the written bounds)."""
    return max(1.0, min(_reference_workload() for _ in range(5)) / REFERENCE_CPU_SECONDS)


def cpu_bound(seconds: float) -> float:
    """The CPU seconds a case bounded by ``seconds`` (as written) may take on this machine."""
    return seconds * slowdown() * HEADROOM


def assert_cpu_under(spent: float, seconds: float) -> None:
    bound = cpu_bound(seconds)
    assert spent < bound, f"took {spent:.2f} s of CPU time, over its bound of {bound:.2f} s ({seconds} s as written)"


@contextlib.contextmanager
def cpu_time_under(seconds: float) -> Iterator[None]:
    """Assert that the block takes less CPU time than its bound."""
    started = time.process_time()
    yield
    assert_cpu_under(time.process_time() - started, seconds)


@contextlib.contextmanager
def stopped_after(seconds: float) -> Iterator[None]:
    """Stop the block with TimeoutError once it has taken more CPU time than its bound (Python code
    is interrupted between two steps), so that a quadratic loop fails the test instead of hanging it."""
    bound = cpu_bound(seconds)

    def expire(signum, frame):
        raise TimeoutError(f"still running after {bound:.2f} s of CPU time ({seconds} s as written)")

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, bound)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
