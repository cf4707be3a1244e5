"""The hostile-input fixtures: each bad file ends in one clear diagnostic, and the run goes on."""

from __future__ import annotations

from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main

HOSTILE = PROJECT / "fixtures" / "hostile-repo"


def test_every_hostile_file_gets_a_clear_diagnostic():
    report = Engine.load(HOSTILE).check([HOSTILE])
    assert [(d.path.split("/")[1], d.line, d.col, d.code, d.message) for d in report.diagnostics] == [
        ("broken-lines", 1, 1, "U101", "invalid JSON: NaN is not valid JSON"),
        ("broken-lines", 2, 324, "U101", "invalid JSON: duplicate key 'notes'"),
        ("broken-lines", 3, 1, "U101", "invalid JSON: nested too deeply"),
        ("broken-lines", 4, 1, "U101", "line holds a JSON array, not a JSON object"),
        ("broken-lines", 6, 48, "U101", "invalid JSON: invalid control character at column 48"),
        ("dangling", 1, 1, "C001", "cannot read runs/dangling/citations/gone.jsonl: no such file"),
        ("escape", 1, 1, "C008", "path resolves outside the repository root: runs/escape/citations/citations.jsonl"),
        ("latin-1", 2, 340, "C002", "not valid UTF-8: byte 0xe9 at offset 656"),
        ("oversized", 3, 1, "C003", "line is 72367 bytes, over the 65536-byte limit on one record (max-file-size): it is "
                                    "skipped; the other lines are checked"),
        ("pretty-printed", 1, 1, "C004",
         "the file is one JSON document spread over several lines, not JSON Lines: write one record per line"),
    ]
    # A BOM and CRLF line ends are normal input, not a finding.
    assert "runs/bom-crlf/citations/citations.jsonl" in report.files


def test_the_target_of_an_escaping_link_is_never_printed(capsys):
    main(["check", str(HOSTILE / "runs" / "escape")])
    out = capsys.readouterr().out
    assert "C008" in out and "ev-volumes" not in out and "schema_version" not in out
