"""``pytest --citations``: the pytest front end (pytest_citations/frontends/plugin.py), driven through pytester.

Each test builds a small repository in ``pytester.path``: one or more runs, each a
``<run>/citations/citations.jsonl`` holding a good record and, for a bad file, a second record whose
``cid`` is the hash of another URL (one U105 diagnostic on line 2).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

# Hypothesis's pytest plugin imports ``hypothesis`` at the end of every session, and pytester
# unloads what an in-process run imported: imported here once, it is not paid for (~0.7 s) per run.
import hypothesis  # noqa: F401
import pytest

from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.frontends.reporters._common import source_lines
from pytest_citations.frontends.reporters.text import format_diagnostic
from pytest_citations.kinds.url_citations.urls import cid_for, normalize_url

needs_xdist = pytest.mark.skipif(importlib.util.find_spec("xdist") is None, reason="pytest-xdist is not installed")
EXAMPLE_REPO = PROJECT / "fixtures" / "example-repo"
NO_TRACEBACK = ("Traceback", "def runtest", "raise CitationsFailure", "CitationsFailure:", "plugin.py")


def record(url_original: str, cid: str | None = None, status: str = "valid") -> str:
    """One ``citation.v1`` line; ``cid`` overrides the correct one."""
    normalized = normalize_url(url_original)
    return json.dumps(
        {
            "schema_version": "citation.v1",
            "normalized_url": normalized,
            "cid": cid or cid_for(normalized),
            "url": normalized,
            "url_original": url_original,
            "status": status,
            "checked_at": "2026-02-13T12:35:00Z",
            "found_by": [],
            "notes": "ok",
        }
    )


class Run:
    """A citations file written under ``base/name/citations/``, and what the plugin should say."""

    def __init__(self, base: Path, name: str, bad: bool = False, status: str = "valid", shown: str | None = None):
        self.rel = f"{name}/citations/citations.jsonl"
        self.shown = shown or self.rel  # how the plugin prints the path
        self.nodeid = f"{self.rel}::citations"
        self.lines = [record(f"https://Example.com/{name}/good?utm_source=x")]
        if bad:
            url = f"https://example.com/{name}/bad"
            self.lines.append(record(url, cid=cid_for("https://example.com/other")))
        if status != "valid":
            self.lines.append(record(f"https://example.com/{name}/status", status=status))
        path = base / self.rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines) + "\n", encoding="utf-8")

    @property
    def bad_col(self) -> int:
        return self.lines[1].index('"cid_') + 1

    @property
    def pattern(self) -> str:
        return glob_escape(self.diagnostic)

    @property
    def diagnostic(self) -> str:
        """The exact U105 line for the bad record on line 2."""
        normalized = json.loads(self.lines[1])["normalized_url"]
        expected = cid_for(normalized)
        return (
            f"{self.shown}:2:{self.bad_col}: U105 [*] cid is not the SHA-256 of normalized_url {normalized!r};"
            f" expected {expected}"
        )


def assert_no_traceback(result: pytest.RunResult) -> None:
    output = result.stdout.str() + result.stderr.str()
    for text in NO_TRACEBACK:
        assert text not in output, f"{text!r} in output:\n{output}"


def glob_escape(text: str) -> str:
    """``text`` as an fnmatch pattern that matches only itself."""
    return "".join(f"[{c}]" if c in "[]*?" else c for c in text)


def assert_source_line_with_caret(result: pytest.RunResult, run: Run) -> None:
    """The offending line (or a cut of it, marked with ellipses) follows its diagnostic, with a
    caret under the column."""
    lines = result.stdout.lines
    index = lines.index(run.diagnostic)
    source, caret = lines[index + 1], lines[index + 2]
    body = source.lstrip(" ")
    indent = len(source) - len(body)
    assert indent > 0, source
    prefix = "\u2026" if body.startswith("\u2026") else ""
    cut = body[len(prefix):].rstrip("\u2026")
    assert len(cut) >= 40 and cut in run.lines[1], source
    assert caret.strip() == "^", caret
    assert caret.index("^") - indent - len(prefix) + run.lines[1].index(cut) == run.bad_col - 1


@pytest.fixture
def repo(pytester: pytest.Pytester) -> dict[str, Run]:
    """Runs ``alpha`` (bad), ``beta`` (good), ``gamma`` (bad) and an ordinary passing test file."""
    pytester.makepyprojecttoml("[tool.citations]\n")
    pytester.makepyfile(test_ordinary="def test_ordinary():\n    pass\n")
    return {
        "alpha": Run(pytester.path, "alpha", bad=True),
        "beta": Run(pytester.path, "beta"),
        "gamma": Run(pytester.path, "gamma", bad=True),
    }


# -- opt-in and items ----------------------------------------------------------------------------


def test_without_flag_nothing_is_collected_from_artifacts(pytester: pytest.Pytester, repo) -> None:
    result = pytester.runpytest_inprocess("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert "citations.jsonl" not in result.stdout.str()
    result.stdout.fnmatch_lines(["test_ordinary.py::test_ordinary", "1 test collected*"])

    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1)

    # Only artifacts there: nothing at all is collected.
    (pytester.path / "test_ordinary.py").unlink()
    result = pytester.runpytest_inprocess()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_each_artifact_file_is_one_item(pytester: pytest.Pytester, repo) -> None:
    result = pytester.runpytest_inprocess("--citations", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            repo["alpha"].nodeid,
            repo["beta"].nodeid,
            repo["gamma"].nodeid,
            "test_ordinary.py::test_ordinary",
            "4 tests collected*",
        ]
    )
    result = pytester.runpytest_inprocess("--citations")
    result.assert_outcomes(passed=2, failed=2)
    # The items carry the ``citations`` marker.
    result = pytester.runpytest_inprocess("--citations", "-m", "citations")
    result.assert_outcomes(passed=1, failed=2, deselected=1)


def test_explicit_path_argument(pytester: pytest.Pytester, repo) -> None:
    result = pytester.runpytest_inprocess("--citations", "beta", "gamma/citations/citations.jsonl", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([f"{repo['beta'].nodeid} PASSED*", f"{repo['gamma'].nodeid} FAILED*"])


# -- failures ------------------------------------------------------------------------------------


def test_failure_shows_diagnostics_and_source_not_a_traceback(pytester: pytest.Pytester, repo) -> None:
    alpha = repo["alpha"]
    result = pytester.runpytest_inprocess("--citations", "alpha", "beta")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*= FAILURES =*",
            f"*_ {alpha.rel} _*",
            alpha.pattern,
            "*short test summary info*",
            f"FAILED {alpha.nodeid}*",
        ]
    )
    assert_source_line_with_caret(result, alpha)
    assert_no_traceback(result)
    # Long tracebacks and full traces change nothing: there is no Python traceback to show.
    result = pytester.runpytest_inprocess("--citations", "alpha", "--tb=long", "--full-trace")
    result.stdout.fnmatch_lines([alpha.pattern])
    assert_no_traceback(result)


def test_every_error_of_a_file_is_listed(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("[tool.citations]\n")
    run = Run(pytester.path, "delta", bad=True, status="ok")
    col = run.lines[2].index('"ok"') + 1
    result = pytester.runpytest_inprocess("--citations")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            run.pattern,
            f"{run.rel}:3:{col}: U107 status 'ok' is not one of valid, invalid, mismatch, paywalled, blocked",
        ]
    )


def test_report_location_points_at_first_diagnostic(pytester: pytest.Pytester, repo) -> None:
    collected = pytester.inline_genitems("--citations", "alpha", "beta")[0]
    by_id = {item.nodeid: item for item in collected}
    alpha, beta = by_id[repo["alpha"].nodeid], by_id[repo["beta"].nodeid]
    alpha.setup()  # the check runs in the setup phase
    beta.setup()
    assert alpha.reportinfo() == (alpha.path, 1, repo["alpha"].rel)  # 0-based: line 2
    assert beta.reportinfo() == (beta.path, 0, repo["beta"].rel)

    out = pytester.path / "out.xml"
    # (xunit1: the default xunit2 family leaves out the file and line attributes.)
    recorder = pytester.inline_run("--citations", "alpha", "beta", f"--junitxml={out}", "-o", "junit_family=xunit1")
    reports = recorder.getreports("pytest_runtest_logreport")
    locations = {(r.nodeid, r.when): r.location for r in reports}
    for when in ("setup", "call", "teardown"):
        assert locations[(repo["alpha"].nodeid, when)] == (repo["alpha"].rel, 1, repo["alpha"].rel)
        assert locations[(repo["beta"].nodeid, when)] == (repo["beta"].rel, 0, repo["beta"].rel)
    cases = {case.get("classname"): case for case in ET.parse(out).iter("testcase")}
    assert (cases["alpha.citations.citations.jsonl"].get("file"), cases["alpha.citations.citations.jsonl"].get("line")) == (
        repo["alpha"].rel,
        "1",
    )


# -- pytest options ------------------------------------------------------------------------------


def test_without_cacheprovider(pytester: pytest.Pytester, repo) -> None:
    result = pytester.runpytest_inprocess("--citations", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines([repo["alpha"].pattern, repo["gamma"].pattern])
    assert not (pytester.path / ".pytest_cache").exists()


def test_exitfirst_stops_after_first_failing_file(pytester: pytest.Pytester, repo) -> None:
    result = pytester.runpytest_inprocess("--citations", "-x")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([repo["alpha"].pattern, "*stopping after 1 failures*"])
    assert repo["gamma"].rel not in result.stdout.str()


def test_last_failed_reruns_only_failing_files(pytester: pytest.Pytester, repo) -> None:
    result = pytester.runpytest_inprocess("--citations")
    result.assert_outcomes(passed=2, failed=2)

    result = pytester.runpytest_inprocess("--citations", "--lf", "-v")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["run-last-failure: rerun previous 2 failures*"])
    assert repo["beta"].nodeid not in result.stdout.str()
    assert "test_ordinary" not in result.stdout.str()

    # Mend alpha: the next --lf run passes it, then only gamma is left.
    Run(pytester.path, "alpha")
    result = pytester.runpytest_inprocess("--citations", "--lf")
    result.assert_outcomes(passed=1, failed=1)
    result = pytester.runpytest_inprocess("--citations", "--lf", "-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"{repo['gamma'].nodeid} FAILED*"])


def test_keyword_selects_by_path(pytester: pytest.Pytester, repo) -> None:
    result = pytester.runpytest_inprocess("--citations", "-k", "gamma", "-v")
    result.assert_outcomes(failed=1, deselected=3)
    result.stdout.fnmatch_lines([f"{repo['gamma'].nodeid} FAILED*"])

    result = pytester.runpytest_inprocess("--citations", "-k", "citations and not alpha")
    result.assert_outcomes(passed=1, failed=1, deselected=2)


def test_junitxml_has_a_testcase_per_file(pytester: pytest.Pytester, repo) -> None:
    out = pytester.path / "junit.xml"
    result = pytester.runpytest_inprocess("--citations", "alpha", "beta", f"--junitxml={out}")
    result.assert_outcomes(passed=1, failed=1)
    suite = ET.parse(out).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "0")
    cases = {(case.get("classname"), case.get("name")): case for case in suite.iter("testcase")}
    assert set(cases) == {("alpha.citations.citations.jsonl", "citations"), ("beta.citations.citations.jsonl", "citations")}
    good = cases[("beta.citations.citations.jsonl", "citations")]
    assert list(good) == []
    bad = cases[("alpha.citations.citations.jsonl", "citations")]
    failures = bad.findall("failure")
    assert len(failures) == 1
    assert failures[0].get("message").startswith("U105 cid is not the SHA-256 of normalized_url")  # one line
    assert repo["alpha"].diagnostic in failures[0].text
    assert "Traceback" not in failures[0].text


WARNING_CONFTEST = '''
import dataclasses

from pytest_citations import engine
from pytest_citations.core.diagnostics import Severity
from pytest_citations.rules import RuleRegistry

_original = engine.load_plugins


def _u107_is_a_warning(manager=None):
    kinds, registry = _original(manager)
    return kinds, RuleRegistry(
        (dataclasses.replace(r, severity=Severity.WARNING) if r.code == "U107" else r for r in registry),
        registry.indexes,
    )


# At import, so that it is in place before any engine is loaded (in xdist workers too).
engine.load_plugins = _u107_is_a_warning


def pytest_unconfigure(config):
    engine.load_plugins = _original
'''


@pytest.fixture
def warning_repo(pytester: pytest.Pytester) -> dict[str, Run]:
    """U107 (unknown status) is made a warning through a conftest: no built-in rule is one yet."""
    pytester.makepyprojecttoml("[tool.citations]\n")
    pytester.makeconftest(WARNING_CONFTEST)
    return {
        "alpha": Run(pytester.path, "alpha", bad=True),
        "beta": Run(pytester.path, "beta"),
        "omega": Run(pytester.path, "omega", status="ok"),
    }


def warning_col(run: Run) -> int:
    return run.lines[1].index('"ok"') + 1


def warning_line(run: Run) -> str:
    return f"{run.shown}:2:{warning_col(run)}: U107 status 'ok' is not one of valid, invalid, mismatch, paywalled, blocked"


def warning_source(run: Run) -> str:
    """What ``citations check`` shows of the warning's line (200 characters around its column)."""
    return source_lines(run.lines[1], warning_col(run))[0].strip()


def test_warnings_pass_and_are_listed_in_the_warnings_summary(pytester: pytest.Pytester, warning_repo) -> None:
    omega = warning_repo["omega"]
    result = pytester.runpytest_inprocess("--citations")
    result.assert_outcomes(passed=2, failed=1, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "*= warnings summary =*",
            omega.nodeid,
            f"  {omega.shown}:2: CitationsWarning: {warning_line(omega)}",
            f"    {glob_escape(warning_source(omega))}",
        ]
    )
    assert len(warning_source(omega)) < len(omega.lines[1]), "the line is longer than what is shown of it"
    summary = result.stdout.str().split("warnings summary", 1)[1]
    assert "warnings.warn" not in summary, "the summary shows the plugin's code, not the artifact"
    assert_no_traceback(result)

    # A file with only warnings passes on its own, with exit status 0.
    result = pytester.runpytest_inprocess("--citations", "omega")
    result.assert_outcomes(passed=1, warnings=1)
    assert result.ret == pytest.ExitCode.OK


def test_warnings_as_errors_fail_the_item(pytester: pytest.Pytester, warning_repo) -> None:
    omega = warning_repo["omega"]
    result = pytester.runpytest_inprocess("--citations", "omega", "-W", "error::pytest_citations.frontends.plugin.CitationsWarning")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*= FAILURES =*", f"*_ {omega.rel} _*", warning_line(omega), "*short test summary*"])
    assert_no_traceback(result)


@needs_xdist
def test_xdist_gives_the_same_outcomes_as_serial(pytester: pytest.Pytester, warning_repo) -> None:
    serial = pytester.runpytest_inprocess("--citations")
    parallel = pytester.runpytest_subprocess("--citations", "-n", "2")
    assert parallel.parseoutcomes() == serial.parseoutcomes() == {"passed": 2, "failed": 1, "warnings": 1}
    assert parallel.ret == serial.ret == pytest.ExitCode.TESTS_FAILED
    parallel.stdout.fnmatch_lines(
        [
            warning_repo["alpha"].pattern,
            "*= warnings summary =*",
            f"*CitationsWarning: {warning_line(warning_repo['omega'])}",
        ]
    )
    assert_no_traceback(parallel)


# -- settings ------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", [".", "nested"])
def test_unknown_setting_is_a_usage_error(pytester: pytest.Pytester, where: str) -> None:
    pytester.makepyfile(test_ordinary="def test_ordinary():\n    pass\n")
    pytester.makepyprojecttoml("[tool.citations]\n")
    folder = pytester.path / where
    folder.mkdir(exist_ok=True)
    (folder / "pyproject.toml").write_text("[tool.citations]\nbogus = 1\n", encoding="utf-8")
    Run(folder, "alpha", bad=True)
    result = pytester.runpytest_inprocess("--citations")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: citations: *pyproject.toml: unknown setting 'bogus' in *tool.citations*"])
    assert_no_traceback(result)
    # Without the flag the settings are never read.
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1)


@needs_xdist
def test_unknown_setting_under_xdist(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("[tool.citations]\n")
    Run(pytester.path, "alpha", bad=True)
    nested = pytester.path / "nested"
    nested.mkdir()
    (nested / "pyproject.toml").write_text("[tool.citations]\nbogus = 1\n", encoding="utf-8")
    Run(nested, "alpha", bad=True)
    # Settings above the paths given are read before the workers start: a usage error.
    result = pytester.runpytest_subprocess("--citations", "-n", "2", "nested")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: citations: *unknown setting 'bogus'*"])
    assert_no_traceback(result)
    # Settings found while the workers collect: a worker cannot end the session with a usage
    # error, so it is a collection error, reported once, still without a traceback.
    result = pytester.runpytest_subprocess("--citations", "-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*= ERRORS =*", "*ERROR collecting nested/*", "citations: *unknown setting 'bogus'*"])
    assert result.stdout.str().count("ERROR collecting") == 1
    assert_no_traceback(result)


def test_settings_are_found_per_file(pytester: pytest.Pytester) -> None:
    """The nearest ``[tool.citations]`` above a file is its repository: its settings, its root."""
    pytester.makepyprojecttoml('[tool.citations]\nignore = ["U105"]\n')
    outer = Run(pytester.path, "outer", bad=True)
    inner_root = pytester.path / "inner"
    inner_root.mkdir()
    (inner_root / "pyproject.toml").write_text("[tool.citations]\n", encoding="utf-8")
    inner = Run(inner_root, "run", bad=True)
    # A pyproject.toml without [tool.citations] does not start a repository.
    plain = pytester.path / "plain"
    plain.mkdir()
    (plain / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    ignored = Run(plain, "run", bad=True)

    result = pytester.runpytest_inprocess("--citations", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            f"inner/{inner.nodeid} FAILED*",
            f"{outer.nodeid} PASSED*",
            f"plain/{ignored.nodeid} PASSED*",
        ]
    )
    # Shown as pytest shows paths, so it names this file and no other.
    inner.shown = f"inner/{inner.rel}"
    result.stdout.fnmatch_lines([inner.pattern])


def test_example_repository(pytester: pytest.Pytester) -> None:
    repo = pytester.path / "example-repo"
    shutil.copytree(EXAMPLE_REPO, repo)
    expected = Engine.load(repo).check([repo]).diagnostics
    assert expected, "the example repository is meant to have findings"
    files = sorted({d.path for d in expected})

    result = pytester.runpytest_inprocess("--citations", "example-repo", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=len(files))
    result.stdout.fnmatch_lines([f"FAILED example-repo/{path}::citations*" for path in files])
    # Every finding of ``citations check``, as the text reporter writes it (source and caret too),
    # with the path as pytest shows it.
    blocks = [format_diagnostic(dataclasses.replace(d, path=f"example-repo/{d.path}")) for d in expected]
    output = result.stdout.str()
    for block in blocks:
        assert "\n".join(block) in output, block
    assert_no_traceback(result)


def test_repository_reached_through_a_symlinked_folder(pytester: pytest.Pytester) -> None:
    real = pytester.path / "real"
    real.mkdir()
    (real / "pyproject.toml").write_text("[tool.citations]\n", encoding="utf-8")
    run = Run(real, "alpha", bad=True, shown="link/alpha/citations/citations.jsonl")
    try:
        (pytester.path / "link").symlink_to(real, target_is_directory=True)
    except OSError as exc:  # pragma: no cover - Windows without the privilege
        pytest.skip(f"cannot make a symlink: {exc}")
    result = pytester.runpytest_inprocess("--citations", "link", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([run.pattern])


def test_config_option_reads_another_settings_file(pytester: pytest.Pytester, repo) -> None:
    settings = pytester.path / "ci-citations.toml"
    settings.write_text("ignore = ['U105']\n")
    result = pytester.runpytest_inprocess("--citations", f"--citations-config={settings}", "alpha", "gamma")
    result.assert_outcomes(passed=2)


def test_baseline_option_fails_only_on_new_findings(pytester: pytest.Pytester, repo) -> None:
    from pytest_citations.frontends.cli import main

    baseline = pytester.path / "baseline.json"
    assert main(["check", str(pytester.path), "--write-baseline", str(baseline)]) == 0
    result = pytester.runpytest_inprocess("--citations", f"--citations-baseline={baseline}", "alpha", "beta", "gamma")
    result.assert_outcomes(passed=3)

    Run(pytester.path, "delta", bad=True)
    result = pytester.runpytest_inprocess("--citations", f"--citations-baseline={baseline}", "alpha", "delta")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["FAILED delta/citations/citations.jsonl::citations*"])


def test_broken_baseline_is_a_usage_error(pytester: pytest.Pytester, repo) -> None:
    (pytester.path / "baseline.json").write_text("[]")
    result = pytester.runpytest_inprocess("--citations", "--citations-baseline=baseline.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "not a baseline" in result.stderr.str()


def test_hidden_memory_folders_are_entered(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("[tool.citations]\n")
    memories = pytester.path / ".serena" / "memories" / "team"
    memories.mkdir(parents=True)
    (memories / "auth.md").write_text("---\ncitations:\n  - path: src/missing.py\n---\n# Auth\n")
    (pytester.path / ".cache").mkdir()
    (pytester.path / ".cache" / "test_hidden.py").write_text("def test_x():\n    pass\n")
    result = pytester.runpytest_inprocess("--citations")
    result.assert_outcomes(failed=1)  # the memory is found; other hidden folders stay skipped
    result.stdout.fnmatch_lines([".serena/memories/team/auth.md:3:11: M207 File not found: src/missing.py"])


def test_short_summary_is_one_line_per_file(pytester: pytest.Pytester, repo, monkeypatch) -> None:
    monkeypatch.setenv("CI", "1")  # on CI pytest prints the summary message untrimmed
    result = pytester.runpytest_inprocess("--citations", "alpha")
    summary = result.stdout.lines[result.stdout.lines.index(next(x for x in result.stdout.lines if "short test summary" in x)) + 1 :]
    assert summary[0].startswith("FAILED alpha/citations/citations.jsonl::citations - U105 cid is not the SHA-256")
    assert summary[1].startswith("=")


@needs_xdist
def test_the_short_summary_is_the_same_with_and_without_xdist(tmp_path):
    """`-n 2` sends a failing item's report from a worker: its summary line is still the first finding."""
    import os
    import subprocess
    import sys

    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE_REPO, repo)

    def failed(*options):
        command = [sys.executable, "-m", "pytest", "--citations", "-p", "no:cacheprovider", "-rf", *options]
        done = subprocess.run(command, cwd=repo, capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
        return [line for line in done.stdout.splitlines() if line.startswith("FAILED")]

    alone = failed()
    assert alone and all(" - U104 normalized_url" in line for line in alone)
    assert failed("-n", "2") == alone
