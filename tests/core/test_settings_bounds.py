"""Settings are the checkout's (docs/security.md, rule 4): whatever the root's or a nested
``pyproject.toml`` holds, reading it and applying it is bounded. Deep nesting is a settings error;
the globs of one settings table are capped in number and length, and matching a walk against the
most a table may hold stays under 5 s and 200 MB.

The exhaustion cases run ``citations check`` or ``pytest --citations`` in a child process through
a measuring process of its own (``test_bounded_output.run_bounded``) and assert the outcome, the
time and the peak memory.
"""

from __future__ import annotations

import pytest
from test_bounded_output import check_bounded, pytest_bounded, repo_with

# -- nesting ----------------------------------------------------------------------------------


def deep_settings(depth: int) -> str:
    return "[tool.citations]\nexclude = " + "[" * depth + "]" * depth + "\n"


@pytest.mark.parametrize("where", ["root", "nested"])
def test_settings_nested_too_deep_are_a_settings_error(tmp_path, where):
    """Was: a RecursionError traceback (exit 1) from the TOML reader."""
    repo = repo_with(tmp_path / "repo", {"runs/r/citations/citations.jsonl": '{"schema_version": "citation.v1"}\n'})
    settings = repo / ("pyproject.toml" if where == "root" else "n/pyproject.toml")
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(deep_settings(500))
    outcome = check_bounded(repo)
    outcome.assert_bounded()
    assert outcome.status == 2
    assert f"citations: error: {settings.resolve()}: cannot read settings: arrays or tables are nested more than 100 deep" \
        in outcome.stderr


def test_pytest_reports_settings_nested_too_deep_as_a_usage_error(tmp_path):
    """Was: two collection errors with the RecursionError's traceback."""
    repo = repo_with(tmp_path / "repo", {})
    (repo / "n").mkdir()
    (repo / "n/pyproject.toml").write_text(deep_settings(500))
    outcome = pytest_bounded(repo)
    outcome.assert_bounded()
    assert outcome.status == 4
    assert "cannot read settings: arrays or tables are nested more than 100 deep" in outcome.stderr + outcome.output
    assert "RecursionError" not in outcome.stderr + outcome.output


@pytest.mark.parametrize("depth", [100, 101, 450])
def test_the_nesting_limit_is_the_same_in_every_front_end(tmp_path, depth):
    """The limit is counted in the settings, not left to the reader's recursion, which depends on
    how deep the stack already is (pytest's is deeper than the command line's)."""
    repo = repo_with(tmp_path / "repo", {})
    lists = depth - 3  # inside the document, [tool] and [tool.other]
    (repo / "pyproject.toml").write_text(f"[tool.other]\nx = {'[' * lists}{']' * lists}\n[tool.citations]\n")
    from pytest_citations.core.config import ConfigError, find_settings

    if depth <= 100:
        assert find_settings(repo)[0] == repo.resolve()
    else:
        with pytest.raises(ConfigError, match="nested more than 100 deep"):
            find_settings(repo)
