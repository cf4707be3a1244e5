"""A citations.jsonl larger than max-file-size is streamed record by record (issue 19): the limit
caps one line, a line over it is a C003 at that line, and the other records are still checked."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main
from url_records import valid_record

CITATIONS = "run/citations/citations.jsonl"
CAP = 4096


def big_run(root: Path, lines: list[str], cap: int = CAP) -> Path:
    """A repository whose run's citations file holds ``lines``, under a ``max-file-size`` of ``cap``."""
    (root / "run" / "citations").mkdir(parents=True)
    (root / "run" / "wave-1").mkdir()
    (root / "run" / "wave-1" / "p1.md").write_text("# Perspective 1\n")
    (root / "pyproject.toml").write_text(f"[tool.citations]\nmax-file-size = {cap}\n")
    (root / CITATIONS).write_text("".join(line + "\n" for line in lines))
    return root


def records(count: int) -> list[str]:
    return [json.dumps(valid_record(f"https://example.com/doc/{n}"), separators=(",", ":")) for n in range(count)]


def findings(root: Path) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in Engine.load(root).check([root]).diagnostics]


def test_a_megabyte_of_records_under_a_4096_byte_limit_is_checked_record_by_record(tmp_path):
    lines = records(3000)
    broken = valid_record("https://example.com/broken")
    broken["status"] = "shiny"
    lines[2500] = json.dumps(broken, separators=(",", ":"))  # one bad record deep in the file
    root = big_run(tmp_path, lines)
    assert (root / CITATIONS).stat().st_size > 1_000_000
    found = findings(root)
    assert "C003" not in {code for _, code in found}
    assert {line for line, _ in found} == {2501}


def test_a_record_over_the_limit_is_a_c003_at_its_line_and_the_lines_after_it_are_checked(tmp_path):
    lines = records(20)
    lines[5] = json.dumps(valid_record("https://example.com/long", notes="x" * (2 * CAP)), separators=(",", ":"))
    lines[12] = lines[3]  # a duplicate cid after the long line: U113 on line 13, naming line 4
    root = big_run(tmp_path, lines)
    report = Engine.load(root).check([root])
    found = [(d.line, d.code, d.message) for d in report.diagnostics]
    size = len(lines[5]) + 1
    assert found == [
        (6, "C003", f"line is {size} bytes, over the {CAP}-byte limit on one record (max-file-size): it is skipped; "
                    "the other lines are checked"),
        (13, "U113", f"cid {json.loads(lines[3])['cid']} already appears on line 4: merge the records"),
    ]


def test_a_file_within_the_limit_reads_as_before(tmp_path):
    lines = records(5)
    lines[2] = "{not json"
    root = big_run(tmp_path, lines, cap=16 * 1024 * 1024)
    assert findings(root) == [(3, "U101")]


def test_a_pretty_printed_document_over_the_limit_is_one_c004(tmp_path):
    document = json.dumps([valid_record(f"https://example.com/doc/{n}") for n in range(40)], indent=2)
    root = big_run(tmp_path, document.splitlines())
    assert (root / CITATIONS).stat().st_size > CAP
    assert findings(root) == [(1, "C004")]


def test_a_lone_brace_on_the_first_line_of_records_over_the_limit_is_one_bad_line(tmp_path):
    """The next line is a record: the file is JSON Lines whose first line is bad, read on as it is
    within the limit (the brace alone does not make it one document)."""
    lines = ["{", *records(60)]
    lines[30] = "{not json"
    root = big_run(tmp_path / "over", lines)
    assert (root / CITATIONS).stat().st_size > CAP
    assert findings(root) == [(1, "U101"), (31, "U101")]
    within = big_run(tmp_path / "within", lines, cap=16 * 1024 * 1024)
    assert findings(within) == findings(root)


def test_fix_leaves_a_file_over_the_limit_as_it_is_and_reports_its_findings(tmp_path, capsys):
    """--fix rewrites a whole file, so it reads one only within max-file-size; a larger file is
    checked as a stream, and its fixable findings are reported unfixed."""
    lines = records(30)
    lines[20] = lines[1]  # a duplicate cid: U113, fixable within the limit
    root = big_run(tmp_path, lines)
    before = (root / CITATIONS).read_bytes()
    assert main(["check", "--fix", "--no-cache", "--format", "json", str(root)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [(d["line"], d["code"]) for d in report["diagnostics"]] == [(21, "U113")]
    assert (root / CITATIONS).read_bytes() == before


def test_a_synthesis_looks_its_citations_up_in_a_citations_file_over_the_limit(tmp_path):
    """The run-wide index of a run's records streams the citations file as its check does."""
    root = big_run(tmp_path, records(3000))
    (root / "run" / "synthesis.md").write_text(
        "# Synthesis\n\nKnown (https://example.com/doc/2999).\nPhantom (https://example.com/missing).\n")
    assert [(d.path, d.line, d.code) for d in Engine.load(root).check([root]).diagnostics] == [
        ("run/synthesis.md", 4, "U114")]
