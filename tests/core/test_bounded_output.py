"""Bounded diagnostics and output (issue 18, docs/security.md "every input is bounded").

A diagnostic keeps a window of its source line, never the whole line; a message quotes at most
a few hundred characters of any value from a file; a file keeps at most KEPT_PER_CODE diagnostics
of each code, and one C009 counts the others. Settings globs match in time linear in the path
and the glob, and a checkout may nest folders a thousand deep.

The exhaustion cases run ``citations check`` in a child process, measured (:mod:`bounded_run`).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounded_run import check_bounded, pytest_bounded, repo_with
from pytest_citations.core.decisions import _suppressor
from pytest_citations.core.diagnostics import CONTEXT_REACH, MESSAGE_LIMIT, Diagnostic, Severity, clipped, quoted
from pytest_citations.core.suppressions import Directive, apply
from pytest_citations.engine import KEPT_PER_CODE, Engine
from pytest_citations.frontends.cli import main
from pytest_citations.frontends.reporters import FORMATS, render
from pytest_citations.frontends.reporters._common import source_lines


def one_line_memory(count: int) -> str:
    """A memory whose front matter cites ``count`` missing files on one line (each an M207)."""
    items = ", ".join(f"{{path: missing/f{n}.py}}" for n in range(count))
    return f"---\nid: many\ncitations: [{items}]\n---\nBody.\n"


def one_line_tuples(count: int) -> str:
    """Markdown with ``count`` inline tuples on one line, each citing a line past the end of a.py
    (an R412) without a hash (an R409 warning); each is followed by a colon, as a link reference
    definition would be, were it first on its line."""
    return "# Notes\n\nSee" + " [a.py, L9]:" * count + "\n"


MEMORY = ".serena/memories/many.md"
RECORD = '{"schema_version": "citation.v1"}\n'  # a citation record missing its other fields: one U102


# -- a long line with many findings -----------------------------------------------------------


@pytest.mark.parametrize(("kind", "files", "code", "count"), [
    ("memory", {MEMORY: one_line_memory(12_000)}, "M207", 12_000),  # a 330 KB front-matter line
    ("tuples", {"a.py": "x = 1\n", "notes.md": one_line_tuples(20_000)}, "R412", 20_000),  # a 220 KB line of tuples
])
def test_a_long_line_with_many_findings_is_checked_in_bounded_time_and_memory(tmp_path, kind, files, code, count):
    """Was: every diagnostic held the whole line (30 GB for this memory; 4 GB and quadratic time
    for these tuples), and the text format split it again for each one."""
    repo = repo_with(tmp_path / "repo", files)
    outcome = check_bounded(repo, "--format", "json")
    outcome.assert_bounded()
    assert outcome.status == 1
    found = outcome.diagnostics()
    shown = [d for d in found if d["code"] == code]
    summary = [d for d in found if d["code"] == "C009"]
    assert len(shown) == KEPT_PER_CODE
    assert [d["message"] for d in summary if f" {code} " in d["message"]] == [
        f"{count - KEPT_PER_CODE} more {code} diagnostics in this file are not shown: a file keeps at most {KEPT_PER_CODE} of each code"
    ]


def test_each_diagnostic_keeps_a_window_of_its_line_and_shows_what_the_whole_line_showed(tmp_path):
    line = "".join(chr(ord("a") + n % 26) for n in range(300_000))
    text = "---\nid: long\ncitations:\n  - path: " + line + "\n---\n"
    repo = repo_with(tmp_path / "repo", {MEMORY: text})
    [diagnostic] = Engine.load(repo).check([repo]).diagnostics
    assert (diagnostic.code, diagnostic.line, diagnostic.col) == ("M207", 4, 11)
    assert len(diagnostic.context) <= 2 * CONTEXT_REACH + 1
    full = "  - path: " + line
    assert source_lines(diagnostic.context, diagnostic.col, diagnostic.context_start) == source_lines(full, diagnostic.col)


@pytest.mark.parametrize("length", [0, 1, 199, 200, 201, 401, 402, 1000])
def test_the_window_of_a_line_shows_what_the_line_showed_at_every_column(length):
    line = "".join(chr(ord("a") + n % 26) for n in range(length))
    for col in sorted({1, 2, 100, 101, 200, 201, 202, 300, 401, 402, 403, 600, length // 2 + 1, length, length + 1, length + 2}):
        diagnostic = Diagnostic("X001", "x", Severity.ERROR, "m", "p", 1, col, context=line)
        assert len(diagnostic.context) <= 2 * CONTEXT_REACH + 1
        assert source_lines(diagnostic.context, col, diagnostic.context_start) == source_lines(line, col), (length, col)


def test_the_window_and_where_it_starts_come_back_from_the_cache(tmp_path, capsys, without_replay):
    """The cache keeps each window with where it starts in its line, so the caret stays put."""
    repo = repo_with(tmp_path / "repo", {"a.py": "x = 1\n", "notes.md": "x" * 5000 + " [a.py, L9]\n"})
    assert main(["check", str(repo)]) == 1
    first = capsys.readouterr().out
    assert main(["check", str(repo), "-v"]) == 1
    again = capsys.readouterr()
    assert "1 from the cache" in again.err
    assert again.out == first
    # the last 200 characters of the line for both (R409 and R412 are within 100 of its end)
    assert first.splitlines().count(f"    \u2026{'x' * 189} [a.py, L9]") == 2


# -- values quoted in messages ----------------------------------------------------------------


def test_a_value_quoted_in_a_message_is_cut_to_its_ends(tmp_path):
    """R412 ``lines L999…`` with 5000 digits printed them all."""
    document = {"citations": [{"artifact_id": "src/a.py", "lines": "L" + "9" * 5000}]}
    repo = repo_with(tmp_path / "repo", {"src/a.py": "x = 1\n", "cites.json": json.dumps(document)})
    messages = {d.code: d.message for d in Engine.load(repo).check([repo]).diagnostics}
    assert messages["R412"] == "lines L" + "9" * 131 + "\u2026" + "9" * 67 + " (5001 characters) ends past the end of src/a.py (1 line)"


def test_quoted_cuts_long_values_to_their_ends_and_names_long_integers_by_their_digits():
    assert quoted("abc") == "'abc'" and quoted("abc", plain=True) == "abc"
    long = "a" * 150 + "b" * 150
    assert quoted(long) == repr("a" * 132 + "\u2026" + "b" * 67) + " (300 characters)"
    assert quoted(long, plain=True) == "a" * 132 + "\u2026" + "b" * 67 + " (300 characters)"
    assert quoted(10**5000) == "an integer of about 5001 digits"
    assert quoted([1, 10**5000]) == "[1, an integer of about 5001 digits]"
    assert quoted({"b": 1, "a": None}) == "{'b': 1, 'a': None}"
    assert quoted(1.5) == "1.5" and quoted(True) == "True"
    assert len(quoted(list(range(10_000)))) <= 200


def test_a_message_and_a_fix_description_are_bounded_whatever_a_rule_writes():
    from pytest_citations.core.diagnostics import Edit, Fix

    diagnostic = Diagnostic("X001", "x", Severity.ERROR, "m" * 100_000, "p", fix=Fix("d" * 100_000, (Edit(0, 1, "y"),)))
    assert len(diagnostic.message) == MESSAGE_LIMIT and diagnostic.message.endswith(" (100000 characters)")
    assert len(diagnostic.fix.description) == MESSAGE_LIMIT
    assert clipped("short") == "short"


# -- the cap per file and code ----------------------------------------------------------------


def memory_citing(count: int, suppressed: set[int] = frozenset()) -> str:
    """A memory citing ``count`` missing files, one per line from line 4; those in ``suppressed``
    carry a suppression comment on the line before."""
    lines = []
    for n in range(count):
        if n in suppressed:
            lines.append("  # citations: disable-next-line M207 -- not written yet")
        lines.append(f"  - path: missing/f{n}.py")
    return "---\nid: many\ncitations:\n" + "\n".join(lines) + "\n---\nBody.\n"


def test_a_file_keeps_the_first_diagnostics_of_a_code_and_one_c009_counts_the_rest(tmp_path):
    repo = repo_with(tmp_path / "repo", {MEMORY: memory_citing(KEPT_PER_CODE + 50)})
    found = Engine.load(repo).check([repo]).diagnostics
    assert [(d.line, d.code) for d in found] == [(4 + n, "M207") for n in range(KEPT_PER_CODE)] + [(4 + KEPT_PER_CODE, "C009")]
    summary = found[-1]
    assert summary.message == f"50 more M207 diagnostics in this file are not shown: a file keeps at most {KEPT_PER_CODE} of each code"
    assert (summary.col, summary.severity, summary.context) == (11, Severity.ERROR, f"  - path: missing/f{KEPT_PER_CODE}.py")


def test_a_file_under_the_cap_once_suppressed_has_no_c009_and_every_suppression_is_used(tmp_path):
    """Suppressions are applied before the cap: what they suppress is never counted."""
    repo = repo_with(tmp_path / "repo", {MEMORY: memory_citing(KEPT_PER_CODE + 50, suppressed=set(range(0, 120, 2)))})
    codes = [d.code for d in Engine.load(repo).check([repo]).diagnostics]
    assert codes == ["M207"] * (KEPT_PER_CODE - 10)


def test_thousands_of_suppressions_are_applied_in_linear_time(tmp_path):
    """Was: each diagnostic was tried against every directive, and each directive's line counted
    from the top of the file (20000 of each: half a minute)."""
    repo = repo_with(tmp_path / "repo", {MEMORY: memory_citing(20_000, suppressed=set(range(20_000)))})
    outcome = check_bounded(repo, "--format", "json")
    outcome.assert_bounded()
    assert (outcome.status, outcome.diagnostics()) == (0, [])


@settings(max_examples=300, deadline=None)
@given(
    directives=st.lists(st.tuples(st.integers(1, 6), st.sampled_from(["disable-next-line", "disable-file"]),
                                  st.lists(st.sampled_from(["M207", "M206", "M2", "M", "R4", "C007"]), min_size=1, max_size=3)),
                        max_size=6),
    found=st.lists(st.tuples(st.sampled_from(["M207", "M206", "R406", "C007"]), st.integers(1, 7)), max_size=8),
)
def test_suppression_by_the_index_decides_as_apply_does(directives, found):
    """The engine asks only the directives that could cover a diagnostic; what it suppresses, and
    which directive and code it marks used, is what suppressions.apply would say."""
    def made():
        return [Directive(line, 1, action, tuple(codes), "") for line, action, codes in directives]

    diagnostics = [Diagnostic(code, "x", Severity.ERROR, "m", "p", line) for code, line in found]
    by_apply, by_index = made(), made()
    kept, _ = apply(diagnostics, by_apply)
    suppressed = _suppressor(by_index)
    assert [d for d in diagnostics if not suppressed(d)] == kept
    assert [d.used for d in by_index] == [d.used for d in by_apply]


def test_c009_goes_with_the_code_it_counts_and_cannot_be_ignored_alone(tmp_path, capsys):
    repo = repo_with(tmp_path / "repo", {MEMORY: memory_citing(KEPT_PER_CODE + 1)})
    assert main(["check", str(repo), "--ignore", "C009", "--statistics"]) == 1
    assert capsys.readouterr().out.split() == [str(KEPT_PER_CODE), "M207", "citation-file-not-found", "1", "C009", "too-many-diagnostics"]
    assert main(["check", str(repo), "--ignore", "M207"]) == 0


def test_the_same_cap_in_citations_check_and_pytest(pytester, capsys):
    repo = repo_with(pytester.path / "repo", {MEMORY: memory_citing(KEPT_PER_CODE + 3)})
    assert main(["check", str(repo), "--format", "json"]) == 1
    expected = {(d["line"], d["code"], d["message"]) for d in json.loads(capsys.readouterr().out)["diagnostics"]}
    result = pytester.runpytest("--citations", f"--rootdir={pytester.path}", "repo")
    shown = {(int(m[0]), m[1], m[2]) for m in re.findall(r"^\S+:(\d+):\d+: ([A-Z]\d{3}) (.*)$", result.stdout.str(), re.M)}
    assert shown == expected and len(expected) == KEPT_PER_CODE + 1
    result.assert_outcomes(failed=1)


def test_fix_fixes_past_the_cap_round_by_round(tmp_path, capsys):
    """Each round of --fix sees the first diagnostics of each code; the next round the next ones."""
    lines = "".join(f'{{"id": "q{n}", "ear_sections": ["EAR 736.2"]}}\n' for n in range(2 * KEPT_PER_CODE + 50))
    repo = repo_with(tmp_path / "repo", {"eval/items.v1.jsonl": lines})
    assert main(["check", str(repo), "--statistics"]) == 1
    assert capsys.readouterr().out.split() == [str(KEPT_PER_CODE), "E502", "[*]", "ear-id-not-canonical", "1", "C009", "too-many-diagnostics"]
    assert main(["check", str(repo), "--fix"]) == 0
    assert f"applied {2 * KEPT_PER_CODE + 50} fixes in 1 file" in capsys.readouterr().err
    assert (repo / "eval/items.v1.jsonl").read_text().count('"EAR-736.2"') == 2 * KEPT_PER_CODE + 50


def test_a_baseline_records_the_c009_and_a_change_in_its_count_is_new(tmp_path, capsys):
    repo = repo_with(tmp_path / "repo", {MEMORY: memory_citing(KEPT_PER_CODE + 5)})
    baseline = tmp_path / "baseline.json"
    assert main(["check", str(repo), "--write-baseline", str(baseline)]) == 0
    assert main(["check", str(repo), "--baseline", str(baseline)]) == 0
    (repo / MEMORY).write_text(memory_citing(KEPT_PER_CODE + 6))
    capsys.readouterr()
    assert main(["check", str(repo), "--baseline", str(baseline), "--format", "json"]) == 1
    assert [d["message"] for d in json.loads(capsys.readouterr().out)["diagnostics"]] == [
        f"6 more M207 diagnostics in this file are not shown: a file keeps at most {KEPT_PER_CODE} of each code"
    ]


# -- every output stays bounded ---------------------------------------------------------------


@pytest.mark.parametrize("format", FORMATS)
def test_every_output_format_stays_bounded(tmp_path, format):
    line = "z" * 200_000
    files = {MEMORY: one_line_memory(3000).replace("Body.", line + " [a.py, L9] " * 3000), "a.py": "x = 1\n"}
    repo = repo_with(tmp_path / "repo", files)
    outcome = check_bounded(repo, "--format", format)
    outcome.assert_bounded()
    assert outcome.status == 1
    assert len(outcome.output) < 1_000_000
    assert max(len(line) for line in outcome.output.splitlines()) < 3 * MESSAGE_LIMIT


def test_pytests_failure_text_stays_bounded(tmp_path):
    line = "z" * 200_000
    repo = repo_with(tmp_path / "repo", {MEMORY: one_line_memory(3000).replace("Body.", line)})
    outcome = pytest_bounded(repo)
    outcome.assert_bounded()
    assert "1 failed" in outcome.output
    assert "2800 more M207 diagnostics in this file are not shown" in outcome.output
    assert len(outcome.output) < 1_000_000 and max(len(line) for line in outcome.output.splitlines()) < 3 * MESSAGE_LIMIT


def test_pytests_warnings_summary_shows_a_window_of_the_line_and_stays_bounded(tmp_path):
    """Was: Python's warnings read each warning's line from the file and pytest printed it whole,
    once per warning: 48 MB for this 240 KB line (201 warnings), 169 MB for an 840 KB one."""
    tuples = " ".join("[a.py, L1]:" for _ in range(20_000))
    repo = repo_with(tmp_path / "repo", {"a.py": "x = 1\n", "notes/t.md": f"Tuples: {tuples}\n"})
    outcome = pytest_bounded(repo)
    outcome.assert_bounded()
    assert "1 passed, 201 warnings" in outcome.output
    summary = outcome.output.split("warnings summary", 1)[1]
    assert len(outcome.output) < 1_000_000 and max(len(line) for line in outcome.output.splitlines()) < 3 * MESSAGE_LIMIT
    # each warning shows the window of its line that `citations check` shows under it
    check = check_bounded(repo, "--no-cache").output
    expected = [line.strip() for line in check.splitlines() if line.startswith("    ") and line.strip() != "^"]
    assert [line.strip() for line in summary.splitlines() if line.startswith("    ")] == expected
    assert len(expected) == 201 and expected[0].startswith("Tuples: [a.py, L1]:") and expected[-1].startswith("\u2026")


def test_the_reporters_render_a_capped_report_in_memory_that_is_bounded(tmp_path):
    repo = repo_with(tmp_path / "repo", {MEMORY: one_line_memory(3000)})
    report = Engine.load(repo).check([repo])
    for format in FORMATS:
        assert len(render(format, report, None)) < 500_000, format


# -- hostile globs in the settings ------------------------------------------------------------

HOSTILE_GLOB = "*a*a*a*a*a*a*a*a*a*a*a*a*b"


@pytest.mark.parametrize("where", ["root", "nested"])
def test_a_hostile_exclude_glob_is_matched_in_linear_time(tmp_path, where):
    """Was: every file of the walk took minutes against it."""
    settings = f'[tool.citations]\nexclude = ["{HOSTILE_GLOB}"]\n'
    repo = repo_with(tmp_path / "repo", {"runs/r/citations/citations.jsonl": RECORD})
    folder = repo if where == "root" else repo / "sub"
    (folder / "pyproject.toml").parent.mkdir(exist_ok=True)
    (folder / "pyproject.toml").write_text(settings)
    for n in range(20):
        (folder / ("a" * 200 + str(n))).write_text("x\n")
    (folder / ("a" * 200 + "b")).mkdir()
    outcome = check_bounded(repo, "--format", "json")
    outcome.assert_bounded()
    assert [d["code"] for d in outcome.diagnostics()] == ["U102"]


# -- a thousand nested folders ----------------------------------------------------------------


DEPTH = 1000


@pytest.fixture
def nested_folders(tmp_path):
    """A repository with a citations file DEPTH folders down; removed afterwards, deepest first,
    since pytest removes old temporary folders by recursion, which this depth would exceed."""
    repo = repo_with(tmp_path / "repo", {})
    folders = [repo]
    for _ in range(DEPTH):  # (os.makedirs recurses too)
        folders.append(folders[-1] / "d")
        folders[-1].mkdir()
    (folders[-1] / "citations").mkdir()
    (folders[-1] / "citations" / "citations.jsonl").write_text(RECORD)
    yield repo
    (folders[-1] / "citations" / "citations.jsonl").unlink()
    (folders[-1] / "citations").rmdir()
    for folder in reversed(folders[1:]):
        folder.rmdir()


def test_a_thousand_nested_folders_are_walked_by_citations_check(nested_folders):
    """Was: RecursionError in the walk (Python 3.11's os.walk recurses)."""
    outcome = check_bounded(nested_folders, "--format", "json")
    outcome.assert_bounded()
    [found] = outcome.diagnostics()
    assert (found["path"], found["code"]) == ("d/" * DEPTH + "citations/citations.jsonl", "U102")


def test_a_thousand_nested_folders_are_walked_by_pytest(nested_folders):
    """Was: RecursionError in pytest's own walk of the folders, after a minute."""
    outcome = pytest_bounded(nested_folders)
    outcome.assert_bounded()
    assert "1 failed" in outcome.output
    assert re.search(r"^(d/){1000}citations/citations\.jsonl:1:1: U102 ", outcome.output, re.M), outcome.output[-3000:]
