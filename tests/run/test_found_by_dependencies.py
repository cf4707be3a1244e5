"""A record's provenance (``found_by[].artifact_path``, U111) is something its check reads: a wave
output deleted, renamed or restored is seen by a cached re-run, by ``--staged`` and by
``pytest --citations`` with its cache, as by a run without any cache."""

from __future__ import annotations

import json
import subprocess

import pytest

from pytest_citations.frontends.cli import main
from pytest_citations.kinds.url_citations.urls import cid_for

WAVE = "run/wave-1/p1.md"
CITATIONS = "run/citations/citations.jsonl"


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "run" / "citations").mkdir(parents=True)
    (tmp_path / "run" / "wave-1").mkdir()
    (tmp_path / WAVE).write_text("https://example.com/a\n")
    url = "https://example.com/a"
    record = {"schema_version": "citation.v1", "normalized_url": url, "cid": cid_for(url), "url": url,
              "url_original": url, "status": "valid", "checked_at": "2026-02-13T12:35:00Z",
              "found_by": [{"wave": 1, "perspective_id": "p1", "agent_type": "a", "artifact_path": "wave-1/p1.md"}],
              "notes": "ok"}
    (tmp_path / CITATIONS).write_text(json.dumps(record) + "\n")
    return tmp_path


def codes(capsys, *args) -> list[str]:
    main(["check", *args, "--format", "json"])
    return [d["code"] for d in json.loads(capsys.readouterr().out)["diagnostics"]]


def test_a_cached_rerun_sees_a_wave_output_go_and_come_back(repo, capsys):
    assert codes(capsys, str(repo)) == []
    (repo / WAVE).unlink()
    assert codes(capsys, str(repo)) == ["U111"] == codes(capsys, str(repo), "--no-cache")
    (repo / WAVE).write_text("https://example.com/a\n")
    assert codes(capsys, str(repo)) == []


def test_the_pre_commit_mode_sees_a_wave_output_removed(repo, capsys, monkeypatch):
    def git(*args):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.email=a@b", "-c", "user.name=a", "add", "-A")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "run")
    monkeypatch.chdir(repo)
    assert codes(capsys) == []  # a full run knows who reads what
    git("rm", "-q", WAVE)
    assert codes(capsys, "--force-exclude", "--staged") == ["U111"]


def test_pytest_with_its_cache_sees_a_wave_output_come_back(repo, pytester):
    for path in repo.rglob("*"):
        if path.is_file():
            target = pytester.path / path.relative_to(repo)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    (pytester.path / WAVE).unlink()
    pytester.runpytest_inprocess("--citations").assert_outcomes(failed=1)
    (pytester.path / WAVE).write_text("https://example.com/a\n")
    pytester.runpytest_inprocess("--citations").assert_outcomes(passed=1)
