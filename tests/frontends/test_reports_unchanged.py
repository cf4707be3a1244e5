"""Every fixture's report, through every front end and in every output format, byte for byte as
recorded in ``tests/reports/``: a change of structure that changes what a user sees fails here.

A deliberate change of output is recorded again with ``CITATIONS_RECORD_REPORTS=1 pytest
tests/frontends/test_reports_unchanged.py``; the diff of ``tests/reports/`` is then part of the change.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROJECT, TESTS
from pytest_citations.frontends import cli

FIXTURES = PROJECT / "fixtures"
RECORDED = TESTS / "reports"
RECORD = os.environ.get("CITATIONS_RECORD_REPORTS") == "1"
REPOSITORIES = sorted(path.name for path in FIXTURES.iterdir() if (path / "pyproject.toml").is_file())
FORMATS = ("text", "json", "github", "sarif", "junit")
# pytest's duration, JUnit's time and timestamp attributes: all that a run's clock writes.
_TIMINGS = re.compile(r"(?<= in )\d+\.\d+s\b|(?<= time=\")[\d.]+(?=\")|(?<= timestamp=\")[^\"]+(?=\")")


@pytest.fixture
def copy(tmp_path, request) -> Path:
    """The fixture repository, copied so that no run writes into the project."""
    target = tmp_path / request.param
    shutil.copytree(FIXTURES / request.param, target, symlinks=True)
    return target


def _cli(root: Path, *argv: str) -> str:
    """What ``citations ARGV`` prints from ``root`` (standard output, then standard error)."""
    out, err = io.StringIO(), io.StringIO()
    cwd = Path.cwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(argv))
    finally:
        os.chdir(cwd)
    return f"$ citations {' '.join(argv)}\n{out.getvalue()}{err.getvalue()}exit {code}\n"


def _terminal_environment() -> dict[str, str]:
    """The environment of a recorded pytest run: 100 columns, and not on CI.

    pytest shortens a summary line to the terminal's width except when ``CI`` or ``BUILD_NUMBER``
    is set, so the recorded reports would read differently on a CI machine.
    """
    environment = {name: value for name, value in os.environ.items() if name not in ("CI", "BUILD_NUMBER")}
    return {**environment, "PYTEST_ADDOPTS": "", "COLUMNS": "100"}


def _stable(text: str, root: Path) -> str:
    """``text`` with what differs between runs (the copy's place, durations, clocks) written out."""
    return _TIMINGS.sub("<time>", text.replace(str(root), "<root>"))


def _compare(name: str, text: str) -> None:
    recorded = RECORDED / name
    if RECORD:
        recorded.parent.mkdir(parents=True, exist_ok=True)
        recorded.write_text(text, encoding="utf-8", newline="\n")
    assert recorded.is_file(), f"no recorded report {recorded}: record it with CITATIONS_RECORD_REPORTS=1"
    assert text == recorded.read_text(encoding="utf-8"), f"the report {name} changed"


def _fixed_files(root: Path, before: dict[str, bytes]) -> str:
    """The files ``--fix`` rewrote, each with its new text."""
    after = {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}
    changed = [name for name in after if before.get(name) != after[name] and ".citations_cache" not in name]
    return "".join(f"--- {name}\n{after[name].decode('utf-8', 'replace')}\n" for name in changed)


@pytest.mark.parametrize("copy", REPOSITORIES, indirect=True)
def test_check_in_every_format(copy):
    text = "".join(_cli(copy, "check", ".", "--no-cache", "--format", fmt) for fmt in FORMATS)
    text += _cli(copy, "check", ".", "--no-cache", "--statistics")
    _compare(f"{copy.name}/check.txt", _stable(text, copy))


@pytest.mark.parametrize("copy", REPOSITORIES, indirect=True)
def test_check_fix(copy):
    before = {str(path.relative_to(copy)): path.read_bytes() for path in copy.rglob("*") if path.is_file()}
    text = _cli(copy, "check", ".", "--no-cache", "--fix") + _fixed_files(copy, before)
    _compare(f"{copy.name}/fix.txt", _stable(text, copy))


@pytest.mark.parametrize("copy", REPOSITORIES, indirect=True)
def test_pytest_plugin(copy):
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--citations", "-p", "no:cacheprovider", "-q", "-rfE", "--no-header"],
        cwd=copy,
        capture_output=True,
        text=True,
        env=_terminal_environment(),
    )
    _compare(f"{copy.name}/pytest.txt", _stable(f"{run.stdout}{run.stderr}exit {run.returncode}\n", copy))


BRIEFS = sorted(
    (path.parent.parent.name, str(path.relative_to(path.parent.parent))) for path in FIXTURES.glob("*/briefs/*.md")
)


@pytest.mark.parametrize(("copy", "brief"), BRIEFS, indirect=["copy"])
def test_brief_validate(copy, brief):
    text = _cli(copy, "brief", "validate", brief, "--date", "2026-03-10")
    before = {str(path.relative_to(copy)): path.read_bytes() for path in copy.rglob("*") if path.is_file()}
    text += _cli(copy, "brief", "validate", brief, "--date", "2026-03-10", "--fix") + _fixed_files(copy, before)
    _compare(f"{copy.name}/brief-{Path(brief).stem}.txt", _stable(text, copy))


@pytest.mark.parametrize("copy", ["memory-repo"], indirect=True)
def test_memory_verify_all(copy):
    text = _cli(copy, "memory", "verify-all") + _cli(copy, "memory", "verify-all", "--json")
    for memory in sorted((copy / ".serena" / "memories").glob("*.md"))[:3]:
        text += _cli(copy, "memory", "verify", str(memory.relative_to(copy)))
    _compare(f"{copy.name}/memory.txt", _stable(text, copy))


@pytest.mark.parametrize("copy", ["research-run-utilization", "example-repo"], indirect=True)
def test_report_utilization(copy):
    runs = sorted(path.parent.parent for path in copy.rglob("citations/citations.jsonl"))
    text = "".join(
        _cli(copy, "report", "utilization", str(run.relative_to(copy)), "--format", fmt)
        for run in runs
        for fmt in ("text", "json")
    )
    assert runs, "the fixture holds no research run"
    _compare(f"{copy.name}/utilization.txt", _stable(text, copy))


@pytest.mark.parametrize("copy", ["claude-import-repo"], indirect=True)
def test_claude_import(copy):
    before = {str(path.relative_to(copy)): path.read_bytes() for path in copy.rglob("*") if path.is_file()}
    text = _cli(copy, "claude", "import", "exchanges/daily.exchange.json", "--brief", "briefs/daily.md")
    _compare(f"{copy.name}/claude-import.txt", _stable(text + _fixed_files(copy, before), copy))
