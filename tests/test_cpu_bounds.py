"""The time bounds of the exhaustion cases fail work over them and stop work that does not end."""

import pytest

from cpu_bounds import cpu_bound, cpu_time_under, slowdown, stopped_after


def busy(seconds: float) -> None:
    """CPU work for at least ``seconds`` of CPU time."""
    import time

    started = time.process_time()
    while time.process_time() - started < seconds:
        pass


def test_a_bound_is_scaled_by_this_machines_slowdown_with_headroom():
    assert slowdown() >= 1.0
    assert cpu_bound(1.0) >= 2.0 * slowdown() - 1e-9


def test_work_over_its_bound_fails_and_work_under_it_passes():
    with cpu_time_under(1.0):
        busy(0.01)
    with pytest.raises(AssertionError, match="over its bound"), cpu_time_under(0.01):
        busy(cpu_bound(0.01) + 0.05)


def test_work_that_does_not_end_is_stopped_after_its_bound():
    with pytest.raises(TimeoutError, match="still running after"), stopped_after(0.05):
        while True:
            pass
