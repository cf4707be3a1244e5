"""`citations check`, `pytest --citations` and `citations memory verify-all` agree on memories."""

from __future__ import annotations

import json
import re
import shutil

import hypothesis  # noqa: F401  (imported once here, not re-imported by every in-process pytest run)

from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main

MEMORY_REPO = PROJECT / "fixtures" / "memory-repo"
VERIFICATION = ("M206", "M207", "M208", "M209", "M210", "M211")
SUFFIX = re.compile(r" \((moved to line \d+|found at lines [\d, ]+: update line by hand)\)$")


def test_check_pytest_and_verify_all_report_the_same_stale_citations(pytester, capsys):
    root = pytester.path / "memory-repo"
    shutil.copytree(MEMORY_REPO, root, symlinks=True)
    shutil.copytree(PROJECT / "fixtures" / "hostile-repo", pytester.path / "hostile-repo", symlinks=True)

    report = Engine.load(root).check([root / ".serena" / "memories"])
    from_check = sorted(
        (d.path, d.line, SUFFIX.sub("", d.message)) for d in report.diagnostics if d.code in VERIFICATION
    )
    assert len(from_check) == 10

    assert main(["memory", "verify-all", "--repo-root", str(root), "--json"]) == 1
    results = json.loads(capsys.readouterr().out)
    from_verify_all = sorted(
        stale["mismatch_reason"]
        for result in results
        for stale in result["stale_citations"]
        if not stale["mismatch_reason"].startswith("Invalid citation")
    )
    assert from_verify_all == sorted(reason for _, _, reason in from_check)

    result = pytester.runpytest("--citations", f"--rootdir={root}", "memory-repo/.serena")
    line = re.compile(r"^memory-repo/(?P<path>\S+):(?P<line>\d+):(?P<col>\d+): (?P<code>M\d{3}) (?:\[\*\] )?(?P<message>.*)$")
    from_pytest = {(m["path"], int(m["line"]), m["code"], m["message"]) for m in map(line.match, result.outlines) if m}
    errors = {(d.path, d.line, d.code, d.message) for d in report.diagnostics if d.severity == "error"}
    assert from_pytest == errors
