"""Utilization of a research run's citations by its synthesis, and phantom citations (U114-U116)."""

from __future__ import annotations

import json
import re
import shutil

from conftest import PROJECT
from frontends import assert_front_ends_agree
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main
from pytest_citations.kinds.url_citations.urls import cid_for
from pytest_citations.kinds.url_citations.utilization import cited_references

NAME = "research-run-utilization"
RUN = "runs/2026-03-01-heat-pumps"
DIAGNOSTIC_LINE = re.compile(r"^(?P<path>\S+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d{3}) (?:\[\*\] )?(?P<message>.*)$")
CITATIONS = f"{RUN}/citations/citations.jsonl"
PHANTOM = (
    f"{RUN}/synthesis.md", 6, 31, "U114",
    f"`https://www.heatpumpnews.example.com/europe-2024` is cited but has no record in {CITATIONS} (phantom citation)",
)
INVALID = (
    f"{RUN}/synthesis.md", 8, 58, "U115",
    f"`https://dead.example.org/heat-pump-study` is cited but its record ({CITATIONS}:3) has status 'invalid'",
)
FORUM = "https://www.installer-forum.example.net/threads/heat-pump-noise"
BLOCKED = (
    f"{RUN}/summaries/executive.md", 6, 53, "U116", f"`{FORUM}` is cited but its record ({CITATIONS}:5) has status 'blocked'",
)


def _copy(tmp_path):
    shutil.copytree(PROJECT / "fixtures" / NAME, tmp_path / NAME)
    return tmp_path / NAME


def test_engine_finds_the_phantom_the_invalid_and_the_blocked_citation(tmp_path):
    """The paywalled record (www.ft.com) is cited nowhere; were it cited, it would be no finding."""
    root = _copy(tmp_path)
    found = {(d.path, d.line, d.col, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics}
    assert found == {PHANTOM, INVALID, BLOCKED}


def test_report_utilization_json(tmp_path, capsys):
    root = _copy(tmp_path)
    assert main(["report", "utilization", str(root / RUN), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    iea = "https://www.iea.org/reports/the-future-of-heat-pumps"
    assert data["run"] == RUN
    assert data["synthesis_files"] == [f"{RUN}/synthesis.md", f"{RUN}/summaries/executive.md"]
    assert (data["records"], data["valid_records"], data["valid_cited"], data["utilization"]) == (5, 2, 1, 0.5)
    assert [(e["url"], e["status"], e["phantom"], e["cited_at"]) for e in data["cited"]] == [
        (iea, "valid", False, [f"{RUN}/synthesis.md:4:8", f"{RUN}/summaries/executive.md:4:4", f"{RUN}/summaries/executive.md:5:45"]),
        ("https://www.heatpumpnews.example.com/europe-2024", None, True, [f"{RUN}/synthesis.md:6:31"]),
        ("https://dead.example.org/heat-pump-study", "invalid", False, [f"{RUN}/synthesis.md:8:58"]),
        (FORUM, "blocked", False, [f"{RUN}/summaries/executive.md:6:53"]),
    ]
    assert data["cited"][0]["cid"] == cid_for(iea)
    assert data["unused_valid"] == [
        {"record_line": 2, "cid": cid_for("https://www.ehpa.org/market-data"), "url": "https://www.ehpa.org/market-data"}
    ]
    assert [e["url"] for e in data["phantom"]] == ["https://www.heatpumpnews.example.com/europe-2024"]
    assert [e["status"] for e in data["cited_not_valid"]] == ["invalid", "blocked"]
    assert {(d["path"], d["line"], d["col"], d["code"], d["message"]) for d in data["diagnostics"]} == {
        PHANTOM, INVALID, BLOCKED}


def test_report_utilization_text(tmp_path, capsys):
    root = _copy(tmp_path)
    assert main(["report", "utilization", str(root / RUN)]) == 1
    out = capsys.readouterr().out
    assert "utilization: 1 of 2 valid citations cited (50%)\n" in out
    assert "  PHANTOM (no record)  https://www.heatpumpnews.example.com/europe-2024  [" in out
    assert f"  {CITATIONS}:2  https://www.ehpa.org/market-data\n" in out
    assert out.endswith("1 phantom, 2 cited but not valid; 2 errors, 1 warning\n")


def test_report_usage_errors(tmp_path, capsys):
    assert main(["report", "utilization", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", "utilization", str(tmp_path / "empty")]) == 2
    assert "citations/citations.jsonl" in capsys.readouterr().err
    assert main(["report"]) == 2


def test_front_ends_agree(pytester, capsys):
    expected, (from_pytest, result) = assert_front_ends_agree(pytester, capsys, NAME, 3)
    assert from_pytest == {finding for finding in expected if finding[3] != "U116"}  # (failing items' text)
    result.stdout.fnmatch_lines([f"*CitationsWarning: {NAME}/{BLOCKED[0]}:6:53: U116 *"])
    # citations.jsonl and the executive summary pass (the summary with a U116 warning); synthesis.md
    # fails on U114 and U115
    result.assert_outcomes(passed=2, failed=1, warnings=1)


def test_statuses_are_configurable_and_warnings_do_not_fail(tmp_path, capsys):
    root = _copy(tmp_path)
    (root / "pyproject.toml").write_text(
        '[tool.citations]\nrules.U115.statuses = []\nrules.U116.statuses = ["invalid", "paywalled"]\n', encoding="utf-8"
    )
    found = [(d.code, d.severity.value, d.line) for d in Engine.load(root).check([root]).diagnostics]
    assert found == [("U114", "error", 6), ("U116", "warning", 8)]
    (root / "pyproject.toml").write_text(
        '[tool.citations]\nignore = ["U114"]\nrules.U115.statuses = []\nrules.U116.statuses = []\n', encoding="utf-8")
    assert main(["report", "utilization", str(root / RUN), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["diagnostics"] == []


def test_synthesis_files_are_configurable(tmp_path):
    root = _copy(tmp_path)
    (root / RUN / "final.md").write_text("See https://nowhere.example.net/x.\n", encoding="utf-8")
    (root / "pyproject.toml").write_text('[tool.citations.kinds.synthesis]\ninclude = ["**/final.md"]\n', encoding="utf-8")
    found = [(d.path, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics]
    assert found == [
        (f"{RUN}/final.md", "U114", f"`https://nowhere.example.net/x` is cited but has no record in {CITATIONS} (phantom citation)")
    ]


def test_a_synthesis_outside_a_run_is_not_checked(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "synthesis.md").write_text("See https://nowhere.example.net/x.\n", encoding="utf-8")
    assert Engine.load(tmp_path).check([tmp_path]).diagnostics == []


def test_cited_references_in_prose_only():
    cid = "cid_" + "a" * 64
    text = (
        "---\nurl: https://front.example/x\n---\n"
        "A [link](https://a.example/p_(x)) and https://b.example/q, then (https://c.example/r).\n"
        "```\nhttps://fenced.example/\n```\n"
        f"`https://span.example/` <!-- https://comment.example/ --> {cid}. x{cid}\n"
        "http:// alone, <https://d.example/s?b=2&a=1#frag>\n"
    )
    refs = [(r.line, r.col, r.text, r.normalized, r.cid) for r in cited_references(text)]
    assert refs == [
        (4, 10, "https://a.example/p_(x)", "https://a.example/p_(x)", None),
        (4, 39, "https://b.example/q", "https://b.example/q", None),
        (4, 66, "https://c.example/r", "https://c.example/r", None),
        (8, 59, cid, None, cid),
        (9, 17, "https://d.example/s?b=2&a=1#frag", "https://d.example/s?a=1&b=2", None),
    ]


def test_docs_show_the_fixture_report(tmp_path, capsys, monkeypatch):
    root = _copy(tmp_path)
    monkeypatch.chdir(root)
    assert main(["report", "utilization", RUN]) == 1
    out = capsys.readouterr().out
    doc = (PROJECT / "docs" / "utilization.md").read_text(encoding="utf-8")
    assert f"$ citations report utilization {RUN}\n{out}```" in doc


def test_bracketed_cid_markers_are_references_whatever_their_spelling():
    """``[@cid_x]`` names a cid even when it is not 64 hex digits (the markers research-run tools
    write into a synthesis); a bare ``cid_x`` in prose and a Markdown link ``[@cid_x](...)`` do not."""
    cid = "cid_" + "b" * 64
    text = (
        "Tracks reconcile [@cid_alpha]. Pressure fell [@cid_beta] [@cid_gamma-2:x].\n"
        f"Hashed [@{cid}] and bare {cid}; the cid_alpha placeholder; [@other] and [see @cid_beta].\n"
        "Ask [@cid_bot](https://t.me/cid_bot) for the chat id. `[@cid_code]` <!-- [@cid_hidden] -->\n"
    )
    refs = [(r.line, r.col, r.text, r.cid) for r in cited_references(text)]
    assert refs == [
        (1, 20, "cid_alpha", "cid_alpha"),
        (1, 48, "cid_beta", "cid_beta"),
        (1, 60, "cid_gamma-2:x", "cid_gamma-2:x"),
        (2, 10, cid, cid),
        (2, 89, cid, cid),
        (2, 205, "cid_beta", "cid_beta"),
        (3, 16, "https://t.me/cid_bot", None),
    ]


def test_every_cid_of_a_bracketed_citation_group_is_a_reference():
    """Pandoc's citation syntax: a bracketed group of citations separated by ``;``, each ``@key``
    with an optional prefix, locator and suffix (``[see @a, p. 3; @b]``) and ``-@key`` to leave out
    the author. Every ``@cid_...`` of such a group is a reference; an ``@`` inside a word (an
    e-mail address) and the text of a Markdown link are not."""
    text = (
        "Sales rose [@cid_a; @cid_b]. Costs fell [see @cid_c, p. 3; also @cid_d, ch. 2].\n"
        "Margins held [@cid_missing, p. 3] and [-@cid_e].\n"
        "Write to [ops@cid_mail.example] or [see @cid_link](https://example.com) [@cid_open\n"
    )
    refs = [(r.line, r.col, r.cid) for r in cited_references(text)]
    assert refs == [
        (1, 14, "cid_a"), (1, 22, "cid_b"), (1, 47, "cid_c"), (1, 66, "cid_d"),
        (2, 16, "cid_missing"), (2, 42, "cid_e"),
        (3, 52, None),  # the link's URL
    ]


def test_a_marker_whose_cid_no_record_has_is_a_phantom_and_one_with_a_record_resolves(tmp_path):
    run = tmp_path / "run"
    (run / "citations").mkdir(parents=True)
    (run / "citations" / "citations.jsonl").write_text(
        '{"cid":"cid_alpha","url":"https://example.com/a","normalized_url":"https://example.com/a","status":"valid"}\n',
        encoding="utf-8",
    )
    (run / "synthesis.md").write_text("Cited [@cid_alpha] and [@cid_omega].\n", encoding="utf-8")
    engine = Engine.load(tmp_path)
    found = [(d.line, d.col, d.code, d.message) for d in engine.check_file("run/synthesis.md", engine.kinds_for("run/synthesis.md"))]
    assert found == [
        (1, 26, "U114", "`cid_omega` is cited but has no record in run/citations/citations.jsonl (phantom citation)")
    ]


def test_a_synthesis_belongs_to_a_run_in_its_folder_or_the_one_above(tmp_path):
    """A repository with a citations/ folder at its top is not one research run holding every
    docs/summaries/*.md: a run's synthesis sits in the run or one folder down."""
    record = json.dumps({"schema_version": "citation.v1", "normalized_url": "https://example.com/a",
                         "cid": cid_for("https://example.com/a"), "url": "https://example.com/a",
                         "url_original": "https://example.com/a", "status": "valid",
                         "checked_at": "2026-02-14T00:00:00Z", "found_by": [], "notes": "ok"})
    for folder in ("citations", "runs/r1/citations"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "citations.jsonl").write_text(record + "\n", encoding="utf-8")
    for rel in ("docs/summaries/2024-q1.md", "meetings/summaries/monday.md", "runs/r1/synthesis/final.md",
                "runs/r1/summaries/short.md", "summaries/top.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("See https://github.com/org/repo/pull/12.\n", encoding="utf-8")
    found = sorted(d.path for d in Engine.load(tmp_path).check([tmp_path]).diagnostics if d.code == "U114")
    assert found == ["runs/r1/summaries/short.md", "runs/r1/synthesis/final.md", "summaries/top.md"]


def test_an_image_is_shown_not_cited():
    text = ("![chart](https://cdn.example.com/chart.png) ![a](<https://cdn.example.com/b c.png>)\n"
            '<img alt="x" src="https://cdn.example.com/d.png"> and [a link](https://example.com/cited)\n')
    assert [ref.text for ref in cited_references(text)] == ["https://example.com/cited"]
