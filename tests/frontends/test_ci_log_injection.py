"""Nothing from the checkout reaches the CI log as a command (issue 18, docs/security.md rule 5).

The GitHub Actions runner takes a line for a workflow command when it starts with ``::`` once its
leading whitespace is stripped (a line ends at LF, CR or CRLF), and ``##[`` anywhere in a line for
a legacy one. A hostile checkout puts ``::error::``, ``::add-mask::``, ``::stop-commands::`` and
``##[error]`` into artifact lines, values and file names (one at the root, where its name starts
a line; ones whose names hold a line feed or a carriage return before the mark), and every output
that can reach a CI log is run on it: each format of ``citations check`` (on standard output and
in ``--output-file``), ``--statistics``, standard error, ``pytest --citations`` (plain, ``-v -rA``
and under xdist), and the ``memory``, ``claude import``, ``report`` and ``brief`` commands. Only
``--format github`` prints commands: its annotations, one per line and nothing else.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import PROJECT
from pytest_citations.frontends.cli import main
from pytest_citations.frontends.reporters import FORMATS
from pytest_citations.frontends.reporters.ci_log import DefusedStream, defuse, defuse_json, defuse_text, xml_escape

# What the runner strips before looking for "::" (and more: any whitespace, a BOM, colour codes).
_LEAD = re.compile(r"^(?:\s|\ufeff|\x1b\[[0-9;]*m)*")


def command_lines(text: str) -> list[str]:
    """The lines of ``text`` a CI runner would read as a command."""
    return [
        line for line in re.split(r"\r\n|\r|\n", text)
        if _LEAD.sub("", line).startswith("::") or "##[" in line or "##vso[" in line.lower()
    ]


MEMORY = """---
id: same
citations:
  - path: src/a.py
    line: 2
    snippet: "::warning::expected"
  - path: "::add-mask::missing\\n::error::x ##[error]y"
links:
  -
    ::warning::linktype: other
---
# body
"""
HOSTILE_NAMES = ("::error::root.md", "a ##[error]b.md", "nl\n::add-mask::secret.md", "cr\r::stop-commands::tok.md")


@pytest.fixture
def hostile(tmp_path, monkeypatch) -> Path:
    """A checkout whose artifacts, cited file and file names carry workflow commands, the folder
    the command runs in (so that a file name starts a line of the text format)."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    monkeypatch.chdir(root)
    (root / "pyproject.toml").write_text('[tool.citations]\n[tool.citations.kinds.memories]\ninclude = ["*.md"]\n')
    (root / "src" / "a.py").write_text("def alpha():\n::error::in-a-cited-file\n")
    jsonl = root / "runs" / "r" / "citations" / "citations.jsonl"
    jsonl.parent.mkdir(parents=True)
    jsonl.write_text('{"url": "https://example.com/"}\n::error file=x::from an artifact line\n'
                     "  ::add-mask::indented\nx ##[error]legacy\n")
    for name in HOSTILE_NAMES:
        (root / name).write_text(MEMORY)
    return root


def _check(capsys, *args: str) -> tuple[str, str]:
    main(["check", *args])
    captured = capsys.readouterr()
    return captured.out, captured.err


# -- the defusing itself ----------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("::error::x", "\\x3a:error::x"),
    ("  \t::add-mask::x", "  \t\\x3a:add-mask::x"),
    ("ok\n  ::stop-commands::t\r::error::y\r\n::x", "ok\n  \\x3a:stop-commands::t\r\\x3a:error::y\r\n\\x3a:x"),
    ("\u3000\ufeff\x1b[31m::error::x", "\u3000\ufeff\x1b[31m\\x3a:error::x"),
    ("a ##[error]b ###[x] ##VSO[task] ##teamcity[m]", "a \\x23#[error]b #\\x23#[x] \\x23#VSO[task] \\x23#teamcity[m]"),
    ("path:1:2: a::b :: c", "path:1:2: a::b :: c"),  # "::" past the start of a line is no command
    (":x\n: :y", ":x\n: :y"),
])
def test_the_first_character_of_a_command_mark_is_shown_as_an_escape(text, expected):
    assert defuse(text) == expected
    assert command_lines(defuse(text)) == []


@given(st.text(alphabet=":# \t\r\n[ae\u3000\ufeffv", max_size=40))
def test_defused_text_starts_no_command_and_parses_back_in_json_and_xml(text):
    assert command_lines(defuse(text)) == []
    json_text = defuse_json(json.dumps({"k": text}, indent=2, ensure_ascii=False))
    assert command_lines(json_text) == [] and json.loads(json_text) == {"k": text}
    element = ET.Element("case", name=text)
    element.text = text
    xml_text = defuse(ET.tostring(element, encoding="unicode"), xml_escape)
    parsed = ET.fromstring(xml_text)
    assert command_lines(xml_text) == []
    assert parsed.get("name") == text
    assert parsed.text in (None, text.replace("\r\n", "\n").replace("\r", "\n"))  # (XML reads any line end as LF)


@given(st.text(alphabet=":# \t\r\n[evx\ud800", max_size=40), st.lists(st.integers(0, 40), max_size=6))
def test_a_stream_defuses_whatever_pieces_the_text_comes_in(text, cuts):
    import io

    out = io.StringIO()
    stream = DefusedStream(out)
    start = 0
    for cut in sorted(cuts):
        stream.write(text[start:cut])
        stream.flush()
        start = max(start, cut)
    stream.write(text[start:])
    stream.drain()
    assert out.getvalue() == defuse_text(text)


def test_lone_surrogates_are_printed_as_escapes():
    assert defuse_text("a\ud800b\udcff") == "a\\ud800b\\udcff"
    assert json.loads(defuse_json('"a\ud800"')) == "a\ud800"


# -- citations check ------------------------------------------------------------------------


@pytest.mark.parametrize("output_format", [f for f in FORMATS if f != "github"])
def test_no_format_of_citations_check_prints_a_command(hostile, capsys, output_format):
    out, err = _check(capsys, str(hostile), "--no-cache", "--format", output_format)
    assert "::error" in out.replace("\\u003a", ":").replace("&#58;", ":")  # the hostile text is there...
    assert command_lines(out) == []  # ...and starts no command
    assert command_lines(err) == []
    written = hostile.parent / f"report.{output_format}"
    main(["check", str(hostile), "--no-cache", "--format", output_format, "--output-file", str(written)])
    assert command_lines(written.read_text(encoding="utf-8")) == []


def test_the_text_format_shows_each_mark_escaped(hostile, capsys):
    out, _ = _check(capsys, str(hostile), "--no-cache")
    assert "\n    \\x3a:error file=x::from an artifact line\n" in out  # an artifact's line, quoted
    assert "\n      \\x3a:add-mask::indented\n" in out
    assert "\n\\x3a:error::root.md:5:11: M211 " in out  # a file name at the start of a line
    assert "a \\x23#[error]b.md:5:11: M211 " in out
    assert "cr\\x0d::stop-commands::tok.md" in out and "nl\\x0a::add-mask::secret.md" in out


def test_json_and_sarif_keep_the_data_and_junit_the_text(hostile, capsys):
    data = json.loads(_check(capsys, str(hostile), "--no-cache", "--format", "json")[0])
    assert "a ##[error]b.md" in {d["path"] for d in data["diagnostics"]}
    assert "nl\n::add-mask::secret.md" in {d["path"] for d in data["diagnostics"]}
    sarif = json.loads(_check(capsys, str(hostile), "--no-cache", "--format", "sarif")[0])
    messages = [result["message"]["text"] for result in sarif["runs"][0]["results"]]
    assert any("::add-mask::missing\n::error::x ##[error]y" in message for message in messages)
    junit = ET.fromstring(_check(capsys, str(hostile), "--no-cache", "--format", "junit")[0])
    names = {case.get("name") for case in junit.iter("testcase")}
    assert {"::error::root.md", "a ##[error]b.md"} <= names
    failure = next(case for case in junit.iter("testcase") if case.get("name") == "::error::root.md").find("failure")
    assert failure.text.startswith("::error::root.md:2:5: M214 ")  # the text as the text format has it


def test_github_annotations_are_the_only_commands(hostile, capsys):
    out, err = _check(capsys, str(hostile), "--no-cache", "--format", "github")
    lines = out.splitlines()
    assert lines and all(re.fullmatch(r"::(error|warning) file=[^:\r\n]*,line=\d+,col=\d+,title=[^:\r\n]*::[^\r\n]*", line)
                         for line in lines)
    assert len(re.split(r"\r\n|\r|\n", out.rstrip("\n"))) == len(lines)
    assert command_lines(err) == []


def test_statistics_and_standard_error_print_no_command(hostile, capsys):
    out, err = _check(capsys, str(hostile), "--no-cache", "--statistics")
    assert out and command_lines(out) == []
    unclaimed = hostile / "z\n::error::q.txt"
    unclaimed.write_text("nothing to see\n")
    out, err = _check(capsys, str(hostile / "::error::root.md"), str(unclaimed), "-v")
    assert "is not checked" in err
    assert command_lines(err) == []


def test_a_usage_error_quoting_the_settings_prints_no_command(hostile, capsys):
    (hostile / "pyproject.toml").write_text('[tool.citations]\nselect = ["\\n::error::x ##[error]"]\n')
    assert main(["check", str(hostile)]) == 2
    captured = capsys.readouterr()
    assert "citations: error:" in captured.err
    assert command_lines(captured.err) == []


# -- pytest --citations ------------------------------------------------------------------------


@pytest.mark.parametrize("options", [["-q"], ["-v", "-rA"], ["-rA", "-n", "2"]], ids=["plain", "verbose", "xdist"])
def test_pytest_prints_no_command(hostile, options):
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--citations", "-p", "no:cacheprovider", "-p", "no:randomly", *options],
        cwd=hostile, capture_output=True, text=True, errors="replace", timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    output = done.stdout + done.stderr
    assert "\\x3a:warning::linktype: other" in output  # the warnings summary's line of the artifact
    assert "CitationsWarning" in output and "M211" in output
    assert command_lines(output) == []


def test_a_pytest_usage_error_quoting_the_settings_prints_no_command(hostile):
    (hostile / "pyproject.toml").write_text('[tool.citations]\nselect = ["\\n::error::x ##[error]"]\n')
    done = subprocess.run([sys.executable, "-m", "pytest", "--citations", "-p", "no:cacheprovider"],
                          cwd=hostile, capture_output=True, text=True, timeout=120)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "citations:" in done.stderr
    assert command_lines(done.stdout + done.stderr) == []


# -- the other commands ------------------------------------------------------------------------


@pytest.mark.parametrize("json_output", [False, True], ids=["text", "json"])
def test_memory_verify_prints_no_command(hostile, capsys, json_output):
    memories = hostile / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "cr\r::error::m.md").write_text(MEMORY.replace("id: same", "id: \"x\\n::add-mask::id ##[error]\""))
    flags = ["--json"] if json_output else []
    assert main(["memory", "verify-all", "--repo-root", str(hostile), *flags]) == 1
    out = capsys.readouterr().out
    assert "add-mask::id" in out and "stop" not in out
    assert command_lines(out) == []
    if json_output:
        assert json.loads(out)[0]["memory_id"] == "x\n::add-mask::id ##[error]"
    assert main(["memory", "verify", str(memories / "cr\r::error::m.md"), "--repo-root", str(hostile), *flags]) == 1
    assert command_lines(capsys.readouterr().out) == []


def test_claude_import_prints_no_command(tmp_path, capsys):
    root = tmp_path / "claude-import-repo"
    shutil.copytree(PROJECT / "fixtures" / "claude-import-repo", root)
    exchange = root / "exchanges" / "x\n::add-mask::y ##[error].exchange.json"
    (root / "exchanges" / "daily.exchange.json").rename(exchange)
    assert main(["claude", "import", str(exchange), "--brief", str(root / "briefs" / "daily.md")]) == 1
    captured = capsys.readouterr()
    assert "rejected exchanges/x" in captured.out and "imported [1]" in captured.out
    assert command_lines(captured.out) == []
    assert command_lines(captured.err) == []


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_report_utilization_prints_no_command(tmp_path, capsys, output_format):
    root = tmp_path / "research-run-utilization"
    shutil.copytree(PROJECT / "fixtures" / "research-run-utilization", root)
    run = root / "runs" / "2026-03-01-heat-pumps"
    (run / "summaries" / "e ##[error]\n::add-mask::k.md").write_text("See https://evil.example/ for more.\n")
    main(["report", "utilization", str(run), "--format", output_format])
    out = capsys.readouterr().out
    assert "evil.example" in out
    assert command_lines(out) == []
    if output_format == "json":
        (phantom,) = [entry for entry in json.loads(out)["phantom"] if entry["url"] == "https://evil.example/"]
        assert phantom["cited_at"] == ["runs/2026-03-01-heat-pumps/summaries/e ##[error]\n::add-mask::k.md:1:5"]


def test_brief_validate_prints_no_command(tmp_path, capsys):
    root = tmp_path / "brief-repo"
    shutil.copytree(PROJECT / "fixtures" / "brief-repo", root)
    brief = next(path for path in sorted((root / "briefs").glob("*.md")) if "## References" in path.read_text())
    brief.write_text(brief.read_text().replace("## References", "## References\n\n[77] Pub. \"T\". Published 2026-01-01. https://x.example/ ##[error]x\n", 1))
    main(["brief", "validate", str(brief)])
    out = capsys.readouterr().out
    assert "##[error]x" in json.dumps(json.loads(out), ensure_ascii=False)
    assert command_lines(out) == []
