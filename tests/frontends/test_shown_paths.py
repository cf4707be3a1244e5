"""Paths are shown relative to the folder the command runs in, as ruff, flake8 and pytest show
them, so that the person who ran it can open them; the JSON and SARIF formats, read by programs,
keep the repository-relative paths."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from conftest import PROJECT
from pytest_citations.frontends.cli import main

DIAGNOSTIC_LINE = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d{3}) ")
SOLID = "research-runs/2026-02-13-solid-state-batteries/citations/citations.jsonl"


@pytest.fixture
def repo(tmp_path) -> Path:
    target = tmp_path / "example-repo"
    shutil.copytree(PROJECT / "fixtures" / "example-repo", target)
    return target


def _text_paths(text: str) -> set[str]:
    return {m["path"] for m in map(DIAGNOSTIC_LINE.match, text.splitlines()) if m}


def test_from_the_parent_folder_the_text_format_names_paths_that_open(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo.parent)
    assert main(["check", "example-repo"]) == 1
    paths = _text_paths(capsys.readouterr().out)
    assert f"example-repo/{SOLID}" in paths
    assert all(Path(path).is_file() for path in paths)


def test_from_a_subfolder_paths_are_shown_from_it(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo / "research-runs")
    assert main(["check"]) == 1  # the settings, and the root, are found above
    paths = _text_paths(capsys.readouterr().out)
    assert "2026-02-13-solid-state-batteries/citations/citations.jsonl" in paths
    assert all(Path(path).is_file() for path in paths)


def test_github_and_junit_name_the_paths_from_the_folder_too(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo.parent)
    main(["check", "example-repo", "--format", "github"])
    files = set(re.findall(r"^::\w+ file=([^,]+),", capsys.readouterr().out, re.M))
    assert f"example-repo/{SOLID}" in files
    main(["check", "example-repo", "--format", "junit"])
    suites = ElementTree.fromstring(capsys.readouterr().out)
    assert f"example-repo/{SOLID}" in {case.get("name") for case in suites.iter("testcase")}


def test_json_and_sarif_keep_the_repository_relative_paths(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo.parent)
    main(["check", "example-repo", "--format", "json"])
    assert SOLID in {d["path"] for d in json.loads(capsys.readouterr().out)["diagnostics"]}
    main(["check", "example-repo", "--format", "sarif"])
    sarif = json.loads(capsys.readouterr().out)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert SOLID in uris


def test_fix_and_diff_name_the_files_from_the_folder(repo, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(repo.parent)
    assert main(["check", "example-repo", "--no-cache", "--diff"]) == 1
    assert f"+++ b/example-repo/{SOLID}" in capsys.readouterr().out.splitlines()
    main(["check", "example-repo", "--no-cache", "--fix", "--format", "json"])
    assert f"  example-repo/{SOLID}: 4 fixes" in capsys.readouterr().err.splitlines()


def test_a_path_outside_every_root_is_shown_as_named(repo, tmp_path, capsys, monkeypatch):
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("# notes\n")
    monkeypatch.chdir(repo / "research-runs")
    main(["check", "--config", "../pyproject.toml", ".", "../../elsewhere.md"])
    out = capsys.readouterr().out
    assert "../../elsewhere.md:1:1: C008 " in out


def test_pytest_and_the_command_show_the_same_paths_from_a_subfolder(repo):
    folder = repo / "research-runs"
    environment = {name: value for name, value in os.environ.items() if name not in ("CI", "BUILD_NUMBER")}
    command = subprocess.run([sys.executable, "-m", "pytest_citations", "check", "--no-source"],
                             cwd=folder, capture_output=True, text=True, env=environment)
    found = {m.group(0) for m in map(DIAGNOSTIC_LINE.match, command.stdout.splitlines()) if m}
    plugin = subprocess.run([sys.executable, "-m", "pytest", "--citations", "-p", "no:cacheprovider", "-q"],
                            cwd=folder, capture_output=True, text=True, env={**environment, "PYTEST_ADDOPTS": ""})
    shown = {m.group(0) for m in map(DIAGNOSTIC_LINE.match, plugin.stdout.splitlines()) if m}
    assert found and found == shown
