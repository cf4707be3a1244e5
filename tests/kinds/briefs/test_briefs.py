"""Briefs (B3xx): spec §10's valid and invalid outputs, resolution through the sidecar and the
evidence store, the real mvp-agent registry read without a false alarm, and the three front ends."""

from __future__ import annotations

import json
import shutil

from conftest import PROJECT
from frontends import assert_front_ends_agree
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main
from pytest_citations.kinds.briefs import source_registry as registry

BRIEF_REPO = PROJECT / "fixtures" / "brief-repo"
CLAIM = 'no stored citation objects: no sidecar briefs/invalid.citations.json and no synthesis for this brief in an evidence store'
EXPECTED = [
    ("briefs/blocks.md", 4, 1, "B301", "claim bullet has no citation marker [N]"),  # an HTML block
    ("briefs/blocks.md", 5, 1, "B301", "claim bullet has no citation marker [N]"),  # after an HTML comment
    ("briefs/blocks.md", 9, 1, "B301", "claim bullet has no citation marker [N]"),  # a code block
    ("briefs/invalid.md", 1, 1, "B317", "claim section 'What to Watch' is missing"),
    ("briefs/invalid.md", 2, 1, "B301", "claim bullet has no citation marker [N]"),
    ("briefs/invalid.md", 5, 1, "B301", "claim bullet has no citation marker [N]"),
    ("briefs/invalid.md", 9, 85, "B307", CLAIM),
    ("briefs/invalid.md", 13, 1, "B301", "claim bullet has no citation marker [N]"),
    ("briefs/invalid.md", 17, 1, "B304", "References entry [99] leaves a gap: expected [1]"),
    ("briefs/invalid.md", 17, 1, "B305",
     'References entry [99] does not follow `[N] Publisher. "Title". Published <date>. <URL>`: it ends in no http(s) URL'),
    # formatted headings, References rendered with curly quotes, other dates and links, [2] linking another site
    ("briefs/mislinked.md", 19, 1, "B336", "References entry [2] links to www.bloomberg.com "
     "(https://www.bloomberg.com/news/articles/2026-02-10/fed-holds-rates), but its stored citation object's url is on "
     "www.reuters.com (https://www.reuters.com/markets/us/fed-holds-rates-steady-2026-02-10/)"),
    ("briefs/subsections.md", 6, 1, "B301", "claim bullet has no citation marker [N]"),  # under the sub-heading ### Growth
    ("briefs/subsections.md", 21, 1, "B304", "References entry [1] comes after [2]: sort by citation number"),  # one for the swap
]


def _found(root):
    return [(d.path, d.line, d.col, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics]


def test_brief_repo_exact(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(BRIEF_REPO, root)
    report = Engine.load(root).check([root])
    assert report.files == [  # the README is not a brief
        "briefs/blocks.md", "briefs/invalid.md", "briefs/mislinked.md", "briefs/subsections.md", "briefs/valid.md",
    ]
    assert _found(root) == EXPECTED


def test_valid_brief_resolves_through_the_store_without_a_sidecar(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(BRIEF_REPO, root)
    (root / "briefs" / "valid.citations.json").unlink()
    assert [f for f in _found(root) if f[0] == "briefs/valid.md"] == []


def test_without_a_store_the_brief_warns_once(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(BRIEF_REPO, root)
    text = (root / "pyproject.toml").read_text().replace('evidence-store = "evidence/store.sqlite"\n', "")
    (root / "pyproject.toml").write_text(text)
    found = [f for f in _found(root) if f[0] == "briefs/valid.md"]
    assert found == [
        ("briefs/valid.md", 2, 90, "B310", "no evidence store is configured: doc_id/chunk_id resolution is not proven for this brief")
    ]


def test_store_catches_unknown_doc_and_host_mode_flags_sibling_hosts(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(BRIEF_REPO, root)
    sidecar = root / "briefs" / "valid.citations.json"
    data = json.loads(sidecar.read_text())
    data["citations"]["2"]["doc_id"] = "doc_404"
    sidecar.write_text(json.dumps(data))
    (root / "pyproject.toml").write_text((root / "pyproject.toml").read_text().replace('url-match = "domain"', 'url-match = "host"'))
    codes = [(f[1], f[3]) for f in _found(root) if f[0] == "briefs/valid.md"]
    assert codes == [(2, "B309"), (2, "B309"), (3, "B312")]
    messages = [f[4] for f in _found(root) if f[3] == "B312" and f[0] == "briefs/valid.md"]
    assert messages == ["citation [3]: url https://www.bea.gov/news/2026/gdp-fourth-quarter-2025-advance-estimate "
                        "does not match the registry URL of us_bea_news (https://apps.bea.gov/rss/rss.xml): both hosts are on "
                        "bea.gov: set url-match = \"domain\", or list www.bea.gov in its article_hosts in source_registry.yaml"]


def test_markers_in_code_links_and_comments_are_not_citations(tmp_path):
    from pytest_citations.kinds.briefs.model import read_brief

    text = (
        "## Prevailing View\n- a `[1]` b [2](http://x) <!-- [3] --> c [4]\n\n## Counterarguments\n- d [５]\n"
        "\n## References\n[1]: http://example.com\n"
    )
    brief = read_brief("b.md", text, {})
    assert [[m.number for m in b.markers] for b in brief.bullets] == [[4], []]
    assert brief.swallowed == []
    brief = read_brief("b.md", "## Prevailing View\n- e [1]\n\n## References\n[1]: http://example.com\n", {})
    assert [(m.number, why) for m, why in brief.swallowed] == [(1, "the link reference definition [1]: on line 5")]


def test_real_mvp_agent_registry_reads_without_a_problem(realdata):
    for rel in ("artifacts/modelling/source_registry.yaml", "at-cbc559d/artifacts/modelling/source_registry.yaml"):
        found = registry.parse(rel, (realdata / "mvp-agent" / rel).read_text(encoding="utf-8"))
        assert found.problems == []
        assert len(found.sources) == 58
        for source in found.sources.values():
            assert registry.url_matches(source.url, source.url)


def test_store_cli_init_and_import(tmp_path, capsys):
    store = tmp_path / "store.sqlite"
    assert main(["store", "init", str(store)]) == 0
    assert main(["store", "import", str(store), str(BRIEF_REPO / "evidence" / "import.json")]) == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"table": "nope", "id": "x"}\n')
    assert main(["store", "import", str(store), str(bad)]) == 2
    assert "unknown table 'nope'" in capsys.readouterr().err


def test_front_ends_agree(pytester, capsys):
    expected, (from_pytest, result) = assert_front_ends_agree(pytester, capsys, "brief-repo", len(EXPECTED))
    assert expected == {(f"brief-repo/{p}", line, col, code, msg) for p, line, col, code, msg in EXPECTED}
    assert from_pytest == expected
    result.assert_outcomes(passed=1, failed=4)


def _validate(argv, capsys):
    status = main(["brief", "validate", *argv])
    return status, json.loads(capsys.readouterr().out)


def test_validate_reports_and_decides(tmp_path, capsys):
    root = tmp_path / "repo"
    shutil.copytree(BRIEF_REPO, root)
    status, report = _validate([str(root / "briefs" / "valid.md")], capsys)
    assert status == 0
    assert {k: report[k] for k in ("total_bullets", "cited_bullets", "removed_bullets", "validation_passed", "decision")} == {
        "total_bullets": 5, "cited_bullets": 4, "removed_bullets": 0, "validation_passed": True, "decision": "deliver",
    }
    assert [b["status"] for b in report["bullets"]] == ["cited", "cited", "cited", "abstain", "cited"]
    status, report = _validate([str(root / "briefs" / "invalid.md")], capsys)
    assert status == 1
    assert (report["removed_bullets"], report["validation_passed"], report["decision"]) == (4, False, "retry")
    assert report["bullets"][2]["citations"][0]["reasons"][0].startswith("B307 no stored citation objects")
    status, report = _validate([str(root / "briefs" / "invalid.md"), "--attempt", "2"], capsys)
    assert report["decision"] == "abstain"


def test_validate_fix_applies_the_failure_table(tmp_path, capsys):
    root = tmp_path / "repo"
    shutil.copytree(BRIEF_REPO, root)
    sidecar = root / "briefs" / "valid.citations.json"
    data = json.loads(sidecar.read_text())
    data["citations"]["2"]["doc_id"] = "doc_404"  # not in the store: remove [2], the bullet keeps [1]
    data["citations"]["3"]["url"] = None  # a missing field: remove [3], the bullet is left uncited
    data["citations"]["4"]["quote_span"] = {"start": 0, "end": 5, "text": "paywalled text"}  # strip it
    sidecar.write_text(json.dumps(data))
    brief = root / "briefs" / "valid.md"
    status, report = _validate([str(brief), "--fix", "--abstain-report", str(tmp_path / "abstain.md"), "--date", "2026-02-11"], capsys)
    lines = brief.read_text().splitlines()
    assert lines[1] == "- The Federal Reserve held rates at 5.25-5.50% in February, citing persistent inflation. [1]"
    assert lines[2] == "- [Insufficient evidence to support this claim]"
    assert "quote_span" not in json.loads(sidecar.read_text())["citations"]["4"]
    assert (report["removed_bullets"], report["decision"], report["validation_passed"], status) == (1, "deliver", True, 0)
    assert [d["code"] for d in report["diagnostics"]] == ["B303", "B303"]  # references are never renumbered
    status, again = _validate([str(brief)], capsys)
    assert status == 0 and again["validation_passed"] and again["removed_bullets"] == 0
    abstain = (tmp_path / "abstain.md").read_text()
    assert abstain.startswith("# Daily Brief - 2026-02-11\n\n## Synthesis Status: Insufficient Evidence\n")
    assert "\n[1] Federal Reserve." in abstain and "\n[2] " not in abstain
