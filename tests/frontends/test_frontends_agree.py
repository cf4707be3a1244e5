"""The front ends (engine, `citations check`, `python -m pytest_citations`, `pytest --citations`)
report the same findings for the same files."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import hypothesis  # noqa: F401  (imported once here, not re-imported by every in-process pytest run)

from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main

DIAGNOSTIC_LINE = re.compile(r"^(?P<path>\S+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d{3}) (?:\[\*\] )?(?P<message>.*)$")


def test_engine_cli_and_pytest_agree(pytester, capsys):
    for name in ("example-repo", "hostile-repo"):
        shutil.copytree(PROJECT / "fixtures" / name, pytester.path / name, symlinks=True)
    expected = set()
    for name in ("example-repo", "hostile-repo"):
        root = pytester.path / name
        expected |= {(f"{name}/{d.path}", d.line, d.col, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics}
    assert len(expected) == 24

    from_cli = set()
    for name in ("example-repo", "hostile-repo"):
        assert main(["check", str(pytester.path / name), "--format", "json"]) == 1
        data = json.loads(capsys.readouterr().out)
        from_cli |= {(f"{name}/{d['path']}", d["line"], d["col"], d["code"], d["message"]) for d in data["diagnostics"]}
    assert from_cli == expected

    from_module = set()
    for name in ("example-repo", "hostile-repo"):
        command = [sys.executable, "-m", "pytest_citations", "check", name, "--format", "json"]
        completed = subprocess.run(command, cwd=pytester.path, capture_output=True, text=True)
        assert completed.returncode == 1, completed.stderr
        data = json.loads(completed.stdout)
        from_module |= {(f"{name}/{d['path']}", d["line"], d["col"], d["code"], d["message"]) for d in data["diagnostics"]}
    assert from_module == expected

    result = pytester.runpytest("--citations", f"--rootdir={pytester.path}", "example-repo", "hostile-repo")
    from_pytest = {
        (m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"])
        for m in map(DIAGNOSTIC_LINE.match, result.outlines)
        if m
    }
    # pytest's walk passes over a dangling symlink; the plugin collects it after the walk (C001).
    assert len({item for item in expected if item[3] == "C001"}) == 1
    assert from_pytest == expected
    result.assert_outcomes(passed=1, failed=8)  # the BOM/CRLF file is clean
