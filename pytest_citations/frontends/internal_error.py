"""What a front end says when the checker fails in a way it did not foresee (a bug).

One line instead of a traceback: the exception, its message cut to a bounded length with its
control characters shown as escapes, and where in the package it was raised. An exception's
message may quote the checkout (a file name, a value), so the line is printed where everything
else is defused for the CI log (``reporters/ci_log.py``), and the run fails: its check is
incomplete. ``citations`` exits 2 (``exit_status.py``); ``pytest --citations`` ends the session
with a usage error, or with pytest's internal-error status once its tests ran.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from pytest_citations.core.diagnostics import MESSAGE_LIMIT, clipped

_PACKAGE = Path(__file__).resolve().parents[1]


def internal_error(exc: BaseException) -> str:
    """``internal error (...): OSError: message, raised at pytest_citations/x.py:12 in f``."""
    from pytest_citations.frontends.reporters._common import safe

    message = safe(clipped(str(exc), MESSAGE_LIMIT))
    return f"internal error (the check is incomplete; please report it): {type(exc).__name__}: {message}{_raised_at(exc)}"


def _raised_at(exc: BaseException) -> str:
    """Where ``exc`` was raised: the innermost frame in the package (else the innermost of all),
    named from the package's folder (else by its file name alone)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    ours = [frame for frame in frames if Path(frame.filename).resolve().is_relative_to(_PACKAGE)]
    frame = (ours or frames)[-1]
    path = Path(frame.filename)
    shown = path.resolve().relative_to(_PACKAGE.parent).as_posix() if ours else path.name
    return f", raised at {shown}:{frame.lineno} in {frame.name}"
