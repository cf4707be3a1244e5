"""One fixture repository's findings through each front end, for the agreement tests.

Findings are ``(path, line, col, code, message)`` with paths shown from the folder that holds the
copied repository, as ``pytest --citations`` shows them when run from there.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main

DIAGNOSTIC_LINE = re.compile(r"^(?P<path>\S+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d{3}) (?:\[\*\] )?(?P<message>.*)$")


def copy_fixture(name: str, base: Path) -> Path:
    target = base / name
    shutil.copytree(PROJECT / "fixtures" / name, target, symlinks=True)
    return target


def _shown(name: str, diagnostics) -> set[tuple]:
    return {(f"{name}/{d['path']}", d["line"], d["col"], d["code"], d["message"]) for d in diagnostics}


def from_engine(base: Path, name: str) -> set[tuple]:
    root = base / name
    diagnostics = Engine.load(root).check([root]).diagnostics
    return {(f"{name}/{d.path}", d.line, d.col, d.code, d.message) for d in diagnostics}


def from_cli(base: Path, name: str, capsys) -> set[tuple]:
    """``citations check NAME --format json``, in process; it must exit 1."""
    assert main(["check", str(base / name), "--format", "json"]) == 1
    return _shown(name, json.loads(capsys.readouterr().out)["diagnostics"])


def from_module(base: Path, name: str) -> set[tuple]:
    """``python -m pytest_citations check NAME --format json`` in a subprocess; it must exit 1."""
    command = [sys.executable, "-m", "pytest_citations", "check", name, "--format", "json"]
    completed = subprocess.run(command, cwd=base, capture_output=True, text=True, check=False)
    assert completed.returncode == 1, completed.stderr
    return _shown(name, json.loads(completed.stdout)["diagnostics"])


def from_pytest(pytester, *names: str):
    """(findings printed by failing items, the run's result) of ``pytest --citations NAMES``."""
    result = pytester.runpytest("--citations", f"--rootdir={pytester.path}", *names)
    found = {
        (m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"])
        for m in map(DIAGNOSTIC_LINE.match, result.outlines)
        if m
    }
    return found, result


def assert_front_ends_agree(pytester, capsys, name: str, count: int):
    """Engine, CLI and ``python -m`` give the same ``count`` findings; returns them and pytest's
    (findings, result) for the caller's pytest-specific assertions."""
    copy_fixture(name, pytester.path)
    expected = from_engine(pytester.path, name)
    assert len(expected) == count
    assert from_cli(pytester.path, name, capsys) == expected
    assert from_module(pytester.path, name) == expected
    return expected, from_pytest(pytester, name)
