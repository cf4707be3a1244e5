"""The front ends (engine, `citations check`, `python -m pytest_citations`, `pytest --citations`)
report the same code-tuple findings for the same files."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import hypothesis  # noqa: F401  (imported once here, not re-imported by every in-process pytest run)

from conftest import PROJECT
from pytest_citations.cli import main
from pytest_citations.engine import Engine

DIAGNOSTIC_LINE = re.compile(
    r"^(?P<path>\S+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d{3}) (?:\[\*\] )?(?P<message>.*)$"
)


def test_engine_cli_and_pytest_agree_on_code_tuples(pytester, capsys):
    root = pytester.path / "code-tuples-repo"
    shutil.copytree(PROJECT / "fixtures" / "code-tuples-repo", root, symlinks=True)
    report = Engine.load(root).check([root])
    expected = {(f"code-tuples-repo/{d.path}", d.line, d.col, d.code, d.message) for d in report.diagnostics}
    assert len(expected) == 22

    assert main(["check", str(root), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    from_cli = {(f"code-tuples-repo/{d['path']}", d["line"], d["col"], d["code"], d["message"]) for d in data["diagnostics"]}
    assert from_cli == expected

    command = [sys.executable, "-m", "pytest_citations", "check", "code-tuples-repo", "--format", "json"]
    completed = subprocess.run(command, cwd=pytester.path, capture_output=True, text=True)
    assert completed.returncode == 1, completed.stderr
    data = json.loads(completed.stdout)
    from_module = {(f"code-tuples-repo/{d['path']}", d["line"], d["col"], d["code"], d["message"]) for d in data["diagnostics"]}
    assert from_module == expected

    result = pytester.runpytest("--citations", f"--rootdir={pytester.path}", "code-tuples-repo")
    from_pytest = {
        (m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"])
        for m in map(DIAGNOSTIC_LINE.match, result.outlines)
        if m
    }
    # errors fail the items; the UN-VERSIONED warnings (R409) are pytest warnings, in the warnings summary
    assert from_pytest == {item for item in expected if item[3] != "R409"}
    warnings = [item for item in expected if item[3] == "R409"]
    assert len(warnings) == 2
    output = result.stdout.str()
    for path, line, _col, code, message in warnings:
        assert f"{path}:{line}" in output and f"{code} {message}" in output
    result.assert_outcomes(failed=3, warnings=2)
