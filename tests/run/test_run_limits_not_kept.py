"""A finding that one of the run's limits decided (the evidence stores' time, the settings'
patterns' time) depends on what the rest of the run spent: it is never kept in the result cache,
nor in the record of the run, so that a later run without the files that spent the limit finds
what the file itself gives. Was: kept like any other finding, until the file's own bytes changed."""

from __future__ import annotations

import json

from test_exhaustion import VALID, brief_repo

from pytest_citations.engine import load_plugins
from pytest_citations.frontends.cli import main
from pytest_citations.kinds.briefs import claims, evidence_store
from rule_examples import build, examples

_, REGISTRY = load_plugins()


def codes(root, cache, capsys) -> list[tuple[str, str, str]]:
    """(path, code, message) of a ``citations check`` of ``root`` with the result cache in ``cache``."""
    main(["check", str(root), "--cache-dir", str(cache), "--format", "json"])
    return [(d["path"], d["code"], d["message"]) for d in json.loads(capsys.readouterr().out)["diagnostics"]]


def test_a_store_read_no_further_for_want_of_the_runs_time_is_not_kept(tmp_path, monkeypatch, capsys):
    root, cache = brief_repo(tmp_path), tmp_path / "cache"
    assert codes(root, cache / "control", capsys) == []  # the brief resolves through its store

    allowed = evidence_store.RUN_SECONDS
    monkeypatch.setattr(evidence_store, "RUN_SECONDS", 0.0)  # as if other roots had spent the stores' time
    spent = codes(root, cache / "run", capsys)
    assert (VALID, "B318") in {(path, code) for path, code, _ in spent}
    assert any("took longer than it allows them" in message for _, _, message in spent)

    monkeypatch.setattr(evidence_store, "RUN_SECONDS", allowed)
    assert codes(root, cache / "run", capsys) == []


def test_claims_classified_without_the_settings_patterns_for_want_of_time_are_not_kept(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(claims, "_PROCESS_TIME", claims.SettingsTime(claims.PROCESS_SECONDS))  # as in a new process
    repo, cache = tmp_path / "repo", tmp_path / "cache"
    build(examples(REGISTRY.get("B321").doc)["bad"], repo)
    (repo / "pyproject.toml").write_text('[tool.citations.rules.B321]\npolicy-patterns = ["\\\\bFed\\\\b"]\n')
    wanted = [("brief.md", "B321")]
    assert [(path, code) for path, code, _ in codes(repo, cache, capsys) if code in ("B321", "B337")] == wanted
    (cache / "spent").mkdir(parents=True)

    monkeypatch.setattr(claims, "RUN_SECONDS", 0.0)  # as if other roots had spent the patterns' time
    monkeypatch.setattr(claims, "SECONDS_PER_MIB", 0.0)
    spent = [(path, code) for path, code, _ in codes(repo, cache / "spent", capsys) if code in ("B321", "B337")]
    assert spent == [("brief.md", "B337")]

    monkeypatch.setattr(claims, "RUN_SECONDS", 1.0)
    monkeypatch.setattr(claims, "SECONDS_PER_MIB", 1.0)
    assert [(path, code) for path, code, _ in codes(repo, cache / "spent", capsys) if code in ("B321", "B337")] == wanted


def test_a_git_history_search_stopped_by_its_time_is_not_kept(tmp_path, monkeypatch, capsys):
    """A git command that did not answer in time (a busy machine) decided the message of a STALE
    tuple: the next run searches the history again. Was: the message kept until the file changed."""
    from test_code_tuples import APP_V1, APP_V2, _commit, _git, _h, _write

    from pytest_citations.core import git_history

    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    _git(tmp_path, "init", "-q")
    _write(tmp_path, {"src/app.py": APP_V1})
    _commit(tmp_path, "v1", "2026-01-05")
    _write(tmp_path, {"src/app.py": APP_V2, "notes/review.md": f"Users are refused [src/app.py@{_h(APP_V1)}, L1-2].\n"})
    _commit(tmp_path, "v2", "2026-02-01")
    cache = tmp_path.parent / "cache"
    real = git_history._git

    def slow(checkout, args, *rest, **keywords):
        if args[0] == "log":
            raise TimeoutError
        return real(checkout, args, *rest, **keywords)

    monkeypatch.setattr(git_history, "_git", slow)
    [(_, code, message)] = codes(tmp_path, cache, capsys)
    assert code == "R408" and "git history search stopped after" in message
    monkeypatch.setattr(git_history, "_git", real)
    [(_, code, message)] = codes(tmp_path, cache, capsys)
    assert code == "R408" and "it had this hash at commit" in message

