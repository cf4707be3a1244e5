"""``pytest --citations`` checks what ``citations check`` checks, whatever pytest's own collection
settings say: ``testpaths`` (in any of the files pytest reads it from), ``norecursedirs`` and
hidden folders choose where pytest looks for tests, not which artifacts the repository has.

Each test builds a repository in ``pytester.path`` and compares the findings of both front ends,
run from the same folder with the same settings.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

# Hypothesis's pytest plugin imports ``hypothesis`` at the end of every session, and pytester
# unloads what an in-process run imported: imported here once, it is not paid for per run.
import hypothesis  # noqa: F401
import pytest
from test_plugin import Run, needs_xdist

from frontends import DIAGNOSTIC_LINE
from pytest_citations.frontends.cli import main

ORDINARY_TEST = "def test_ordinary():\n    pass\n"
MISSING_SOURCE = "---\ncitations:\n  - path: src/missing.py\n---\n# Auth\n"

# Where pytest reads ``testpaths`` from; the citations settings stay in pyproject.toml.
TESTPATHS_FILES = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = {testpaths}\n\n[tool.citations]\n',
    "pytest.ini": "[pytest]\ntestpaths = {testpaths}\n",
    "tox.ini": "[pytest]\ntestpaths = {testpaths}\n",
    "setup.cfg": "[tool:pytest]\ntestpaths = {testpaths}\n",
}


def set_testpaths(root: Path, where: str | None, *folders: str, extra: str = "") -> None:
    """``testpaths = folders`` in the file ``where`` names (none: no testpaths at all), and
    ``[tool.citations]`` in pyproject.toml; ``extra`` goes into the pytest section."""
    if where is None:
        (root / "pyproject.toml").write_text(f"[tool.pytest.ini_options]\n{extra}\n[tool.citations]\n", encoding="utf-8")
        return
    listed = json.dumps(list(folders)) if where == "pyproject.toml" else " ".join(folders)
    text = TESTPATHS_FILES[where].format(testpaths=listed)
    if extra:
        text = text.replace(f"testpaths = {listed}\n", f"testpaths = {listed}\n{extra}\n")
    (root / where).write_text(text, encoding="utf-8")
    if where != "pyproject.toml":
        (root / "pyproject.toml").write_text("[tool.citations]\n", encoding="utf-8")


def write_memory(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MISSING_SOURCE, encoding="utf-8")


@pytest.fixture
def repository(pytester: pytest.Pytester) -> Path:
    """Artifacts outside ``tests/`` (bad and good runs, a memory in ``.serena/memories``, a run in
    a hidden folder no kind names) and an ordinary test in ``tests/``; no pytest settings yet."""
    root = pytester.path
    (root / "tests").mkdir()
    (root / "tests" / "test_ordinary.py").write_text(ORDINARY_TEST, encoding="utf-8")
    Run(root, "runs/alpha", bad=True)
    Run(root, "runs/beta")
    Run(root, ".archive/2025", bad=True)
    write_memory(root / ".serena" / "memories" / "team" / "auth.md")
    return root


def check_findings(capsys, root: Path, *paths: str) -> tuple[set[tuple], int]:
    """(findings, exit status) of ``citations check PATHS`` run in the current folder, each path
    shown from there as pytest shows it (the CLI shows it from the repository ``root``)."""
    capsys.readouterr()  # (what came before)
    status = main(["check", "--format", "json", "--no-cache", *paths])
    here = Path.cwd()
    found = set()
    for d in json.loads(capsys.readouterr().out)["diagnostics"]:
        shown = Path(os.path.relpath(root / d["path"], here)).as_posix()
        found.add((shown, d["line"], d["col"], d["code"], d["message"]))
    return found, status


def pytest_findings(result: pytest.RunResult) -> set[tuple]:
    """The findings failing items printed, as (path, line, col, code, message)."""
    return {
        (m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"])
        for m in map(DIAGNOSTIC_LINE.match, result.outlines)
        if m
    }


def assert_same_verdicts(pytester: pytest.Pytester, capsys, *paths: str, options: tuple[str, ...] = ()) -> pytest.RunResult:
    """``pytest --citations PATHS`` (with pytest's ``options``) and ``citations check PATHS``, from
    the current folder, find the same things (and some), and both fail; pytest's result, for the
    caller's own assertions."""
    expected, status = check_findings(capsys, pytester.path, *paths)
    assert expected, "the repository is meant to have findings"
    assert status == 1
    result = pytester.runpytest_inprocess("--citations", "-p", "no:cacheprovider", *options, *paths)
    assert pytest_findings(result) == expected
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    return result


# -- no path arguments -----------------------------------------------------------------------------


@pytest.mark.parametrize("where", [*TESTPATHS_FILES, None])
def test_without_paths_the_repository_is_checked_whatever_testpaths_say(pytester, capsys, repository, where) -> None:
    set_testpaths(repository, where, "tests")
    result = assert_same_verdicts(pytester, capsys)
    result.assert_outcomes(passed=2, failed=3)  # the ordinary test and beta; alpha, .archive, the memory
    # pytest still collects its tests from testpaths, and nothing twice.
    listed = pytester.runpytest_inprocess("--citations", "-p", "no:cacheprovider", "--collect-only", "-q")
    assert sorted(line for line in listed.outlines if "::" in line) == [
        ".archive/2025/citations/citations.jsonl::citations",
        ".serena/memories/team/auth.md::citations",
        "runs/alpha/citations/citations.jsonl::citations",
        "runs/beta/citations/citations.jsonl::citations",
        "tests/test_ordinary.py::test_ordinary",
    ]


def test_without_the_flag_testpaths_rule_as_usual(pytester, repository) -> None:
    set_testpaths(repository, "pyproject.toml", "tests")
    result = pytester.runpytest_inprocess("--collect-only", "-q")
    assert [line for line in result.outlines if "::" in line] == ["tests/test_ordinary.py::test_ordinary"]


def test_testpaths_with_and_without_artifacts(pytester, capsys, repository) -> None:
    """A testpaths folder without artifacts adds nothing; an artifact inside one is one item."""
    (repository / "docs").mkdir()
    (repository / "docs" / "index.md").write_text("# Docs\n", encoding="utf-8")
    Run(repository, "tests/data", bad=True)
    set_testpaths(repository, "pyproject.toml", "docs", "tests")
    result = assert_same_verdicts(pytester, capsys)
    result.assert_outcomes(passed=2, failed=4)
    assert result.stdout.str().count("FAILED tests/data/citations/citations.jsonl::citations") == 1

    # testpaths that match nothing: pytest searches from the folder it was started in, as before.
    set_testpaths(repository, "pyproject.toml", "nowhere*")
    result = assert_same_verdicts(pytester, capsys)
    result.assert_outcomes(passed=2, failed=4)


def test_norecursedirs_and_hidden_folders_hold_artifacts_too(pytester, capsys, repository) -> None:
    Run(repository, "data/gamma", bad=True)
    Run(repository, "build.egg/delta", bad=True)  # (a default norecursedirs pattern, *.egg)
    write_memory(repository / "runs" / ".drafts" / "notes" / "auth.md")  # claimed by its content
    set_testpaths(repository, None, extra='norecursedirs = ["data", "*.egg", ".*"]')
    result = assert_same_verdicts(pytester, capsys)
    result.assert_outcomes(passed=2, failed=6)
    # --ignore and conftest.py's collect_ignore are pytest's collection settings too.
    (repository / "conftest.py").write_text('collect_ignore = ["runs"]\n', encoding="utf-8")
    result = assert_same_verdicts(pytester, capsys, options=("--ignore=data", "--ignore-glob=*/.archive"))
    result.assert_outcomes(passed=2, failed=6)


def test_excludes_leave_artifacts_out_of_both(pytester, capsys, repository) -> None:
    """What [tool.citations] excludes is left out by both front ends (pytest's own collection
    settings do not narrow the artifacts: the settings both read do)."""
    (repository / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n[tool.citations]\nexclude = [".archive"]\n', encoding="utf-8"
    )
    result = assert_same_verdicts(pytester, capsys)
    result.assert_outcomes(passed=2, failed=2)
    assert ".archive" not in result.stdout.str()


def test_started_below_the_root(pytester, capsys, repository, monkeypatch) -> None:
    """pytest reads testpaths only when started at its rootdir; from a folder below, both front
    ends check that folder, with the repository's settings."""
    set_testpaths(repository, "pyproject.toml", "tests")
    Run(repository, "runs/.old/omega", bad=True)  # hidden, below the folder
    monkeypatch.chdir(repository / "runs")
    result = assert_same_verdicts(pytester, capsys)
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([".old/omega/citations/citations.jsonl:2:* U105 *"])


def test_a_settings_error_anywhere_in_the_repository_is_a_usage_error(pytester, capsys, repository) -> None:
    set_testpaths(repository, "pyproject.toml", "tests")
    (repository / "runs" / "broken").mkdir()
    (repository / "runs" / "broken" / "pyproject.toml").write_text("[tool.citations\n", encoding="utf-8")
    assert main(["check", "--no-cache"]) == 2
    assert "cannot read settings" in capsys.readouterr().err
    result = pytester.runpytest_inprocess("--citations", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: citations: *pyproject.toml: cannot read settings*"])


# -- path arguments ---------------------------------------------------------------------------------


def test_path_arguments_are_exactly_those_paths(pytester, capsys, repository) -> None:
    set_testpaths(repository, "pyproject.toml", "tests")
    Run(repository, "runs/.old/omega", bad=True)  # hidden, below a folder named on the command line
    result = assert_same_verdicts(pytester, capsys, "runs")
    result.assert_outcomes(passed=1, failed=2)
    assert "test_ordinary" not in result.stdout.str()

    result = assert_same_verdicts(pytester, capsys, "runs/alpha", ".serena")
    result.assert_outcomes(failed=2)

    # testpaths named on the command line: only what is there, no artifact at all.
    result = pytester.runpytest_inprocess("--citations", "-p", "no:cacheprovider", "tests")
    result.assert_outcomes(passed=1)


# -- pytest's selection options --------------------------------------------------------------------


def test_last_failed_keyword_and_node_ids(pytester, repository) -> None:
    set_testpaths(repository, "pyproject.toml", "tests")
    result = pytester.runpytest_inprocess("--citations")
    result.assert_outcomes(passed=2, failed=3)

    result = pytester.runpytest_inprocess("--citations", "--lf", "-v")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["run-last-failure: rerun previous 3 failures*"])
    assert "runs/beta" not in result.stdout.str() and "test_ordinary" not in result.stdout.str()

    Run(repository, "runs/alpha")  # mended: the next --lf run passes it
    result = pytester.runpytest_inprocess("--citations", "--lf")
    result.assert_outcomes(passed=1, failed=2)

    result = pytester.runpytest_inprocess("--citations", "-k", "archive", "-v")
    result.assert_outcomes(failed=1, deselected=4)
    result.stdout.fnmatch_lines([".archive/2025/citations/citations.jsonl::citations FAILED*"])

    nodeid = ".serena/memories/team/auth.md::citations"
    result = pytester.runpytest_inprocess("--citations", nodeid, "-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"{nodeid} FAILED*"])


@needs_xdist
def test_xdist_gives_the_same_verdicts(pytester, capsys, repository) -> None:
    set_testpaths(repository, "pyproject.toml", "tests")
    expected, _ = check_findings(capsys, repository)
    serial = pytester.runpytest_inprocess("--citations", "-p", "no:cacheprovider")
    parallel = pytester.runpytest_subprocess("--citations", "-p", "no:cacheprovider", "-n", "2")
    assert parallel.parseoutcomes() == serial.parseoutcomes() == {"passed": 2, "failed": 3}
    assert pytest_findings(parallel) == pytest_findings(serial) == expected


def test_named_paths_are_checked_even_if_excluded(pytester, capsys) -> None:
    """As by ``citations check``: excludes apply below the paths named, not to them."""
    (pytester.path / "pyproject.toml").write_text('[tool.citations]\nexclude = ["old"]\n', encoding="utf-8")
    Run(pytester.path, "old/alpha", bad=True)
    for named in ("old", "old/alpha/citations/citations.jsonl"):
        result = assert_same_verdicts(pytester, capsys, named)
        result.assert_outcomes(failed=1)
    result = pytester.runpytest_inprocess("--citations", "old/alpha/citations/citations.jsonl::citations")
    result.assert_outcomes(failed=1)


def test_without_any_marker_both_root_the_repository_where_they_start(pytester, capsys) -> None:
    """No pyproject.toml, no .git, a pytest.ini only: every folder pytest visits belongs to the
    repository rooted where it started, as for citations check (a memory citing src/a.py is VALID
    in both, not M207 from a root at .serena/memories)."""
    (pytester.path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "a.py").write_text("x = 1\n", encoding="utf-8")
    memory = pytester.path / ".serena" / "memories" / "m.md"
    memory.parent.mkdir(parents=True)
    memory.write_text("---\ncitations:\n  - path: src/a.py\n    line: 1\n    snippet: x = 1\n---\n", encoding="utf-8")
    write_memory(pytester.path / ".serena" / "memories" / "team" / "auth.md")  # one real finding
    assert_same_verdicts(pytester, capsys)
    assert_same_verdicts(pytester, capsys, ".serena")


def test_paths_in_addopts_do_not_narrow_the_check(pytester, capsys, repository) -> None:
    """``addopts = "-ra tests"`` says where pytest's tests are, as ``testpaths`` does: the artifacts
    outside ``tests/`` are still checked, with ``citations check``'s verdict."""
    set_testpaths(repository, None, extra='addopts = "-ra tests"')
    result = assert_same_verdicts(pytester, capsys)
    result.assert_outcomes(passed=2, failed=3)
