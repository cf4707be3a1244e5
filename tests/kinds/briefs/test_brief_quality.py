"""Brief quality (B320-B335): §3.1's numeric/time and policy claims, §4's evidence pack, grounding of
quote spans, §6's uncertainty language and §3.2's abstaining report; a realistic brief built from
mvp-agent's real payloads and registry, clean and seeded, asserted finding by finding."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from brief_examples import _QREGISTRY, _brief, _cite, _pack, _refs, _sidecar

import brief_quality_fixture
from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main
from pytest_citations.kinds.briefs.claims import numeric_parts, topics
from pytest_citations.kinds.briefs.grounding_rules import escaped

REPO = PROJECT / "fixtures" / "brief-quality-repo"
QUALITY = {f"B3{n}" for n in range(20, 36)}


def _found(root, codes=QUALITY):
    return [(d.path, d.line, d.col, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics if d.code in codes]


def _repo(tmp_path, prevailing, citations, settings="", watch=None, **more):
    root = tmp_path / "repo"
    root.mkdir()
    text = _brief(prevailing, _refs(*(c["source_id"] for c in citations)))
    if watch is not None:
        text = text.replace("- [Data not yet available as of Feb 11, 2026]", watch)
    (root / "brief.md").write_text(text)
    (root / "brief.citations.json").write_text(_sidecar(citations, **more))
    (root / "source_registry.yaml").write_text(_QREGISTRY)
    if settings:
        (root / "pyproject.toml").write_text(settings)
    return root


def _codes(root):
    return [(line, code) for _, line, _, code, _ in _found(root)]


# -- numbers and dates ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Stocks may fall.", "May brought a rally.", "Rates may be cut in March.", "The Q&A ran long.",
        "Markets rallied; mar-a-lago talk faded.", "The S&P 500 rallied.", "G7 ministers met.",
        "COVID-19 effects faded.", "Payrolls disappointed [1][2]", "Growth cooled `2.9%`.",
        "[HIGH CONFIDENCE] The Fed held.", "Yields in Q&A sessions", "March madness", "a mayday call",
    ],
)
def test_not_numeric(text):
    assert numeric_parts(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Q4 GDP grew 2.9%, slightly above expectations.", [("quarter", "Q4"), ("percentage", "2.9%")]),
        ("The Fed held rates at 5.25-5.50%.", [("percentage", "5.25-5.50%")]),
        ("Next CPI release on March 12.", [("date", "March 12")]),
        ("FOMC minutes due 20 March 2026.", [("date", "20 March 2026")]),
        ("Rates may rise in May 2026.", [("year", "2026")]),
        ("Inflation is expected to reach 5.2% by Q3.", [("percentage", "5.2%"), ("quarter", "Q3")]),
        ("Yields fell 12 basis points.", [("percentage", "12 basis points")]),
        ("Prices rose five percent.", [("percentage", "five percent")]),
        ("The fund lost $3bn on 2026-02-10.", [("number", "$3bn"), ("date", "2026-02-10")]),
        ("Oil rose 3 times in H2.", [("number", "3"), ("quarter", "H2")]),
    ],
)
def test_numeric(text, expected):
    assert numeric_parts(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Fed held rates steady.", {"policy_centralbank": "Fed"}),
        ("Fed up investors sold bonds.", {}),
        ("Investors are fed up with volatility.", {}),
        ("Farmers fed the cattle early.", {}),
        ("The Federal Reserve kept policy settings unchanged.", {"policy_centralbank": "Federal Reserve"}),
        ("The ECB raised its deposit rate.", {"policy_centralbank": "ECB"}),
        ("Q4 GDP grew 2.9%.", {"macro_data": "GDP"}),
        ("Payroll growth moderated.", {"macro_data": "Payroll"}),
        ("Markets rallied on earnings.", {}),
    ],
)
def test_topic_classifier(text, expected):
    assert topics(text) == expected


def test_numeric_claim_rules(tmp_path):
    root = _repo(
        tmp_path,
        "- Markets fell 2% yesterday. [1]\n- Oil rose 3% on supply concerns. [2][3]\n- Stocks may slip in March. [1]"
        "\n- Stocks fell 2% with the Fed statement. [4]\n- Inflation is expected to reach 5.2% by Q3. [5]",
        [_cite(1, "market_blog"), _cite(2, "reuters"), _cite(3, "ft_markets"), _cite(4, "fed_press_releases"), _cite(5, "zerohedge")],
        watch="- Next CPI release on March 12. [6]\n- Yields to hit 5% on March 12. [1]",
    )
    sidecar = json.loads((root / "brief.citations.json").read_text())
    sidecar["citations"]["6"] = _cite(6, "bls_schedule")
    (root / "brief.citations.json").write_text(json.dumps(sidecar))
    found = [(line, code, message) for _, line, _, code, message in _found(root, {"B320"})]
    suffix = ": [Insufficient credible evidence for this claim]"
    assert found == [
        (2, "B320", "numeric/time claim (percentage '2%') needs a Tier 1-2 citation or 2 independent sources; "
                    "it cites [1] market_blog (Tier 3)" + suffix),
        (6, "B320", "numeric/time claim (percentage '5.2%') needs a Tier 1-2 citation or 2 independent sources; "
                    "it cites [5] zerohedge (Tier 4)" + suffix),
        (16, "B320", "numeric/time claim (percentage '5%') needs a Tier 1-2 citation or 2 independent sources; "
                     "it cites [1] market_blog (Tier 3)" + suffix),
    ]  # the calendar bullet (line 15) is exempt; two Tier 3-4 publishers would pass too


def test_two_independent_low_tier_publishers_pass_and_one_publisher_twice_does_not(tmp_path):
    blog2 = dict(_cite(2, "market_blog"), publisher="Other Blog")
    root = _repo(tmp_path, "- Markets fell 2% yesterday. [1][2]", [_cite(1, "market_blog"), blog2])
    assert _codes(root) == []
    shutil.rmtree(root)
    root = _repo(tmp_path, "- Markets fell 2% yesterday. [1][2]", [_cite(1, "market_blog"), _cite(2, "market_blog")])
    assert _codes(root) == [(2, "B320")]


# -- policy claims ----------------------------------------------------------------------------------------


def test_policy_claims_need_the_packs_tier_1(tmp_path):
    pack = _pack([("fed_press_releases", 1), ("reuters", 1)])
    root = _repo(
        tmp_path,
        "- The Fed held rates steady. [1]\n- Fed up investors sold bonds. [1]\n- The Fed held rates steady. [1][2]",
        [_cite(1, "reuters"), _cite(2, "fed_press_releases")],
        evidence_pack=pack,
    )
    assert _found(root, {"B321"}) == [(
        "brief.md", 2, 1, "B321",
        "policy claim [policy_centralbank ('Fed'), from the keywords] cites no Tier 1 source while the evidence pack "
        "holds fed_press_releases (Tier 1): [Cite official source directly for policy claims]",
    )]


def test_without_a_tier_1_source_in_the_pack_a_policy_claim_passes(tmp_path):
    root = _repo(tmp_path, "- The Fed held rates steady. [1]", [_cite(1, "reuters")], evidence_pack=_pack([("reuters", 2)]))
    assert _found(root, {"B321"}) == []


def test_bullet_mapping_tags_override_the_classifier(tmp_path):
    pack = _pack([("fed_press_releases", 1), ("reuters", 1)])
    bullets = {"prevailing": [{"citations": ["cite_1"], "tags": ["policy_centralbank"]},
                              {"citations": ["cite_1"], "tags": ["market_narrative"]}]}
    root = _repo(tmp_path, "- Markets priced a pause. [1]\n- The Fed held rates steady. [1]", [_cite(1, "reuters")],
                 evidence_pack=pack, bullets=bullets)
    assert [(f[1], f[4]) for f in _found(root, {"B321"})] == [
        (2, "policy claim [policy_centralbank, from the mapping] cites no Tier 1 source while the evidence pack holds "
            "fed_press_releases (Tier 1): [Cite official source directly for policy claims]"),
    ]


# -- grounding --------------------------------------------------------------------------------------------


def test_quote_span_grounding_escapes_and_ranges(tmp_path):
    chunks = {"chunk_1": {"text": "Officials kept\u200bpolicy unchanged."}, "chunk_2": {"text": "short"}}
    root = _repo(
        tmp_path, "- The Fed kept policy unchanged. [1][2]",
        [_cite(1, "fed_press_releases", quote_span={"start": 0, "end": 15, "text": "Officials kept "}),
         _cite(2, "fed_press_releases", quote_span={"start": 2, "end": 9, "text": "ort"})],
        chunks=chunks,
    )
    assert [f[3:] for f in _found(root, {"B322", "B323"})] == [
        ("B322", 'citation [1]: quote_span text differs from chunk chunk_1 [0:15) at offset 14: quoted "Officials kept ", '
                 'stored "Officials kept\\u200b"'),
        ("B323", "citation [2]: quote_span [2:9) is outside the stored text of chunk chunk_2 (5 code points)"),
    ]


def test_escaped():
    assert escaped('a"b\\c\n\td\u00a0e\u200b\U0001f600') == '"a\\"b\\\\c\\n\\td\\u00a0e\\u200b\U0001f600"'


def test_paywalled_full_text_under_another_name_and_fix_strips_it(tmp_path, capsys):
    root = _repo(tmp_path, "- Stocks fell on inflation data. [1]",
                 [_cite(1, "ft_markets", excerpt="Stocks tumbled.", extracted={"text": "Stocks tumbled."},
                        snippet_span={"text": "Stocks tumble"})])
    assert [f[3:] for f in _found(root, {"B324"})] == [
        ("B324", "citation [1]: excerpt, extracted carry text of ft_markets, whose paywall_policy is metadata_only: "
                 "only snippet_span is allowed"),
    ]
    main(["brief", "validate", str(root / "brief.md"), "--fix"])
    capsys.readouterr()
    kept = json.loads((root / "brief.citations.json").read_text())["citations"]["1"]
    assert "excerpt" not in kept and "extracted" not in kept and kept["snippet_span"] == {"text": "Stocks tumble"}
    assert _found(root, {"B324"}) == []


# -- the evidence pack --------------------------------------------------------------------------------------


def test_pack_rules_exact(tmp_path):
    chunks = [
        {"chunk_id": "c1", "source_id": "reuters", "published_at": "2026-02-10T00:00:00Z", "score": 0.9,
         "similarity": 0.9, "recency": 1.0, "credibility": 0.8},
        {"chunk_id": "c2", "source_id": "reuters", "published_at": "2025-12-01T00:00:00Z"},
        {"chunk_id": "c3", "source_id": "zerohedge", "credibility_tier": 2, "credibility_score": 0.8},
        {"chunk_id": "c4", "source_id": "market_blog"},
    ]
    stats = {"unique_publishers": 3, "tier_1_pct": 0, "tier_2_pct": 50, "tier_3_pct": 25, "tier_4_pct": 20,
             "max_publisher_pct": 50}
    root = _repo(tmp_path, "- Markets rallied. [1]", [_cite(1, "reuters")],
                 evidence_pack=_pack([], chunks=chunks, diversity_stats=stats))
    name = "evidence pack pack_1"
    assert [f[3:] for f in _found(root)] == [
        ("B325", f"{name}: publisher 'Reuters' holds 2 of 4 chunks (50%), over 40%"),
        ("B327", f"{name}: Tier 4 chunks are 25% of 4, over 15%"),
        ("B328", f"{name} holds 4 chunks, outside 20-40"),
        ("B329", f"{name}: 1 chunk older than 30 days before 2026-02-11T08:00:00Z: c2 (2025-12-01T00:00:00Z)"),
        ("B330", f"{name}: diversity_stats.tier_4_pct is 20, recomputed 25%"),
        ("B331", f"{name}: chunk c1 has score 0.9, the formula gives 0.9100 (0.5*0.9 + 0.3*1.0 + 0.2*0.8)"),
        ("B332", f"{name}: chunk c3 has credibility score 0.8, Tier 4 maps to 0.3"),
        ("B332", f"{name}: chunk c3 has credibility_tier 2, the registry gives zerohedge Tier 4"),
    ]  # Tier 1-2 is exactly 50%: B326 stays quiet


def test_pack_thresholds_are_settings(tmp_path):
    settings = (
        "[tool.citations.rules.B325]\nmax-publisher-pct = 60\n[tool.citations.rules.B328]\nmin-chunks = 2\n"
        "[tool.citations.rules.B326]\nmin-tier-1-2-pct = 80\n"
    )
    root = _repo(tmp_path, "- Markets rallied. [1]", [_cite(1, "reuters")], settings=settings,
                 evidence_pack=_pack([("reuters", 1), ("market_blog", 1)], time_sensitive=False))
    assert [f[3:] for f in _found(root)] == [("B326", "evidence pack pack_1: Tier 1-2 chunks are 50% of 2, under 80%")]


# -- uncertainty, confidence, abstaining report ---------------------------------------------------------------


def test_uncertainty_and_confidence(tmp_path):
    root = _repo(
        tmp_path,
        "- According to limited available reports, the Fed will pause. [1]\n"
        "- Some sources suggest a pause, but official confirmation is pending. [2]\n"
        "- [HIGH CONFIDENCE] The Fed held rates. [1][2][3]\n"
        "- [MEDIUM CONFIDENCE] Markets expect a pause. [2][3]\n"
        "- [LOW CONFIDENCE] Some analysts predict recession. [4]\n"
        "- [HIGH CONFIDENCE] Markets expect a pause. [2][4]",
        [_cite(1, "fed_press_releases"), _cite(2, "reuters"), _cite(3, "ft_markets"), _cite(4, "zerohedge")],
    )
    assert [f[1:2] + f[3:] for f in _found(root)] == [
        (2, "B333", "uncertainty marker 'According to limited available reports' admits Tier 3, 4 sources; "
                    "the bullet cites [1] fed_press_releases (Tier 1)"),
        (7, "B334", "[HIGH CONFIDENCE] but the citations (1 Tier 2, 1 Tier 4, by publisher) support LOW"),
    ]


def test_abstaining_report_written_by_the_validator_is_complete(tmp_path, capsys):
    root = tmp_path / "repo"
    shutil.copytree(REPO, root)
    main(["brief", "validate", str(root / "briefs" / "2026-03-10-seeded.md"), "--attempt", "2",
          "--abstain-report", str(root / "briefs" / "abstain.md"), "--date", "2026-03-10"])
    capsys.readouterr()
    assert [d for d in Engine.load(root).check([root / "briefs" / "abstain.md"]).diagnostics] == []
    text = (root / "briefs" / "abstain.md").read_text()
    (root / "briefs" / "abstain.md").write_text(text.split("## Why Insufficient")[0] + "## References\n")
    assert [f[1:] for f in _found(root, {"B335", "B317"}) if f[0] == "briefs/abstain.md"] == [
        (1, 1, "B335", "abstaining report lacks the section 'Why Insufficient'"),
        (13, 1, "B335", "abstaining report section 'References' is empty"),
    ]


# -- the realistic brief from real data ------------------------------------------------------------------------


def test_fixture_is_built_from_the_real_payloads_and_registry(realdata):
    for rel, text in brief_quality_fixture.build().items():
        assert (REPO / rel).read_text(encoding="utf-8") == text, rel
    payloads = json.loads(brief_quality_fixture.PAYLOADS.read_text())
    connection = sqlite3.connect(REPO / "evidence" / "store.sqlite")
    stored = {row[0]: row[1:] for row in connection.execute("SELECT url, title, published_at FROM documents")}
    for items in payloads.values():
        doc = brief_quality_fixture.normalized(items[0])
        assert stored[doc["url"]] == (doc["title"], doc["published_at"])
    imported = json.loads((REPO / "evidence" / "import.json").read_text())
    for table, rows in imported.items():
        assert connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == len(rows), table
    connection.close()


SEEDED = "briefs/2026-03-10-seeded.md"
EXPECTED = [
    (SEEDED, 1, 1, "B325", "evidence pack pack_2026_03_10_seeded: publisher 'Reuters' holds 4 of 8 chunks (50%), over 40%"),
    (SEEDED, 4, 109, "B322", 'citation [1]: quote_span text differs from chunk chunk_fed_press_releases [66:99) at offset 93: '
                             'quoted "inflation progress remains even", stored "inflation progress remains uneven"'),
    (SEEDED, 7, 1, "B320", "numeric/time claim (percentage '12 basis points') needs a Tier 1-2 citation or 2 independent "
                           "sources; it cites [7] macrovoices (Tier 3): [Insufficient credible evidence for this claim]"),
    (SEEDED, 12, 1, "B321", "policy claim [policy_centralbank ('Fed'), from the keywords] cites no Tier 1 source while the "
                            "evidence pack holds fed_press_releases (Tier 1): [Cite official source directly for policy claims]"),
]


def test_realistic_briefs_exact(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(REPO, root)
    report = Engine.load(root).check([root])
    assert report.files == ["briefs/2026-03-10-seeded.md", "briefs/2026-03-10.md"]
    assert [(d.path, d.line, d.col, d.code, d.message) for d in report.diagnostics] == EXPECTED


def test_validate_fix_applies_the_quality_actions(tmp_path, capsys):
    root = tmp_path / "repo"
    shutil.copytree(REPO, root)
    brief = root / SEEDED
    status = main(["brief", "validate", str(brief), "--fix"])
    report = json.loads(capsys.readouterr().out)
    lines = brief.read_text().splitlines()
    assert lines[6] == "- [Insufficient credible evidence for this claim]"
    assert lines[11] == "- [Cite official source directly for policy claims]"
    before = {(b["section"], b["index"]): (b["status"], b["replacement"]) for b in report["fixed"]["bullets_before"]}
    assert before[("prevailing", 3)] == ("removed", "[Insufficient credible evidence for this claim]")
    assert before[("counter", 2)] == ("removed", "[Cite official source directly for policy claims]")
    assert (report["removed_bullets"], report["decision"], status) == (2, "deliver", 0)
    assert [d["code"] for d in report["diagnostics"]] == ["B325", "B322", "B303"]  # [7] is left uncited


def _store_with_columns(tmp_path, tags: str, text: str):
    """The fixture repository, its store given a ``tags`` column so named and its chunks' ``text``
    column renamed ``text`` (SQLite compares column names with ASCII letters folded)."""
    root = tmp_path / f"repo-{tags}-{text}"
    shutil.copytree(REPO, root)
    connection = sqlite3.connect(root / "evidence" / "store.sqlite")
    connection.execute(f"ALTER TABLE synthesis_bullets ADD COLUMN {tags} TEXT")
    connection.execute(f"ALTER TABLE chunks RENAME COLUMN text TO {text}")
    connection.execute(
        "INSERT INTO synthesis_bullets VALUES ('syn_2026_03_10', 'counter', 0, 'Bond investors ...', '[\"policy_centralbank\"]')"
    )
    connection.commit()
    connection.close()
    return root


@pytest.mark.parametrize(("tags", "text"), [("TAGS", "TEXT"), ("Tags", "Text"), ("tAgS", "text")])
def test_store_columns_in_any_case_are_read_as_in_lower_case(tmp_path, tags, text):
    expected = _found(_store_with_columns(tmp_path, "tags", "text"), QUALITY | {"C006"})
    assert {"B321", "B322"} <= {f[3] for f in expected} and "C006" not in {f[3] for f in expected}
    assert _found(_store_with_columns(tmp_path, tags, text), QUALITY | {"C006"}) == expected


def test_store_bullet_tags_and_pack_are_read(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(REPO, root)
    connection = sqlite3.connect(root / "evidence" / "store.sqlite")
    connection.execute("ALTER TABLE synthesis_bullets ADD COLUMN tags TEXT")
    connection.execute(
        "INSERT INTO synthesis_bullets VALUES ('syn_2026_03_10', 'counter', 0, 'Bond investors ...', '[\"policy_centralbank\"]')"
    )
    connection.commit()
    connection.close()
    found = [f for f in _found(root) if f[0] == "briefs/2026-03-10.md"]
    assert found == [(
        "briefs/2026-03-10.md", 9, 1, "B321",
        "policy claim [policy_centralbank, from the mapping] cites no Tier 1 source while the evidence pack holds "
        "fed_press_releases (Tier 1): [Cite official source directly for policy claims]",
    )]
