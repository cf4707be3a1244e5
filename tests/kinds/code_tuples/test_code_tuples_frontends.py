"""The front ends (engine, `citations check`, `python -m pytest_citations`, `pytest --citations`)
report the same code-tuple findings for the same files."""

from __future__ import annotations

import hypothesis  # noqa: F401  (imported once here, not re-imported by every in-process pytest run)

from frontends import assert_front_ends_agree


def test_engine_cli_and_pytest_agree_on_code_tuples(pytester, capsys):
    expected, (from_pytest, result) = assert_front_ends_agree(pytester, capsys, "code-tuples-repo", 22)
    # errors fail the items; the UN-VERSIONED warnings (R409) are pytest warnings, in the warnings summary
    assert from_pytest == {item for item in expected if item[3] != "R409"}
    warnings = [item for item in expected if item[3] == "R409"]
    assert len(warnings) == 2
    output = result.stdout.str()
    for path, line, _col, code, message in warnings:
        assert f"{path}:{line}" in output and f"{code} {message}" in output
    result.assert_outcomes(failed=3, warnings=2)
