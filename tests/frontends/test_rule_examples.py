"""Every rule is documented, and its documented bad example fires while its good example is clean."""

from __future__ import annotations

import pytest

from pytest_citations.engine import Engine, load_plugins
from rule_examples import build, examples

_, REGISTRY = load_plugins()
SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Fix")
# Rules that no input file can trigger on its own; tests/frontends/test_hookspecs.py exercises them
# through a deliberately broken plugin rule.
WITHOUT_RUNNABLE_EXAMPLE = {"C006": "a bug in a rule"}
# The online rules' examples need a web: tests/online/test_online_rule_examples.py serves it.
OFFLINE_RULES = [item for item in REGISTRY if not item.code.startswith("W")]


@pytest.mark.parametrize("item", list(REGISTRY), ids=lambda r: r.code)
def test_rule_is_documented(item):
    positions = [item.doc.find(section) for section in SECTIONS]
    assert -1 not in positions, f"{item.code} lacks a section among {SECTIONS}"
    assert positions == sorted(positions), f"{item.code}: sections out of order"
    assert item.summary, f"{item.code} has no summary sentence"


@pytest.mark.parametrize("item", OFFLINE_RULES, ids=lambda r: r.code)
def test_rule_examples(item, tmp_path):
    cases = examples(item.doc)
    if item.code in WITHOUT_RUNNABLE_EXAMPLE:
        assert not cases
        return
    assert set(cases) == {"bad", "good"}, f"{item.code} needs a runnable Bad and Good example"
    for name, files in cases.items():
        repo = tmp_path / name / "repo"
        build(files, repo)
        report = Engine.load(repo).check([repo])
        codes = [d.code for d in report.diagnostics]
        if name == "bad":
            assert item.code in codes, f"{item.code}: bad example did not fire; got {report.diagnostics}"
        else:
            assert item.code not in codes, f"{item.code}: good example fired: {report.diagnostics}"
