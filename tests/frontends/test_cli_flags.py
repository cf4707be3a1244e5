"""Flags of `citations check` that ruff users reach for (issue 19): --color, the baseline's hidden
count, --show-fixes, `-` with --stdin-filename, and --watch."""

from __future__ import annotations

import io
import json
import re
import shutil

import pytest

from conftest import PROJECT
from pytest_citations.frontends.cli import main

EXAMPLE = PROJECT / "fixtures" / "example-repo"
EV = "research-runs/2026-01-30-ev-market/citations/citations.jsonl"
SOLID = "research-runs/2026-02-13-solid-state-batteries/citations/citations.jsonl"
SGR = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    target = tmp_path / "example-repo"
    shutil.copytree(EXAMPLE, target)
    for name in ("NO_COLOR", "FORCE_COLOR", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(target)  # the command runs in the repository: paths are shown from there
    return target


class Terminal(io.StringIO):
    """Standard output that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _out(capsys, *args) -> tuple[int, str]:
    code = main(["check", *map(str, args)])
    return code, capsys.readouterr().out


def _on_terminal(monkeypatch, *args) -> str:
    terminal = Terminal()
    with monkeypatch.context() as patch:
        patch.setattr("sys.stdout", terminal)
        main(["check", *map(str, args)])
    return terminal.getvalue()


# -- --color --------------------------------------------------------------------------------------


def test_color_auto_colours_the_text_format_on_a_terminal_only(repo, capsys, monkeypatch):
    _, piped = _out(capsys, repo / SOLID)
    assert "\x1b" not in piped
    shown = _on_terminal(monkeypatch, repo / SOLID)
    assert SGR.search(shown)
    assert SGR.sub("", shown) == piped  # the same text, only coloured


def test_color_paints_the_path_the_code_and_the_caret(repo, capsys):
    _, shown = _out(capsys, repo / SOLID, "--color", "always")
    first, source, caret = shown.splitlines()[:3]
    assert first.startswith(f"\x1b[1m{SOLID}\x1b[0m:1:53: \x1b[1;31mU104\x1b[0m \x1b[36m[*]\x1b[0m ")
    assert "\x1b" not in source
    assert caret.endswith("\x1b[1;31m^\x1b[0m")


def test_the_command_line_wins_over_the_environment(repo, capsys, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b" not in _on_terminal(monkeypatch, repo / SOLID)
    assert SGR.search(_out(capsys, repo / SOLID, "--color", "always")[1])
    monkeypatch.setenv("NO_COLOR", "")  # empty: as if unset
    assert SGR.search(_on_terminal(monkeypatch, repo / SOLID))
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert SGR.search(_out(capsys, repo / SOLID)[1])  # not a terminal, yet coloured
    assert "\x1b" not in _out(capsys, repo / SOLID, "--color", "never")[1]
    monkeypatch.setenv("NO_COLOR", "1")  # both: no colour
    assert "\x1b" not in _out(capsys, repo / SOLID)[1]


@pytest.mark.parametrize("output_format", ["json", "github", "sarif", "junit"])
def test_machine_formats_are_never_coloured(repo, capsys, monkeypatch, output_format):
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, shown = _out(capsys, repo, "--color", "always", "--format", output_format)
    assert "\x1b" not in shown


def test_statistics_and_files_are_not_coloured_unless_asked(repo, capsys, tmp_path, monkeypatch):
    assert "\x1b" not in _out(capsys, repo, "--color", "always", "--statistics")[1]
    report = tmp_path / "report.txt"
    main(["check", str(repo), "--output-file", str(report)])
    assert "\x1b" not in report.read_text()
    monkeypatch.setenv("FORCE_COLOR", "1")  # (CI services export it for their own logs)
    main(["check", str(repo), "--output-file", str(report)])
    assert "\x1b" not in report.read_text()
    main(["check", str(repo), "--output-file", str(report), "--color", "always"])
    assert "\x1b" in report.read_text()


def test_quiet_and_silent_say_nothing_of_the_baseline_written(repo, capsys, tmp_path):
    for flag in ("-q", "-s"):
        assert main(["check", str(repo), flag, "--write-baseline", str(tmp_path / "baseline.json")]) == 0
        assert capsys.readouterr().err == ""


def test_a_hostile_path_or_message_cannot_add_escape_sequences(repo, capsys):
    hostile = "2026-02-13-\x1b[2J\x1b]0;pwned\x07solid"
    (repo / "research-runs" / "2026-02-13-solid-state-batteries").rename(repo / "research-runs" / hostile)
    jsonl = repo / "research-runs" / hostile / "citations" / "citations.jsonl"
    jsonl.write_text(jsonl.read_text().replace("https://", "https://\\u001b[5m", 1))
    _, shown = _out(capsys, repo, "--color", "always")
    assert SGR.search(shown)
    ours = {"\x1b[1m", "\x1b[0m", "\x1b[1;31m", "\x1b[1;33m", "\x1b[36m"}
    assert set(SGR.findall(shown)) <= ours
    assert "\x1b" not in SGR.sub("", shown)
    assert "\\x1b[2J\\x1b]0;pwned\\x07solid" in shown


# -- the baseline's hidden count -----------------------------------------------------------------


def _baseline(repo, tmp_path, capsys):
    baseline = tmp_path / "baseline.json"
    assert main(["check", str(repo), "--write-baseline", str(baseline)]) == 0
    capsys.readouterr()
    return baseline


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_summary_says_how_many_findings_the_baseline_hid(repo, tmp_path, capsys, jobs):
    baseline = _baseline(repo, tmp_path, capsys)
    for _ in range(2):  # the second run is answered by the record of the first
        code, shown = _out(capsys, repo, "--baseline", baseline, "-j", jobs)
        assert code == 0
        assert shown.splitlines()[-1] == "All checks passed: 2 files checked (14 findings hidden by the baseline)."
    with (repo / SOLID).open("a") as stream:
        stream.write('{"not": "a record"}\n')
    code, shown = _out(capsys, repo, "--baseline", baseline, "-j", jobs, "--no-source")
    assert code == 1
    assert shown.splitlines()[-2:] == ["Found 1 error in 1 file (14 more hidden by the baseline).",
                                       "`citations rule CODE` explains a rule."]


def test_json_carries_the_hidden_count_with_a_baseline_only(repo, tmp_path, capsys):
    baseline = _baseline(repo, tmp_path, capsys)
    _, shown = _out(capsys, repo, "--baseline", baseline, "--format", "json")
    assert json.loads(shown)["summary"] == {"errors": 0, "warnings": 0, "fixable": 0, "hidden_by_baseline": 14}
    _, shown = _out(capsys, repo, "--format", "json")
    assert "hidden_by_baseline" not in json.loads(shown)["summary"]


def test_a_baseline_that_hides_nothing_says_nothing(repo, tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    baseline = _baseline(empty, tmp_path, capsys)
    _, shown = _out(capsys, repo, "--baseline", baseline, "--no-source")
    assert shown.splitlines()[-3] == "Found 14 errors in 2 files."


def test_fix_with_a_baseline_fixes_no_hidden_finding_and_counts_them(repo, tmp_path, capsys):
    baseline = _baseline(repo, tmp_path, capsys)
    before = (repo / SOLID).read_text()
    code, shown = _out(capsys, repo, "--baseline", baseline, "--fix")
    assert code == 0
    assert (repo / SOLID).read_text() == before  # what the baseline hides is not fixed
    assert shown.splitlines()[-1] == "All checks passed: 2 files checked (14 findings hidden by the baseline)."


# -- --show-fixes ---------------------------------------------------------------------------------


def test_show_fixes_lists_the_fixes_applied_per_file(repo, capsys):
    code, shown = _out(capsys, repo, "--fix", "--show-fixes", "--no-source")
    assert code == 1
    lines = shown.splitlines()
    start = lines.index("Fixed 5 findings:")
    assert lines[start - 1] == ""
    assert lines[start + 1:start + 7] == [
        f"- {EV}:",
        "    1 × U104 (normalized-url-mismatch)",
        f"- {SOLID}:",
        "    1 × U104 (normalized-url-mismatch)",
        "    1 × U105 (cid-mismatch)",
        "    1 × U106 (cid-format)",
    ]
    # (a U113 fix is offered once the U105 fix gave the record its right cid: a second round)
    assert lines[start + 7:start + 10] == ["    1 × U113 (duplicate-cid)", "", "Found 9 errors in 1 file."]


def test_show_fixes_without_fix_lists_the_fixable_findings(repo, capsys):
    code, shown = _out(capsys, repo, "--show-fixes", "--no-source")
    assert code == 1
    lines = shown.splitlines()
    start = lines.index("4 findings fixable with `citations check --fix`:")
    assert lines[start + 1:start + 3] == [f"- {EV}:", "    1 × U104 (normalized-url-mismatch)"]
    assert lines[start + 3] == f"- {SOLID}:"
    _, plain = _out(capsys, repo, "--no-source")
    assert "fixable with `citations check --fix`:" not in plain  # only when asked


def test_show_fixes_stays_out_of_machine_formats(repo, capsys):
    _, shown = _out(capsys, repo, "--show-fixes", "--format", "json")
    assert json.loads(shown)["summary"]["fixable"] == 4


# -- `-` with --stdin-filename ---------------------------------------------------------------------


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def _check_stdin(monkeypatch, capsys, data: bytes, *args) -> tuple[int, str, str]:
    _stdin(monkeypatch, data)
    code = main(["check", "-", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_stdin_is_checked_as_the_file_it_names(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    text = (repo / SOLID).read_bytes()
    _, on_disk = _out(capsys, SOLID, "--no-cache", "--format", "json")
    code, shown, _ = _check_stdin(monkeypatch, capsys, text, "--stdin-filename", SOLID, "--format", "json")
    assert code == 1

    def found(report: str) -> list[tuple]:  # (U113's merge is offered only for a text held whole, as --fix holds it)
        return [(d["path"], d["line"], d["col"], d["code"], d["message"]) for d in json.loads(report)["diagnostics"]]

    assert found(shown) == found(on_disk)
    code, shown, _ = _check_stdin(monkeypatch, capsys, text + b'{"not": "a record"}\n', "--stdin-filename", SOLID,
                                  "--format", "json")
    assert (repo / SOLID).read_bytes() == text
    assert [d["line"] for d in json.loads(shown)["diagnostics"] if d["code"] == "U102"] == [11, 13]


def test_stdin_under_a_new_name_reads_the_rest_of_the_repository_from_disk(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    moved = "research-runs/2026-02-13-solid-state-batteries/citations/citations.jsonl"
    text = (repo / moved).read_bytes()
    (repo / moved).unlink()
    code, shown, _ = _check_stdin(monkeypatch, capsys, text, "--stdin-filename", moved, "--format", "json")
    data = json.loads(shown)
    assert code == 1 and data["files_checked"] == 1
    assert {d["path"] for d in data["diagnostics"]} == {moved}
    # U111 asks the disk whether the run directory holds a cited artifact
    assert any(d["code"] == "U111" for d in data["diagnostics"])


def test_stdin_that_no_kind_claims_is_not_checked(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    code, shown, err = _check_stdin(monkeypatch, capsys, b"hello\n", "--stdin-filename", "notes/readme.txt")
    assert code == 0
    assert "notes/readme.txt is not checked: no kind claims it" in err
    assert "All checks passed: 0 files checked." in shown


def test_stdin_is_untrusted_like_a_file(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    with (repo / "pyproject.toml").open("a") as settings:
        settings.write("max-file-size = 100\n")
    record = b'{"schema_version": "citation.v1", "a": "'
    code, shown, _ = _check_stdin(monkeypatch, capsys, record + b'"}\n' * 30, "--stdin-filename", SOLID, "--no-source")
    assert code == 1
    assert f"{SOLID}:1:1: C003 file is over the 100-byte limit (max-file-size)" in shown
    code, shown, _ = _check_stdin(monkeypatch, capsys, record + b'\xff"}\n', "--stdin-filename", SOLID, "--no-source")
    assert code == 1
    assert f"{SOLID}:1:{len(record) + 1}: C002 not valid UTF-8: byte 0xff at offset {len(record)}" in shown


def test_stdin_named_as_an_excluded_file_is_checked_as_that_file_named_on_disk_is(repo, capsys, monkeypatch):
    """A file named on the command line is checked though the settings exclude it, unless
    --force-exclude: standard input named so is too, with the same findings."""
    monkeypatch.chdir(repo)
    settings = (repo / "pyproject.toml").read_text().replace("[tool.citations]\n", '[tool.citations]\nexclude = ["research-runs"]\n')
    (repo / "pyproject.toml").write_text(settings)
    main(["check", SOLID, "--no-cache", "--no-source"])
    on_disk = capsys.readouterr().out
    code, shown, _ = _check_stdin(monkeypatch, capsys, (repo / SOLID).read_bytes(), "--stdin-filename", SOLID, "--no-source")
    def findings(text: str) -> list[str]:  # (U113's merge is offered only for a text held whole: no [*] compared)
        return [line.split(" ")[0] + " " + line.split(" ")[1] for line in text.splitlines() if line.startswith(SOLID)]

    assert code == 1 and findings(shown) == findings(on_disk) and f"{SOLID}:1:53: U104" in findings(shown)
    code, shown, said = _check_stdin(monkeypatch, capsys, (repo / SOLID).read_bytes(), "--stdin-filename", SOLID,
                                     "--force-exclude")
    assert code == 0 and "U104" not in shown and "no kind claims it" not in said


def test_stdin_with_fix_prints_the_fixed_text_and_writes_nothing(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    before = (repo / SOLID).read_bytes()
    code, shown, err = _check_stdin(monkeypatch, capsys, before, "--stdin-filename", SOLID, "--fix", "--no-source")
    assert (repo / SOLID).read_bytes() == before
    assert main(["check", SOLID, "--fix", "--no-cache"]) == 1
    capsys.readouterr()
    assert shown == (repo / SOLID).read_text()  # what --fix would have written
    assert code == 1
    assert "Found 9 errors in 1 file." in err  # what is left, on standard error


def test_stdin_needs_a_name_and_comes_alone(repo, capsys, monkeypatch):
    _stdin(monkeypatch, b"")
    assert main(["check", "-"]) == 2
    assert "--stdin-filename" in capsys.readouterr().err
    assert main(["check", "-", str(repo), "--stdin-filename", SOLID]) == 2
    assert "standard input" in capsys.readouterr().err


# -- --watch ---------------------------------------------------------------------------------------


def test_watch_checks_again_after_each_change_and_ctrl_c_ends_it(repo, capsys, monkeypatch):
    from pytest_citations.frontends import check_command

    asked = []

    def changes(paths, ignored):
        asked.append((paths, ignored))
        (repo / SOLID).write_text((repo / SOLID).read_text() + '{"not": "a record"}\n')
        yield {("modified", str(repo / SOLID))}
        (repo / EV).write_text("")
        yield {("modified", str(repo / EV))}
        raise KeyboardInterrupt

    monkeypatch.setattr(check_command, "_watched_changes", changes)
    assert main(["check", str(repo), "--watch", "--no-source", "--format", "json"]) == 0
    captured = capsys.readouterr()
    runs = [json.loads(part) for part in captured.out.split("\n" + check_command.WATCH_SEPARATOR + "\n")]
    assert [len(run["diagnostics"]) for run in runs] == [14, 15, 14]
    assert EV in {d["path"] for d in runs[1]["diagnostics"]} - {d["path"] for d in runs[2]["diagnostics"]}
    assert captured.err.count("citations: files changed, checking again") == 2
    paths, ignored = asked[0]
    assert paths == [repo] and any(str(path).endswith(".citations_cache") for path in ignored)


def test_watch_clears_a_terminal_between_runs(repo, monkeypatch):
    from pytest_citations.frontends import check_command

    def changes(paths, ignored):
        yield {("modified", str(repo / SOLID))}

    monkeypatch.setattr(check_command, "_watched_changes", changes)
    shown = _on_terminal(monkeypatch, repo, "--watch", "--no-source")
    first, second = shown.split(check_command.CLEAR_SCREEN)
    assert first.endswith("explains a rule.\n") and second.endswith("explains a rule.\n")


def test_watch_without_watchfiles_says_how_to_install_it(repo, capsys, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "watchfiles", None)  # (as if not installed)
    assert main(["check", str(repo), "--watch"]) == 2
    assert "pip install 'pytest-citations[watch]'" in capsys.readouterr().err


def test_watch_with_watchfiles_sees_a_real_change(repo, capsys, monkeypatch):
    """The real watcher: a file changed in a thread is seen (bounded by a stop event, not a sleep)."""
    import threading

    watchfiles = pytest.importorskip("watchfiles")
    from pytest_citations.frontends import check_command

    stop = threading.Event()
    real = check_command._watched_changes

    def bounded(paths, ignored):
        for found in real(paths, ignored, stop_event=stop):
            stop.set()  # one change is enough
            yield found

    def change_soon():
        for _ in range(50):  # until the watcher has seen one (it may start after the first write)
            if stop.wait(0.2):
                return
            (repo / EV).write_text((repo / EV).read_text() + "\n")

    monkeypatch.setattr(check_command, "_watched_changes", bounded)
    writer = threading.Thread(target=change_soon)
    writer.start()
    try:
        assert main(["check", str(repo), "--watch", "--no-source"]) == 0
    finally:
        stop.set()
        writer.join()
    assert watchfiles and capsys.readouterr().err.count("files changed, checking again") == 1


def test_strict_fails_on_warnings_too(repo, tmp_path, capsys):
    """A gate that must not pass what it could not check: warnings fail the run as errors do."""
    from pytest_citations.frontends.cli import main

    root = tmp_path / "warned"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "src" / "a.py").write_text("x = 1\n")
    (root / "notes.md").write_text("The value is set in [src/a.py, L1].\n")  # no hash: R409, a warning
    assert main(["check", str(root)]) == 0
    assert "R409" in capsys.readouterr().out
    assert main(["check", str(root), "--strict"]) == 1
    assert main(["check", str(root), "--strict", "--exit-zero"]) == 0
