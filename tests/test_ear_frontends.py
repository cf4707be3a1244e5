"""The front ends (engine, `citations check`, `python -m pytest_citations`, `pytest --citations`)
report the same EAR id findings for the example evaluation repository."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

from conftest import PROJECT
from pytest_citations.cli import main
from pytest_citations.engine import Engine

DIAGNOSTIC_LINE = re.compile(r"^(?P<path>\S+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d{3}) (?:\[\*\] )?(?P<message>.*)$")
NAME = "ear-repo"


def test_engine_cli_and_pytest_agree_on_ear_ids(pytester, capsys):
    shutil.copytree(PROJECT / "fixtures" / NAME, pytester.path / NAME)
    root = pytester.path / NAME
    expected = {(f"{NAME}/{d.path}", d.line, d.col, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics}
    assert len(expected) == 13

    assert main(["check", str(root), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert {(f"{NAME}/{d['path']}", d["line"], d["col"], d["code"], d["message"]) for d in data["diagnostics"]} == expected

    command = [sys.executable, "-m", "pytest_citations", "check", NAME, "--format", "json"]
    completed = subprocess.run(command, cwd=pytester.path, capture_output=True, text=True)
    assert completed.returncode == 1, completed.stderr
    data = json.loads(completed.stdout)
    assert {(f"{NAME}/{d['path']}", d["line"], d["col"], d["code"], d["message"]) for d in data["diagnostics"]} == expected

    result = pytester.runpytest("--citations", f"--rootdir={pytester.path}", NAME)
    from_pytest = {
        (m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"])
        for m in map(DIAGNOSTIC_LINE.match, result.outlines)
        if m
    }
    assert from_pytest == expected
    # corpus, dataset, golden, manifest and the Turtle file fail; unanswerable, JSON-LD and RAG outputs pass
    result.assert_outcomes(passed=3, failed=5)
