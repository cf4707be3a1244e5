"""The machine formats against what reads them: the JSON output of every fixture repository
against the schema the package ships, and SARIF fingerprints across a change of the checked file."""

from __future__ import annotations

import importlib.resources
import json
import shutil
from pathlib import Path

import pytest

from conftest import PROJECT
from pytest_citations.frontends import cli
from pytest_citations.rules import bundled_validator

FIXTURES = PROJECT / "fixtures"
REPOSITORIES = sorted(path.name for path in FIXTURES.iterdir() if (path / "pyproject.toml").is_file())
SCHEMA = importlib.resources.files("pytest_citations") / "schemas" / "check-output.schema.json"
EXAMPLE_RUN = "research-runs/2026-02-13-solid-state-batteries/citations/citations.jsonl"


@pytest.fixture(scope="module")
def validator():
    validator = bundled_validator(SCHEMA)
    validator.check_schema(validator.schema)
    return validator


@pytest.fixture
def copy(tmp_path, request) -> Path:
    """The fixture repository, copied so that no run writes into the project."""
    target = tmp_path / request.param
    shutil.copytree(FIXTURES / request.param, target, symlinks=True)
    return target


def _output(capsys, monkeypatch, root: Path, *argv: str):
    """What ``citations check . --no-cache ARGV`` prints from ``root``, parsed."""
    monkeypatch.chdir(root)
    cli.main(["check", ".", "--no-cache", *argv])
    return json.loads(capsys.readouterr().out)


def _errors(validator, document) -> list[str]:
    return [f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(document)]


@pytest.mark.parametrize("copy", REPOSITORIES, indirect=True)
def test_json_output_of_every_fixture_follows_the_schema(copy, capsys, monkeypatch, validator):
    report = _output(capsys, monkeypatch, copy, "--format", "json")
    assert _errors(validator, report) == []
    statistics = _output(capsys, monkeypatch, copy, "--statistics", "--format", "json")
    assert _errors(validator, statistics) == []
    assert sum(row["count"] for row in statistics["statistics"]) == len(report["diagnostics"])


def test_the_json_output_with_a_baseline_follows_the_schema(capsys, monkeypatch, validator, tmp_path):
    root = tmp_path / "example-repo"
    shutil.copytree(FIXTURES / "example-repo", root)
    monkeypatch.chdir(root)
    cli.main(["check", ".", "--no-cache", "--write-baseline", str(tmp_path / "baseline.json")])
    capsys.readouterr()
    report = _output(capsys, monkeypatch, root, "--format", "json", "--baseline", str(tmp_path / "baseline.json"))
    assert report["summary"]["hidden_by_baseline"] > 0 and report["diagnostics"] == []
    assert _errors(validator, report) == []


def test_the_schema_says_something(capsys, monkeypatch, validator, tmp_path):
    """Each part of the schema rejects what the output never holds, so passing it means something."""
    root = tmp_path / "example-repo"
    shutil.copytree(FIXTURES / "example-repo", root)
    report = _output(capsys, monkeypatch, root, "--format", "json")
    fixed = next(d for d in report["diagnostics"] if d["fix"] is not None)
    broken = [
        {**report, "tool": "ruff"},
        {**report, "summary": {**report["summary"], "errors": -1}},
        {**report, "extra": 1},
        {**report, "diagnostics": [{**fixed, "severity": "fatal"}]},
        {**report, "diagnostics": [{**fixed, "code": "U10"}]},
        {**report, "diagnostics": [{k: v for k, v in fixed.items() if k != "fix"}]},
        {**report, "diagnostics": [{**fixed, "fix": {**fixed["fix"], "edits": [{"start": -1, "end": 2, "text": ""}]}}]},
        {"statistics": [{"code": "U104", "name": "normalized-url-mismatch", "count": 0, "fixable": True}]},
        {"statistics": [], "diagnostics": []},
    ]
    assert _errors(validator, report) == []
    for document in broken:
        assert _errors(validator, document), document


def test_fix_offsets_count_code_points(validator):
    """``start``/``end`` index the decoded text: a fix after a non-ASCII character is placed by
    characters, not bytes (what the schema says of them)."""
    from pytest_citations.core.diagnostics import Diagnostic, Edit, Fix, Severity
    from pytest_citations.engine import Report
    from pytest_citations.frontends import reporters

    text = 'é "https://Example.com/"'
    start = text.index("https")
    fix = Fix("normalize", (Edit(start, start + len("https://Example.com/"), "https://example.com/"),))
    diagnostic = Diagnostic("U104", "normalized-url-mismatch", Severity.ERROR, "m", "a.jsonl", 1, start + 1, fix=fix)
    document = json.loads(reporters.render("json", Report([diagnostic], ["a.jsonl"]), None))
    assert _errors(validator, document) == []
    (edit,) = document["diagnostics"][0]["fix"]["edits"]
    assert text[edit["start"]:edit["end"]] == "https://Example.com/"


def _fingerprints(capsys, monkeypatch, root: Path) -> list[tuple[str, str]]:
    document = _output(capsys, monkeypatch, root, "--format", "sarif")
    return [(result["ruleId"], result["partialFingerprints"]["citationsFinding/v1"])
            for result in document["runs"][0]["results"]]


def test_sarif_fingerprints_follow_findings_when_lines_are_inserted_above(capsys, monkeypatch, tmp_path):
    """Blank lines at the top of a JSON Lines file move every finding down; no fingerprint changes
    (not even of a message that names the line of an earlier record), and no two are equal."""
    root = tmp_path / "example-repo"
    shutil.copytree(FIXTURES / "example-repo", root)
    before = _fingerprints(capsys, monkeypatch, root)
    artifact = root / EXAMPLE_RUN
    artifact.write_text("\n\n" + artifact.read_text(encoding="utf-8"), encoding="utf-8")
    after = _fingerprints(capsys, monkeypatch, root)
    moved = [d for d in _output(capsys, monkeypatch, root, "--format", "json")["diagnostics"] if d["path"] == EXAMPLE_RUN]
    assert moved and all(d["line"] > 2 for d in moved)
    assert sorted(after) == sorted(before)
    assert len({fingerprint for _, fingerprint in before}) == len(before)
