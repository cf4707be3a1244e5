"""`citations check`: exit codes, formats, selection, fixing, baselines, and the pre-commit hook."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys

import pytest
from ruamel.yaml import YAML

from conftest import PROJECT
from pytest_citations.frontends.cli import main

EXAMPLE = PROJECT / "fixtures" / "example-repo"
EV = "research-runs/2026-01-30-ev-market/citations/citations.jsonl"
SOLID = "research-runs/2026-02-13-solid-state-batteries/citations/citations.jsonl"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """The example repository, the folder the command runs in (paths are shown from it)."""
    target = tmp_path / "example-repo"
    shutil.copytree(EXAMPLE, target)
    monkeypatch.chdir(target)
    return target


def _json(capsys, *args):
    code = main(["check", *map(str, args), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_exit_codes(repo, capsys, tmp_path):
    assert main(["check", str(repo)]) == 1
    assert main(["check", str(repo), "--exit-zero"]) == 0
    clean = tmp_path / "clean"
    clean.mkdir()
    assert main(["check", str(clean)]) == 0
    assert "All checks passed: 0 files checked." in capsys.readouterr().out
    assert main(["check", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["check", "--format", "xml"])
    assert usage.value.code == 2


def test_text_output_names_file_line_column_code(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    main(["check", "--no-source"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{EV}:2:53: U104 [*] normalized_url 'https://ev-volumes.com/' is not")
    assert lines[-3:] == [
        "Found 14 errors in 2 files.",
        "[*] 4 fixable with `citations check --fix`.",
        "`citations rule CODE` explains a rule.",
    ]


def test_github_format_is_chosen_under_github_actions(repo, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    main(["check", str(repo / SOLID)])
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"::error file={SOLID},line=1,col=53,title=U104 normalized-url-mismatch,endLine=1::normalized_url")


def test_output_file(repo, tmp_path, capsys):
    target = tmp_path / "report.sarif"
    assert main(["check", str(repo), "--format", "sarif", "--output-file", str(target)]) == 1
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text())["version"] == "2.1.0"


def test_select_and_ignore_replace_the_settings(repo, capsys):
    _, data = _json(capsys, repo, "--select", "U104,U105")
    assert {d["code"] for d in data["diagnostics"]} == {"U104", "U105"}
    _, data = _json(capsys, repo, "--ignore", "U1")
    assert data["diagnostics"] == []


def test_codes_options_add_up_when_repeated(repo, capsys):
    """As ruff's: `--select U104 --select U105` selects both (the last one alone was kept)."""
    _, data = _json(capsys, repo, "--select", "U104", "--select", "u105")
    assert {d["code"] for d in data["diagnostics"]} == {"U104", "U105"}
    _, data = _json(capsys, repo, "--select", "U1", "--ignore", "U104", "--ignore", "U105,U101")
    assert {"U104", "U105", "U101"}.isdisjoint({d["code"] for d in data["diagnostics"]}) and data["diagnostics"]


def test_statistics(repo, capsys):
    main(["check", str(repo), "--statistics"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["2", "U104", "[*]", "normalized-url-mismatch"]
    assert len(lines) == 13


def test_statistics_in_json(repo, capsys):
    """`--statistics` in a machine format is that format, not the table; `--output-format` names it too."""
    main(["check", str(repo), "--statistics"])
    table = [line.split() for line in capsys.readouterr().out.splitlines()]
    main(["check", str(repo), "--statistics", "--output-format", "json"])
    rows = json.loads(capsys.readouterr().out)["statistics"]
    assert rows[0] == {"code": "U104", "name": "normalized-url-mismatch", "count": 2, "fixable": True}
    assert [[str(row["count"]), row["code"]] for row in rows] == [line[:2] for line in table]


def test_force_exclude_honours_excludes_for_named_files(repo, capsys):
    (repo / "pyproject.toml").write_text("[tool.citations]\nexclude = ['research-runs/2026-01-30-*']\n")
    _, data = _json(capsys, repo / EV)
    assert data["files_checked"] == 1  # a named file is checked...
    _, data = _json(capsys, repo / EV, "--force-exclude")
    assert data["files_checked"] == 0  # ...unless excludes are forced
    _, data = _json(capsys, repo)
    assert {d["path"] for d in data["diagnostics"]} == {SOLID}  # and a folder walk never enters it


def test_per_file_ignores(repo, capsys):
    (repo / "pyproject.toml").write_text("[tool.citations.per-file-ignores]\n'**/2026-02-13-*/**' = ['U1']\n")
    _, data = _json(capsys, repo)
    assert {d["path"] for d in data["diagnostics"]} == {EV}


def test_fix_then_report_what_is_left(repo, capsys):
    assert main(["check", str(repo), "--fix", "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"citations: applied 5 fixes in 2 files\n  {EV}: 1 fix\n  {SOLID}: 4 fixes\n"
    data = json.loads(captured.out)
    assert {d["code"] for d in data["diagnostics"]} == {"U101", "U102", "U103", "U107", "U108", "U109", "U110", "U111", "U112"}
    assert main(["check", str(repo), "--fix", "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert captured.err == "citations: applied 0 fixes in 0 files\n"
    assert json.loads(captured.out) == data


def test_baseline_reports_only_new_findings(repo, tmp_path, capsys):
    baseline = tmp_path / "baseline.json"
    assert main(["check", str(repo), "--write-baseline", str(baseline)]) == 0
    assert "recorded 14 diagnostics" in capsys.readouterr().err
    assert main(["check", str(repo), "--baseline", str(baseline)]) == 0
    capsys.readouterr()
    with (repo / SOLID).open("a") as stream:
        stream.write('{"not": "a record"}\n')
    code, data = _json(capsys, repo, "--baseline", baseline)
    assert code == 1
    assert [(d["line"], d["code"]) for d in data["diagnostics"]] == [(13, "U102")]


def test_a_broken_baseline_is_a_usage_error(repo, tmp_path, capsys):
    (tmp_path / "b.json").write_text("{}")
    assert main(["check", str(repo), "--baseline", str(tmp_path / "b.json")]) == 2
    assert "not a baseline" in capsys.readouterr().err


def test_a_missing_baseline_is_said_in_words(repo, tmp_path, capsys):
    assert main(["check", str(repo), "--baseline", str(tmp_path / "gone.json")]) == 2
    assert capsys.readouterr().err == f"citations: error: {tmp_path / 'gone.json'}: cannot read baseline: No such file or directory\n"


def test_the_rules_list_keeps_its_columns_for_long_names(capsys):
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    severity_at = {line.index(" error ") if " error " in line[:60] else line.index(" warning ") for line in lines}
    assert len(severity_at) == 1, "every severity starts in one column"


def test_python_dash_m_is_the_same_program(repo):
    result = subprocess.run([sys.executable, "-m", "pytest_citations", "check", str(repo), "--statistics"], capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0].split()[:2] == ["2", "U104"]


def test_pre_commit_hook_entry_on_the_example(repo):
    (hook,) = YAML(typ="safe").load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "citations" and hook["language"] == "python" and hook["require_serial"] is True
    assert "files" not in hook and hook["types"] == ["file"]  # any file may be cited
    files = sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if p.is_file())
    assert EV in files and SOLID in files and "research-runs/2026-01-30-ev-market/wave-1/p1.md" in files
    command = shlex.split(hook["entry"])
    assert command[0] == "citations"
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)  # pre-commit runs in a git checkout
    result = subprocess.run([sys.executable, "-m", "pytest_citations", *command[1:], *files], cwd=repo, capture_output=True, text=True)
    assert result.returncode == 1, result.stderr
    assert f"{SOLID}:8:114: U113" in result.stdout


def test_a_repository_reached_through_a_symlinked_folder(repo, tmp_path, capsys):
    link = tmp_path / "link"
    link.symlink_to(repo)
    _, data = _json(capsys, link)
    assert data["files_checked"] == 2 and len(data["diagnostics"]) == 14


def test_a_folder_link_leaving_the_root_is_refused(repo, tmp_path, capsys):
    outside = tmp_path / "outside"
    (outside / "citations").mkdir(parents=True)
    (outside / "citations" / "citations.jsonl").write_text('{"secret": "do not print"}\n')
    (repo / "escape").symlink_to(outside)
    code, data = _json(capsys, repo / "escape")
    assert code == 1
    assert [(d["code"], d["message"]) for d in data["diagnostics"]] == [
        ("C008", f"path is outside the repository root {repo.resolve().as_posix()}")
    ]
    _, walked = _json(capsys, repo)
    assert walked["files_checked"] == 2  # a folder walk does not follow links out of the tree


def test_an_unwritable_output_file_is_a_usage_error(repo, tmp_path, capsys):
    assert main(["check", str(repo), "--output-file", str(tmp_path / "no" / "such" / "out.txt")]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert main(["check", str(repo), "--write-baseline", str(tmp_path / "no" / "b.json")]) == 2


def test_unknown_codes_on_the_command_line_are_usage_errors(repo, capsys):
    assert main(["check", str(repo), "--select", "U1O4"]) == 2
    assert "--select: no rule code starts with 'U1O4'" in capsys.readouterr().err
    assert main(["check", str(repo), "--ignore", "Z9"]) == 2


def test_a_run_that_finds_no_artifact_says_so(tmp_path, capsys):
    assert main(["check", str(tmp_path)]) == 0
    assert capsys.readouterr().err == "citations: warning: no artifact files found under the given paths\n"


def test_memory_findings_show_their_source_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    memories = tmp_path / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "a.md").write_text("---\ncitations:\n  - path: src/gone.py\n---\n")
    main(["check", str(tmp_path)])
    assert capsys.readouterr().out.splitlines()[:3] == [
        ".serena/memories/a.md:3:11: M207 File not found: src/gone.py",
        "      - path: src/gone.py",
        "              ^",
    ]


def test_a_nested_repository_is_checked_with_its_own_settings(repo, tmp_path, capsys):
    outer = tmp_path / "monorepo"
    outer.mkdir()
    (outer / "pyproject.toml").write_text("[tool.citations]\nignore = ['U104']\n")
    shutil.move(str(repo), outer / "research")  # has its own [tool.citations]
    (outer / "research" / "pyproject.toml").write_text("[tool.citations]\nignore = ['U113']\n")
    code, data = _json(capsys, outer)
    assert code == 1
    codes = {d["code"] for d in data["diagnostics"]}
    assert "U104" in codes and "U113" not in codes  # the nested settings govern the nested files
    assert all(d["path"].startswith("research/research-runs/") for d in data["diagnostics"])
    assert data["files_checked"] == 2
    _, selected = _json(capsys, outer, "--select", "U105")
    assert {d["code"] for d in selected["diagnostics"]} == {"U105"}  # command-line codes reach nested roots


def test_a_folder_named_on_the_command_line_is_entered_although_excluded(repo, capsys):
    (repo / "pyproject.toml").write_text("[tool.citations]\nexclude = ['research-runs']\n")
    _, data = _json(capsys, repo)
    assert data["files_checked"] == 0
    _, data = _json(capsys, repo / "research-runs")
    assert data["files_checked"] == 2
    _, data = _json(capsys, repo / "research-runs", "--force-exclude")
    assert data["files_checked"] == 0


def test_a_named_file_that_no_kind_claims_is_said_to_be_unchecked(tmp_path, capsys, monkeypatch):
    """Named to be checked, a file that is none of the formats is not passed over in silence (a
    long brief that no kind claimed once gave exit 0 and 'files_checked: 0')."""
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "notes.md").write_text("# Notes\n\nPlain text, [docs/a.md] is prose.\n")
    (tmp_path / "runs" / "r" / "citations").mkdir(parents=True)
    (tmp_path / "runs" / "r" / "citations" / "citations.jsonl").write_text("")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "notes.md", "runs/r/citations/citations.jsonl", "runs"]) == 0
    assert capsys.readouterr().err == (
        'citations: warning: notes.md is not checked: no kind claims it (see "Which files are checked" in '
        "docs/configuration.md)\n")
    # ... unless excludes are forced on it (pre-commit names every staged file)
    (tmp_path / "pyproject.toml").write_text('[tool.citations]\nexclude = ["notes.md"]\n')
    assert main(["check", "--force-exclude", "notes.md", "runs"]) == 0
    assert "notes.md" not in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["rules"], ["rules", "--format", "markdown"], ["rule", "U104"]])
def test_a_reader_that_closes_the_pipe_ends_the_command_quietly(argv):
    """`citations rules | head -1`: no BrokenPipeError traceback, the status of a program SIGPIPE ended."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line is written
    command = [sys.executable, "-m", "pytest_citations", *argv]
    done = subprocess.run(command, stdout=write_end, stderr=subprocess.PIPE, cwd=PROJECT, timeout=60)
    os.close(write_end)
    assert (done.returncode, done.stderr.decode()) == (141, "")


def test_quiet_prints_the_findings_only_and_silent_nothing(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    (repo / "notes.txt").write_text("not an artifact\n")
    assert main(["check", ".", "notes.txt", "--no-cache", "--no-source"]) == 1
    loud = capsys.readouterr()
    assert main(["check", ".", "notes.txt", "--no-cache", "--no-source", "-q"]) == 1
    quiet = capsys.readouterr()
    findings = [line for line in loud.out.splitlines() if ": U1" in line]
    assert quiet.out.splitlines() == findings and findings
    assert "is not checked" in loud.err and quiet.err == ""
    assert main(["check", ".", "--no-cache", "--silent"]) == 1
    assert capsys.readouterr() == ("", "")


def test_extend_select_and_extend_ignore_add_to_the_settings(repo, capsys):
    def codes(*options):
        _, data = _json(capsys, repo, "--no-cache", *options)
        return sorted({d["code"] for d in data["diagnostics"]})

    every = codes()
    assert {"U104", "U105", "U106"} <= set(every)
    (repo / "pyproject.toml").write_text("[tool.citations]\nselect = ['U104']\n")
    assert codes() == ["U104"]
    assert codes("--extend-select", "U105") == ["U104", "U105"]
    assert codes("--select", "U105,U106", "--extend-select", "U104") == ["U104", "U105", "U106"]
    (repo / "pyproject.toml").write_text("[tool.citations]\nignore = ['U105']\n")
    assert codes("--extend-ignore", "U104") == [code for code in every if code not in ("U104", "U105")]
    assert main(["check", str(repo), "--extend-select", "Q9"]) == 2
    assert "--extend-select: no rule code starts with 'Q9'" in capsys.readouterr().err


def test_diff_shows_what_fix_would_write_and_writes_nothing(repo, tmp_path, capsys):
    fixed = tmp_path / "fixed"
    shutil.copytree(repo, fixed)
    before = {path: path.read_bytes() for path in repo.rglob("*") if path.is_file()}
    assert main(["check", str(repo), "--no-cache", "--diff"]) == 1
    diff = capsys.readouterr().out
    assert {path: path.read_bytes() for path in repo.rglob("*") if path.is_file()} == before
    main(["check", str(fixed), "--fix"])
    capsys.readouterr()
    written = sorted(str(path.relative_to(fixed)) for path in fixed.rglob("*.jsonl")
                     if path.read_bytes() != (repo / path.relative_to(fixed)).read_bytes())
    assert sorted(line[len("+++ b/"):] for line in diff.splitlines() if line.startswith("+++ b/")) == written
    added = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    fixed_lines = {line for name in written for line in (fixed / name).read_text(encoding="utf-8").splitlines()}
    assert added and set(added) <= fixed_lines  # every line the diff adds is a line --fix wrote
    assert main(["check", str(fixed), "--no-cache", "--diff"]) == 0  # nothing more to fix
    assert capsys.readouterr().out == ""
    assert main(["check", str(repo), "--diff", "--fix"]) == 2
