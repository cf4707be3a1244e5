"""The front ends (engine, `citations check`, `python -m pytest_citations`, `pytest --citations`)
report the same EAR id findings for the example evaluation repository."""

from __future__ import annotations

import hypothesis  # noqa: F401  (imported once here, not re-imported by every in-process pytest run)

from frontends import assert_front_ends_agree


def test_engine_cli_and_pytest_agree_on_ear_ids(pytester, capsys):
    expected, (from_pytest, result) = assert_front_ends_agree(pytester, capsys, "ear-repo", 13)
    assert from_pytest == expected
    # corpus, dataset, golden, manifest and the Turtle file fail; unanswerable, JSON-LD, both RAG outputs and the
    # two corpus shards pass
    result.assert_outcomes(passed=6, failed=5)
