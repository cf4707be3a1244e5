"""Paths as the person who ran the command can open them: relative to the folder it was run in,
as ruff, flake8 and pytest show them. The engine keeps paths relative to the repository root
(what a baseline and the record of a run hold); only what is shown to a person is made relative
here: the text, GitHub and JUnit formats, and the files ``--fix`` and ``--diff`` name. The JSON and
SARIF formats, read by programs, keep the repository-relative paths (code scanning resolves
SARIF paths from the repository's top)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_citations.engine import Report


FOR_PEOPLE = ("text", "github", "junit")  # the output formats whose paths a person opens


def shown_from(path: PurePath, start: PurePath) -> str:
    """``path`` relative to ``start`` (an absolute, normal path), with ``/`` between folders."""
    text, below = str(path), str(start).rstrip(os.sep) + os.sep
    if text.startswith(below) and os.path.normpath(text) == text:  # what relpath gives, sooner
        return text[len(below):].replace(os.sep, "/")
    try:
        return Path(os.path.relpath(text, start)).as_posix()
    except ValueError:  # another drive
        return path.as_posix()


def working_folder() -> Path:
    """The folder the command runs in, resolved as the engine resolves its root."""
    return Path(os.path.realpath(os.getcwd()))


def shown_path(rel: str, root: Path, folder: Path) -> str:
    """The root-relative ``rel`` as seen from ``folder``."""
    return rel if root == folder else shown_from(root / rel, folder)


def shown_report(report: Report, root: Path, folder: Path) -> Report:
    """``report`` with the paths of its diagnostics and files seen from ``folder``; a path outside
    every root is shown as the command line named it."""
    if root == folder:
        return report

    def shown(path: str) -> str:
        return path if path in report.outside else shown_from(root / path, folder)

    return dataclasses.replace(
        report,
        diagnostics=[dataclasses.replace(d, path=shown(d.path)) for d in report.diagnostics],
        files=[shown(path) for path in report.files],
    )
