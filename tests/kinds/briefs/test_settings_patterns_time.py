"""The brief-quality settings regexes (``non-numeric-names`` of B320, ``policy-patterns`` and
``macro-patterns`` of B321) come with the checkout (docs/security.md, rule 4): each is bounded on
each claim, and all of them together in a run; what they could not finish is a B337 naming the
pattern, never a silent gap nor a run without end. Real briefs keep their results.

The exhaustion cases run ``citations check`` or ``pytest --citations`` in a child process through a
measuring process of its own (``test_bounded_output.run_bounded``) and assert the outcome, the time
and the peak memory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bounded_run import check_bounded, pytest_bounded
from conftest import PROJECT
from pytest_citations.engine import Engine, load_plugins
from pytest_citations.kinds.briefs import claims
from rule_examples import build, examples

_, REGISTRY = load_plugins()
CATASTROPHIC = ["(a+)+$", "(a|aa)+$", "(\\\\w+\\\\s?)+$", "^(([a-z])+.)+[A-Z]([a-z])+$"]


def hostile_brief_repo(root: Path, bullets: int = 20, where: str = "") -> Path:
    """The audit's case: B321's bad example, whose brief holds ``bullets`` more policy bullets of
    3000 "a"s each (60 KB), and settings whose policy and macro patterns backtrack on them."""
    build(examples(REGISTRY.get("B321").doc)["bad"], root / where)
    brief = root / where / "brief.md"
    more = "".join(f"- The Fed {'a' * 3000}N held rates. [1]\n" for _ in range(bullets))
    brief.write_text(brief.read_text().replace("- The Fed held rates steady. [1]\n", "- The Fed held rates steady. [1]\n" + more))
    patterns = "[" + ", ".join(f'"{p}"' for p in CATASTROPHIC) + "]"
    (root / where / "pyproject.toml").write_text(
        f"[tool.citations.rules.B321]\npolicy-patterns = {patterns}\nmacro-patterns = {patterns}\n")
    return root


def out_of_time(found: list[dict]) -> list[dict]:
    return [d for d in found if d["code"] == "B337"]


def test_the_settings_patterns_of_a_run_stop_when_their_time_is_up(tmp_path):
    """Was: 76 s for a 60 KB brief (0.5 s per pattern per claim, with no total)."""
    repo = hostile_brief_repo(tmp_path / "repo")
    outcome = check_bounded(repo, "--format", "json")
    outcome.assert_bounded()
    found = json.loads(outcome.output)["diagnostics"]
    [finding] = out_of_time(found)  # on the first of the long bullets
    assert (outcome.status, finding["path"], finding["line"]) == (1, "brief.md", 3)
    assert finding["message"].startswith("the setting policy-patterns of B321: ") and "'(a+)+$'" in finding["message"]


@pytest.mark.parametrize("front_end", ["citations check", "pytest --citations"])
def test_nested_roots_share_the_time_of_the_run(tmp_path, front_end):
    """Each of three roots holds the hostile brief and its settings: the settings' patterns of a
    process still stop when its time is up (pytest checks each root in a run of its own)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text("[tool.citations]\n")
    for name in ("one", "two", "three"):
        hostile_brief_repo(repo, bullets=10, where=name)
    if front_end == "citations check":
        outcome = check_bounded(repo, "--format", "json")
        outcome.assert_bounded()
        assert sorted(d["path"] for d in out_of_time(json.loads(outcome.output)["diagnostics"])) == [
            "one/brief.md", "three/brief.md", "two/brief.md"]
    else:
        outcome = pytest_bounded(repo)
        outcome.assert_bounded()
        assert outcome.output.count("B337") == 3


def run_brief(root: Path) -> list[tuple[str, int, str]]:
    """(code, line, message) of what B320, B321 and B337 find under ``root``."""
    return [(d.code, d.line, d.message) for d in Engine.load(root).check([root]).diagnostics
            if d.code in ("B320", "B321", "B337")]


@pytest.fixture
def fresh_time(monkeypatch):
    """The settings' patterns get their time afresh, as in a new process."""
    monkeypatch.setattr(claims, "_PROCESS_TIME", claims.SettingsTime(claims.PROCESS_SECONDS))


def test_a_pattern_that_runs_too_long_on_a_claim_is_a_b337_and_the_others_still_run(tmp_path, fresh_time):
    repo = tmp_path / "repo"
    build(examples(REGISTRY.get("B321").doc)["bad"], repo)
    brief = repo / "brief.md"
    brief.write_text(brief.read_text().replace("The Fed held rates steady.", f"The Fed held rates {'a' * 40}!"))
    (repo / "pyproject.toml").write_text('[tool.citations.rules.B321]\npolicy-patterns = ["(a|aa)+$", "\\\\bFed\\\\b"]\n')
    found = run_brief(repo)
    assert [(code, line) for code, line, _ in found] == [("B321", 2), ("B337", 2)]  # the Fed was still found
    assert found[1][2] == (f"the setting policy-patterns of B321: the pattern '(a|aa)+$' ran longer than {claims.REGEX_TIMEOUT} s "
                           "on this claim and was taken as not matching it")


def test_once_their_time_is_up_the_settings_patterns_are_not_tried_and_each_brief_says_so(tmp_path, fresh_time, monkeypatch):
    monkeypatch.setattr(claims, "RUN_SECONDS", 0.0)
    monkeypatch.setattr(claims, "SECONDS_PER_MIB", 0.0)
    repo = tmp_path / "repo"
    build(examples(REGISTRY.get("B321").doc)["bad"], repo)
    (repo / "pyproject.toml").write_text('[tool.citations.rules.B321]\npolicy-patterns = ["\\\\bFed\\\\b"]\n')
    shutil.copy(repo / "brief.md", repo / "other.md")
    shutil.copy(repo / "brief.citations.json", repo / "other.citations.json")
    found = run_brief(repo)
    assert [(code, line) for code, line, _ in found] == [("B337", 2), ("B337", 2)]  # the Fed not found: no B321
    assert found[0][2] == ("the setting policy-patterns of B321: the settings' patterns ran out of the time a run gives them "
                           "(0 s, 2 s in a process, and 0 s more per MiB of claims) at the pattern '\\\\bFed\\\\b' on this "
                           "claim: from there on, claims were classified without them")


def test_real_briefs_keep_their_results_with_patterns_from_the_settings(tmp_path, fresh_time):
    """The fixture briefs, with the default patterns written in the settings (so that they run
    as the settings' do, under their time), give what they give with the built-in ones."""
    source = PROJECT / "fixtures" / "brief-quality-repo"
    repo = tmp_path / "repo"
    shutil.copytree(source, repo)
    expected = run_brief(repo)
    # each ends in an empty group: the same regex, but not the built-in one, so it runs as the settings' do
    listed = {name: "[" + ", ".join(json.dumps(p + "(?:)") for p in patterns) + "]" for name, patterns in
              [("non-numeric-names", claims.NAMES), ("policy-patterns", claims.POLICY_PATTERNS), ("macro-patterns", claims.MACRO_PATTERNS)]}
    settings = (repo / "pyproject.toml").read_text()
    settings += (f"\n[tool.citations.rules.B320]\nnon-numeric-names = {listed['non-numeric-names']}\n"
                 f"\n[tool.citations.rules.B321]\npolicy-patterns = {listed['policy-patterns']}\n"
                 f"macro-patterns = {listed['macro-patterns']}\n")
    (repo / "pyproject.toml").write_text(settings)
    claims._compiled.cache_clear()
    assert run_brief(repo) == expected
    assert any(code in ("B320", "B321") for code, _, _ in expected)


def test_each_run_has_its_time_and_the_runs_of_a_process_share_the_process_time(monkeypatch):
    class Run:  # what keys a run's time: its rule registry
        pass

    monkeypatch.setattr(claims, "_PROCESS_TIME", claims.SettingsTime(1.5))
    first, second = Run(), Run()
    one, two = claims.run_time(first), claims.run_time(second)
    assert claims.run_time(first) is one and one is not two
    one.spend(claims.RUN_SECONDS)
    assert one.remaining() <= 0 < two.remaining() == pytest.approx(1.5 - claims.RUN_SECONDS)
    two.spend(1.5 - claims.RUN_SECONDS)
    assert two.remaining() <= 0  # the process's time is up, though the run's is not
    two.grant(2**20)  # a MiB of claims
    assert two.remaining() == pytest.approx(claims.SECONDS_PER_MIB)
