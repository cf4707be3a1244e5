"""Verdicts on briefs as real repositories write them: bullets under a sub-heading of a claim section
are claims, briefs longer than the content sniff's window are checked, a claim is its words (not
its link destinations, labels, autolinks or HTML), a registry entry names the hosts a source
publishes on, and a swapped pair of References entries is one finding."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from brief_examples import _QREGISTRY, _brief, _cite, _pack, _refs, _sidecar
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PROJECT, TESTS
from cpu_bounds import assert_cpu_under
from frontends import from_cli, from_engine, from_pytest
from pytest_citations.discovery import SNIFF_BYTES
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main
from pytest_citations.kinds.briefs import model as briefs
from pytest_citations.kinds.briefs import source_registry as registry
from pytest_citations.kinds.briefs.headings import headings

BRIEF_REPO = PROJECT / "fixtures" / "brief-repo"
OPTIONS = {"claim-sections": briefs.CLAIM_SECTIONS, "references-heading": "References"}


def found(root, codes=None) -> list[tuple]:
    """(path, line, col, code, message) of ``citations check`` on ``root``, optionally of some codes."""
    return [(d.path, d.line, d.col, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics
            if codes is None or d.code in codes]


def quality_repo(tmp_path, prevailing: str, citations: list[dict], **more):
    """A repository of one brief (``brief.md``), its sidecar (with ``more`` of it) and the examples' registry."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "brief.md").write_text(_brief(prevailing, _refs(*(c["source_id"] for c in citations))))
    (root / "brief.citations.json").write_text(_sidecar(citations, **more))
    (root / "source_registry.yaml").write_text(_QREGISTRY)
    return root


def validate(brief, capsys) -> tuple[int, dict]:
    status = main(["brief", "validate", str(brief)])
    return status, json.loads(capsys.readouterr().out)


# -- 1. a sub-heading stays inside its claim section ------------------------------------------------------

SUBHEADED = """\
## Prevailing View
- The Federal Reserve held rates at 5.25-5.50% in February, citing persistent inflation. [1][2]

### Growth
- Q4 GDP grew 2.9%, slightly above consensus. [3]
- Markets are pricing three cuts this year.

## Counterarguments
- Some economists warn the Fed risks over-tightening into a slowdown. [4][5]

## Minority View
- [Insufficient evidence to represent minority views on this topic]

## What to Watch
- Next CPI release on March 12. [6]

## References
[1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://...
[2] Reuters. "Fed holds rates steady". Feb 10, 2026. https://...
[3] BEA. "GDP Q4 2025 Advance Estimate". Jan 30, 2026. https://...
[4] Financial Times. "Is the Fed over-tightening?". Feb 9, 2026. https://... [Paywall]
[5] Brookings. "Monetary Policy Debate". Feb 8, 2026. https://...
[6] BLS. "Economic Release Schedule". https://...
"""


def subheaded_repo(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(BRIEF_REPO, root)
    (root / "briefs" / "valid.md").write_text(SUBHEADED)
    return root


def test_an_uncited_bullet_under_a_sub_heading_is_reported(tmp_path):
    root = subheaded_repo(tmp_path)
    assert [f[1:] for f in found(root) if f[0] == "briefs/valid.md"] == [
        (6, 1, "B301", "claim bullet has no citation marker [N]"),
    ]


def test_the_validator_counts_the_bullets_under_a_sub_heading(tmp_path, capsys):
    root = subheaded_repo(tmp_path)
    status, report = validate(root / "briefs" / "valid.md", capsys)
    assert (status, report["total_bullets"], report["removed_bullets"], report["validation_passed"]) == (1, 6, 1, False)
    assert [(b["section"], b["index"], b["line"], b["status"]) for b in report["bullets"][:3]] == [
        ("prevailing", 0, 2, "cited"), ("prevailing", 1, 5, "cited"), ("prevailing", 2, 6, "removed"),
    ]


@pytest.mark.parametrize("plain", [True, False], ids=["plain reader", "markdown-it"])
@pytest.mark.parametrize(("heading", "inside"), [
    ("### Growth", True), ("#### Deeper", True), ("###### Deepest", True),
    ("## Notes", False), ("# Appendix", False), ("Notes\n-----", False), ("Appendix\n========", False),
])
def test_a_deeper_heading_stays_inside_and_the_same_or_higher_level_ends_it(heading, inside, plain, monkeypatch):
    if not plain:
        monkeypatch.setattr(briefs, "_plain_blocks", lambda text: None)
    text = f"## Prevailing View\n- a [1]\n\n{heading}\n- b\n\n## Counterarguments\n- c [1]\n\n## References\n[1] x\n"
    brief = briefs.read_brief("b.md", text, OPTIONS)
    assert [b.text for b in brief.sections["prevailing"].bullets] == (["a [1]", "b"] if inside else ["a [1]"])
    assert [b.text for b in brief.sections["counter"].bullets] == ["c [1]"]


def test_a_claim_section_under_a_title_heading_ends_at_the_next_claim_section():
    text = "# Daily Brief\n\n### Prevailing View\n- a [1]\n#### Detail\n- b [1]\n### What to Watch\n- c [1]\n## Sources\n- d\n### References\n[1] x\n"
    brief = briefs.read_brief("b.md", text, OPTIONS)
    assert {key: [b.text for b in s.bullets] for key, s in brief.sections.items()} == {"prevailing": ["a [1]", "b [1]"], "watch": ["c [1]"]}
    assert [e.number for e in brief.entries] == [1]


def test_entries_under_a_sub_heading_of_references_are_read():
    text = "## Prevailing View\n- a [1]\n- b [2]\n\n## Counterarguments\n- c [1]\n\n## References\n### Official\n[1] x\n### Press\n[2] y\n# Appendix\n[3] z\n"
    brief = briefs.read_brief("b.md", text, OPTIONS)
    assert [(e.number, e.line) for e in brief.entries] == [(1, 10), (2, 12)]


def test_an_abstaining_reports_section_with_a_sub_heading_is_not_empty(tmp_path):
    (tmp_path / "abstain.md").write_text(
        "# Daily Brief - 2026-02-11\n\n## Synthesis Status: Insufficient Evidence\n\nNo brief today.\n\n"
        "## Available Evidence Summary\n\n### Official\n\n- The Fed held rates. [1]\n\n"
        "## Why Insufficient\n\n### Sources\n\n- No Tier 1 sources published policy statements today\n\n"
        "## References\n\n### Official\n\n"
        '[1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm\n'
    )
    assert found(tmp_path, {"B335"}) == []


# -- 2. briefs longer than the content sniff's window -------------------------------------------------------

def long_brief(bullets: int = 1000) -> str:
    """A brief whose References heading lies past the sniff window, with one uncited bullet at the end."""
    claims = "".join(f"- Claim {n} about the outlook, discussed at length by several analysts. [1]\n" for n in range(bullets))
    return (
        f"# Daily Brief\n\n## Prevailing View\n{claims}- The last claim has no citation.\n\n"
        "## Counterarguments\n- Other view. [1]\n\n## Minority View\n- Dissent. [1]\n\n## What to Watch\n- Watch this. [1]\n\n"
        '## References\n[1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm\n'
    )


def test_a_brief_longer_than_the_sniff_window_is_checked(tmp_path, capsys):
    text = long_brief()
    assert text.index("## References") > SNIFF_BYTES
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "briefs").mkdir()
    (tmp_path / "briefs" / "long.md").write_text(text)
    line = text[: text.index("- The last claim")].count("\n") + 1
    assert main(["check", str(tmp_path), "--format", "json", "--no-cache"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["files_checked"] == 1
    assert [(d["line"], d["code"]) for d in report["diagnostics"] if d["code"] == "B301"] == [(line, "B301")]


def window_head(text: str) -> str:
    """What the engine's sniff sees of a file holding ``text``."""
    return text.encode()[:SNIFF_BYTES].decode("utf-8", "replace")


FILLER = "".join(f"- Note {n}: a line of ordinary Markdown, long enough to fill the window.\n" for n in range(1200))


@pytest.mark.parametrize(("text", "claimed"), [
    (long_brief(), True),
    ("## Prevailing View\n" + FILLER, True),  # still inside its first claim section when the window ends
    ("# Brief\n\n## Prevailing View\n### Growth\n" + FILLER, True),
    ("## Counterarguments\n- a [1]\n## What to Watch\n- b [1]\n" + FILLER, True),
    ("# Notes\n\n" + FILLER, False),
    ("## What to Watch\n- a\n\n## Other things\n" + FILLER, False),  # one claim heading, a section after it
    ("## References\n" + FILLER, False),
])
def test_a_long_head_is_claimed_by_what_a_briefs_head_always_holds(text, claimed):
    head = window_head(text)
    assert len(head.encode()) >= SNIFF_BYTES - 3
    assert briefs.KIND.sniff(head) is claimed


def test_a_short_file_is_claimed_only_as_a_whole_brief():
    assert not briefs.KIND.sniff("## Prevailing View\n- a\n\n## Counterarguments\n- b\n")
    assert not briefs.KIND.sniff("## Prevailing View\n" + FILLER[:30000])


LATE_BRIEF = (
    "## Prevailing View\n- GDP grew 3.1% in the fourth quarter.\n\n## Counterarguments\n"
    "- [Insufficient evidence to assess this claim]\n\n## References\n"
    '[1] BEA. "GDP". Feb 10, 2026. https://www.bea.gov/news/2026/gdp\n'
)
PREAMBLES = {
    "background": "# Daily Brief\n\n" + ("Background paragraph. " * 40 + "\n\n") * 80,
    "html comment": "<!--" + "x" * 80000 + "-->\n\n",
}


@pytest.mark.parametrize("preamble", PREAMBLES)
def test_claim_sections_past_the_window_are_checked_with_one_verdict(pytester, capsys, preamble):
    """A brief whose claim sections all start past the window: check, pytest and validate agree."""
    text = PREAMBLES[preamble] + LATE_BRIEF
    assert text.index("## Prevailing View") > SNIFF_BYTES
    root = pytester.path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "brief.md").write_text(text)
    expected = from_engine(pytester.path, "repo")
    assert sorted(code for _, _, _, code, _ in expected) == ["B301", "B303", "B317", "B317"]
    assert from_cli(pytester.path, "repo", capsys) == expected
    from_pytest_found, result = from_pytest(pytester, "repo")
    assert from_pytest_found == expected
    result.assert_outcomes(failed=1)
    status = main(["brief", "validate", str(root / "brief.md"), "--report", str(pytester.path / "r.json")])
    report = json.loads((pytester.path / "r.json").read_text())
    assert status == 1 and report["validation_passed"] is False
    assert {("repo/brief.md", d["line"], d["col"], d["code"], d["message"]) for d in report["diagnostics"]} == expected


def test_a_brief_named_on_the_command_line_is_checked_whatever_its_length(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "brief.md").write_text(PREAMBLES["background"] + LATE_BRIEF)
    assert main(["check", str(tmp_path / "brief.md"), "--format", "json", "--no-cache"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["files_checked"] == 1 and "not checked" not in captured.err


def test_a_long_brief_on_standard_input_is_checked_as_on_disk(tmp_path, capsys, monkeypatch):
    import io

    text = PREAMBLES["background"] + LATE_BRIEF
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "brief.md").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "brief.md", "--format", "json", "--no-cache"]) == 1
    on_disk = json.loads(capsys.readouterr().out)["diagnostics"]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8"))
    assert main(["check", "-", "--stdin-filename", "brief.md", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["diagnostics"] == on_disk and len(on_disk) == 4


@pytest.mark.parametrize("rest", [
    "## Prevailing View\nOrdinary prose.\n\n## Counterarguments\nMore prose.\n\n## References\n- A book.\n",
    "## What to Watch\n- The next release. [1]\n\n## Other things\n- More.\n",
    "## Notes\n- Nothing of a brief here. [1]\n",
])
def test_long_ordinary_markdown_with_headings_past_the_window_gets_no_finding(tmp_path, rest):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "notes.md").write_text(PREAMBLES["background"] + rest)
    assert found(tmp_path) == []


def test_the_scan_past_the_window_stops_at_max_file_size(tmp_path):
    """Claim sections within max-file-size claim the file (reported as too large when it is read);
    past it they are not looked for: the scan is bounded."""
    background = PREAMBLES["background"]
    assert SNIFF_BYTES < len(background) < 100_000
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\nmax-file-size = 150000\n")
    (tmp_path / "within.md").write_text(background + LATE_BRIEF + background * 2)
    (tmp_path / "beyond.md").write_text(background * 3 + LATE_BRIEF)
    assert [(f[0], f[3]) for f in found(tmp_path)] == [("within.md", "C003")]


def test_the_scan_past_the_window_is_linear():
    """Megabytes of headings and [N] lines: the scan reads each once, whatever they hold."""
    import time

    block = "".join(f"## Section {n} of what to watch\n- Item [1] of a minority of notes.\n\n" for n in range(2000))
    text = block * 80  # about 6 MB
    head = window_head(text)
    start = time.process_time()
    assert not briefs.KIND.sniff_long(head, iter([text]))
    assert briefs.KIND.sniff_long(head, iter([text, "## Prevailing View\n- a [1]\n## Counterarguments\n- b [1]\n"]))
    assert_cpu_under(time.process_time() - start, 5.0)


@pytest.mark.parametrize("folder", ["ai-agents-head", "pai-opencode-head"])
def test_no_real_markdown_is_claimed_as_a_brief(realdata, folder):
    root = realdata / folder
    engine = Engine.load(root)
    report = engine.check([root])
    assert report.files
    assert [rel for rel in report.files if rel.endswith(".md") and briefs.KIND in engine.kinds_for(rel)] == []
    assert [d for d in report.diagnostics if d.code.startswith("B3")] == []


def test_real_markdown_made_long_is_not_claimed(realdata):
    paths = sorted([*(realdata / "ai-agents-head").rglob("*.md"), *(realdata / "pai-opencode-head").rglob("*.md")])
    assert paths
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        repeated = text * (SNIFF_BYTES // max(len(text.encode()), 1) + 1)
        assert not briefs.KIND.sniff(window_head(repeated)), path
        assert not briefs.KIND.sniff_long(window_head(repeated), iter([repeated, repeated])), path


# -- 3. a claim is its words -----------------------------------------------------------------------------------

NOT_CLAIMS = [
    "Analysts discussed the [methodology notes](https://www.bls.gov/cpi/tables/2026.htm) at length.",
    'Analysts discussed the [notes](https://www.bls.gov/a.htm "Tables for 2026") at length.',
    "Analysts discussed the notes at length <https://www.bls.gov/cpi/tables/2026.htm>.",
    "Analysts discussed the notes at length, see https://www.bls.gov/cpi/tables/2026.htm.",
    "Analysts discussed the ![chart](https://www.bls.gov/cpi/2026/chart.png) at length.",
    "Analysts discussed the [notes][2026] at length.",
    'Analysts discussed the <abbr title="March 12, 2026">notes</abbr> at length.',
    "Analysts discussed the notes <!-- from 2026 --> at length.",
]


@pytest.mark.parametrize("bullet", NOT_CLAIMS)
def test_digits_outside_the_claims_words_are_no_numeric_claim(tmp_path, bullet):
    definitions = "\n[2026]: https://www.bls.gov/cpi/tables/2026.htm\n" if "[2026]" in bullet else ""
    root = quality_repo(tmp_path, f"- {bullet} [1]", [_cite(1, "market_blog")])
    (root / "brief.md").write_text((root / "brief.md").read_text() + definitions)
    assert found(root, {"B320"}) == []


def test_digits_in_a_links_text_are_a_numeric_claim(tmp_path):
    root = quality_repo(tmp_path, "- Analysts expect [growth of 3% in 2026](https://www.bls.gov/a.htm). [1]", [_cite(1, "market_blog")])
    assert [f[3:] for f in found(root, {"B320"})] == [(
        "B320", "numeric/time claim (percentage '3%') needs a Tier 1-2 citation or 2 independent sources; it cites "
                "[1] market_blog (Tier 3): [Insufficient credible evidence for this claim]",
    )]


# An HTML entity is the character it names, a footnote reference is no number: neither states one.
ENTITIES_AND_FOOTNOTES = [
    "Markets were calm&#160;overall.",
    "Markets were calm&#8212;overall.",
    "Markets were calm&#x2014;overall.",
    "Markets were calm&nbsp;overall &mdash; and quiet.",
    "Markets were calm, as the show notes say.[^1]",
    "Markets were calm, as the show notes say.[^note-2]",
]


@pytest.mark.parametrize("defined", [False, True], ids=["undefined", "defined"])
@pytest.mark.parametrize("bullet", ENTITIES_AND_FOOTNOTES)
def test_entities_and_footnote_references_are_no_numeric_claim(tmp_path, bullet, defined):
    root = quality_repo(tmp_path, f"- {bullet} [1]", [_cite(1, "market_blog")])
    if defined:  # a footnote definition, which CommonMark reads as a link reference definition
        (root / "brief.md").write_text((root / "brief.md").read_text() + "\n[^1]: The show notes.\n[^note-2]: More notes.\n")
    assert found(root, {"B320"}) == []


@pytest.mark.parametrize(("bullet", "part"), [
    ("Stocks rose 3&#37; on the day.", "percentage '3%'"),  # an entity of a character that is part of a number
    ("Stocks rose &#51;% on the day.", "percentage '3%'"),  # an entity of a digit: the reader reads 3%
    ("Stocks rose 3%.[^1]", "percentage '3%'"),
])
def test_what_an_entity_or_a_footnote_leaves_is_still_read(tmp_path, bullet, part):
    root = quality_repo(tmp_path, f"- {bullet} [1]", [_cite(1, "market_blog")])
    assert [f[4].split(")")[0] for f in found(root, {"B320"})] == [f"numeric/time claim ({part}"]


def test_validate_fix_keeps_a_bullet_with_an_entity_or_a_footnote(tmp_path, capsys):
    prevailing = "- Markets were calm&#160;overall. [1]\n- Markets were calm, as the show notes say.[^1] [1]"
    root = quality_repo(tmp_path, prevailing, [_cite(1, "market_blog")])
    before = (root / "brief.md").read_text()
    assert main(["brief", "validate", str(root / "brief.md"), "--fix", "--report", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert (report["removed_bullets"], report["fixed"]["edits"]) == (0, 0)
    assert (root / "brief.md").read_text() == before


def test_a_link_title_makes_no_policy_claim(tmp_path):
    pack = _pack([("fed_press_releases", 1), ("reuters", 1)])
    prevailing = ('- Yields drifted lower after the [minutes](https://www.reuters.com/a "FOMC minutes"). [1]\n'
                  "- Yields drifted lower after the FOMC minutes. [1]")
    root = quality_repo(tmp_path, prevailing, [_cite(1, "reuters")], evidence_pack=pack)
    assert [(f[1], f[3]) for f in found(root, {"B321"})] == [(3, "B321")]


def test_a_phrase_in_an_html_attribute_is_no_uncertainty_marker(tmp_path):
    prevailing = ('- <span title="According to limited available reports">The Fed held rates.</span> [1]\n'
                  "- According to limited available reports, the Fed held rates. [1]")
    root = quality_repo(tmp_path, prevailing, [_cite(1, "fed_press_releases")])
    assert [(f[1], f[3]) for f in found(root, {"B333"})] == [(3, "B333")]


def test_a_confidence_label_inside_html_is_read(tmp_path):
    root = quality_repo(tmp_path, "- <span>[HIGH CONFIDENCE]</span> The Fed will cut rates. [1]", [_cite(1, "zerohedge")])
    assert [(f[1], f[3]) for f in found(root, {"B334"})] == [(2, "B334")]


LINK = {"href": "https://x.example/9", "title": ""}


@pytest.mark.parametrize(("content", "definitions", "claim"), [
    ("a [b](u/2026) c", {}, "a _b_________ c"),
    ("a [b](<u 2026> 'x 1') c", {}, "a _b_________________ c"),
    ("a ![b 1](u) c", {}, "a _________ c"),
    ("a <https://x/1> c", {}, "a _____________ c"),
    ("a <b@x.example> c", {}, "a _____________ c"),
    ('a <i class="x1">b</i> c', {}, "a ______________b____ c"),
    ("a <!-- 1 --> c", {}, "a __________ c"),
    ("a `1` c [2]", {}, "a ___ c [2]"),
    ("a www.x.example/1 c", {}, "a _______________ c"),
    ("a http://x.example/1, c", {}, "a ___________________ c"),
    ("a [b][l1] c", {"L1": LINK}, "a _b_____ c"),
    ("a [b] c", {"B": LINK}, "a _b_ c"),
    ("a [1] c", {"1": LINK}, "a ___ c"),  # a [N] read as a link (B306) states no number
    ("a [b [1]](u) c", {}, "a _b [1]____ c"),
    ("a [b `1`](u) c", {}, "a _b _______ c"),
    ("a [b](u) and\n[c](v/2) d", {}, "a _b____ and\n_c______ d"),
    ("a [unclosed(u/1 c", {}, "a [unclosed(u/1 c"),
    ("a \\[b](u/1) c", {}, "a \\[b](u/1) c"),
    ("a&#160;b c", {}, "a______b c"),  # an entity is the character it stands for, padded
    ("a&mdash;b c", {}, "a\u2014______b c"),
    ("a 3&#37; c", {}, "a 3%____ c"),  # next to the text it joins
    ("a &#51;% c", {}, "a ____3% c"),
    ("a [b&#49;](u) c", {}, "a _b1________ c"),  # in a link's text too
    ("a `&#49;` c", {}, "a _______ c"),  # in a code span it is code
    ("a \\&#49; c", {}, "a \\&#49; c"),  # escaped, it is text
    ("a&#10;b c", {}, "a_____b c"),  # a line end it stands for is a blank: the claim keeps its lines
    ("a.[^1] c", {}, "a.____ c"),  # a footnote reference is no word of the claim
    ("a.[^1] c", {"^1": LINK}, "a.____ c"),  # nor when its definition makes it a link
])
def test_the_claim_of_a_bullet_blanks_what_is_not_its_words(content, definitions, claim):
    env = {"references": definitions} if definitions else {}
    assert briefs.claim_prose(content, env) == claim.replace("_", " ")


@pytest.mark.parametrize(("bullet", "abstains"), [
    ("[Insufficient evidence to assess this claim]", True),
    ("[Insufficient evidence to assess this claim] <!-- reviewed 2026-02-11 -->", True),
    ("<span>[Insufficient evidence to assess this claim]</span>", True),
    ("[Insufficient evidence to assess this claim](https://x.example/why)", False),  # a link, not the marker
    ("`[Insufficient evidence to assess this claim]`", False),
])
def test_an_abstain_marker_is_read_in_the_claim(bullet, abstains):
    text = f"## Prevailing View\n- {bullet}\n\n## Counterarguments\n- b [1]\n\n## References\n[1] x\n"
    assert briefs.read_brief("b.md", text, OPTIONS).bullets[0].abstain is abstains


def test_a_bullets_claim_is_read_with_the_files_link_definitions():
    text = "## Prevailing View\n- Growth [in 2026][r] held. [1]\n\n## Counterarguments\n- b [1]\n\n## References\n[1] x\n\n[r]: https://x.example/9\n"
    brief = briefs.read_brief("b.md", text, OPTIONS)
    assert brief.bullets[0].claim == "Growth _in 2026____ held. [1]".replace("_", " ")


# -- 4. the hosts a source publishes on ----------------------------------------------------------------------------

REUTERS = """\
sources:
  - id: reuters_business
    name: Reuters - Business News
    url: https://www.reutersagency.com/feed/?taxonomy=best-topics&post_type=best
    article_hosts: [reuters.com]
    credibility_tier: 2
    paywall_policy: full
  - id: us_bea_news
    name: U.S. Bureau of Economic Analysis - News Releases
    url: https://apps.bea.gov/rss/rss.xml
    credibility_tier: 1
    paywall_policy: full
"""
ARTICLES = {
    "reuters_business": ("Reuters", "https://www.reuters.com/world/us/stocks-investors-balance-growth-policy-2026-03-10/"),
    "us_bea_news": ("BEA", "https://www.bea.gov/news/2026/personal-income-and-outlays-february-2026"),
}


def host_repo(tmp_path, registry_text: str, pyproject: str = "", sources=("reuters_business", "us_bea_news")):
    """A repository of one brief citing an article of each of ``sources`` (mvp-agent's real article
    URLs), its sidecar, the registry ``registry_text`` and the settings ``pyproject``."""
    citations = []
    for number, source_id in enumerate(sources, start=1):
        publisher, url = ARTICLES[source_id]
        citations.append(dict(_cite(number, "reuters"), source_id=source_id, publisher=publisher, url=url))
    root = tmp_path / "repo"
    root.mkdir(parents=True)
    refs = "\n".join(f'[{n}] {c["publisher"]}. "Title {n}". Feb 10, 2026. {c["url"]}' for n, c in enumerate(citations, start=1))
    markers = "".join(f"[{n}]" for n in range(1, len(citations) + 1))
    (root / "brief.md").write_text(_brief(f"- Investors weighed softer growth. {markers}", refs))
    (root / "brief.citations.json").write_text(_sidecar(citations))
    (root / "source_registry.yaml").write_text(registry_text)
    (root / "pyproject.toml").write_text(pyproject or "[tool.citations]\n")
    return root


def test_a_registry_entry_names_the_hosts_its_source_publishes_on(tmp_path):
    root = host_repo(tmp_path, REUTERS, sources=("reuters_business",))
    assert found(root, {"B312", "B319"}) == []
    without = host_repo(tmp_path / "without", REUTERS.replace("    article_hosts: [reuters.com]\n", ""), sources=("reuters_business",))
    assert [f[3:] for f in found(without, {"B312"})] == [(
        "B312", "citation [1]: url https://www.reuters.com/world/us/stocks-investors-balance-growth-policy-2026-03-10/ does not "
                "match the registry URL of reuters_business (https://www.reutersagency.com/feed/?taxonomy=best-topics&post_type=best): "
                "if reuters_business publishes on www.reuters.com, list the host in its article_hosts in source_registry.yaml "
                "(or add \"reuters_business = www.reuters.com\" to the source-hosts setting)",
    )]


def test_a_sibling_host_in_host_mode_is_told_to_compare_domains(tmp_path):
    root = host_repo(tmp_path, REUTERS, sources=("us_bea_news",))
    assert [f[4] for f in found(root, {"B312"})] == [
        "citation [1]: url https://www.bea.gov/news/2026/personal-income-and-outlays-february-2026 does not match the registry "
        "URL of us_bea_news (https://apps.bea.gov/rss/rss.xml): both hosts are on bea.gov: set url-match = \"domain\", "
        "or list www.bea.gov in its article_hosts in source_registry.yaml",
    ]
    domain = host_repo(tmp_path / "domain", REUTERS, '[tool.citations.kinds.briefs]\nurl-match = "domain"\n', sources=("us_bea_news",))
    assert found(domain, {"B312"}) == []


def test_the_setting_names_hosts_too(tmp_path):
    bare = REUTERS.replace("    article_hosts: [reuters.com]\n", "")
    root = host_repo(tmp_path, bare, '[tool.citations.kinds.briefs]\nsource-hosts = ["reuters_business = reuters.com", "us_bea_news = www.bea.gov"]\n')
    assert found(root, {"B312", "B319"}) == []


def test_setting_entries_that_name_no_host_are_reported(tmp_path):
    bare = REUTERS.replace("    article_hosts: [reuters.com]\n", "")
    pyproject = ('[tool.citations.kinds.briefs]\nsource-hosts = ["reuters_business reuters.com", "reuters_biz = reuters.com", '
                '"us_bea_news = https://www.bea.gov/news/"]\n')
    root = host_repo(tmp_path, bare, pyproject)
    assert [f[1:] for f in found(root, {"B319"})] == [
        (1, 1, "B319", "setting source-hosts: 'reuters_biz = reuters.com' names reuters_biz, which is not in source_registry.yaml"),
        (1, 1, "B319", "setting source-hosts: 'reuters_business reuters.com' is not \"source_id = host\""),
        (1, 1, "B319", "setting source-hosts: 'us_bea_news = https://www.bea.gov/news/': "
                       "'https://www.bea.gov/news/' is a URL: write its host alone (www.bea.gov)"),
    ]


def test_article_hosts_are_read_with_care():
    text = (
        "sources:\n"
        "  - id: a\n    url: https://a.example/feed\n    article_hosts: [www.a.example, News.A.Example.]\n"
        "  - id: b\n    url: https://b.example/feed\n    article_hosts: b.example\n"
        "  - id: c\n    url: https://c.example/feed\n    article_hosts:\n      - https://www.c.example/news\n"
        "      - 7\n      - c.example:443\n      - ''\n      - c example\n      - '*.c.example'\n"
    )
    parsed = registry.parse("source_registry.yaml", text)
    assert parsed.sources["a"].article_hosts == ("www.a.example", "news.a.example")
    assert parsed.sources["b"].article_hosts == () and parsed.sources["c"].article_hosts == ()
    assert parsed.problems == [
        "7:20: article_hosts of b must be a list of host names, not a string",
        "11:9: article_hosts of c: 'https://www.c.example/news' is a URL: write its host alone (www.c.example)",
        "12:9: article_hosts of c: expected a host name, got an integer",
        "13:9: article_hosts of c: 'c.example:443' is not a host name (no port, path or blanks)",
        "14:9: article_hosts of c: expected a host name, got an empty string",
        "15:9: article_hosts of c: 'c example' is not a host name (no port, path or blanks)",
        "16:9: article_hosts of c: '*.c.example': a host matches its subdomains already: write c.example",
    ]


@pytest.mark.parametrize(("url", "registry_url", "mode", "matches"), [
    ("https://www.bea.gov/news/x", "https://apps.bea.gov/rss/rss.xml", "domain", True),
    ("https://bea.gov/x", "https://apps.bea.gov/rss", "domain", True),
    ("https://WWW.BEA.GOV./x", "https://apps.bea.gov/rss", "domain", True),
    ("https://www.bea.gov:443/x", "https://apps.bea.gov/rss", "domain", True),
    ("https://www.bea.gov/news/x", "https://apps.bea.gov/rss/rss.xml", "host", False),
    ("https://www.bankofengland.co.uk/x", "https://news.bankofengland.co.uk/", "domain", True),
    ("https://www.other.co.uk/x", "https://news.bankofengland.co.uk/", "domain", False),
    ("https://www.reuters.com/x", "https://www.reutersagency.com/feed/", "domain", False),
    ("https://10.0.1.1/x", "https://192.168.1.1/", "domain", False),  # an address is no domain
    ("https://192.168.1.1/x", "https://192.168.1.1/feed", "domain", True),
    ("https://other.github.io/x", "https://someone.github.io/feed.xml", "domain", False),  # a shared host's tenants
    ("https://someone.github.io/x", "https://someone.github.io/feed.xml", "domain", True),
    ("https://www.statcan.gc.ca/x", "https://www.fin.gc.ca/feed", "domain", False),
])
def test_domain_mode_compares_registrable_domains(url, registry_url, mode, matches):
    assert registry.url_matches(url, registry_url, mode) is matches


def mismatched_sources(realdata, rel: str, mode: str, hosts: dict[str, tuple[str, ...]]) -> set[str]:
    """The sources of mvp-agent's fixture articles whose URLs do not match their entry of the real registry ``rel``."""
    payloads = json.loads((realdata / "mvp-agent/artifacts/runtime/daily_brief_fixture_payloads.json").read_text())
    parsed = registry.parse(rel, (realdata / "mvp-agent" / rel).read_text(encoding="utf-8"))
    assert parsed.problems == []
    return {source_id for source_id, documents in payloads.items() for document in documents
            if not registry.source_url_matches(document.get("url") or document["canonical_url"], parsed.sources[source_id], mode,
                                               hosts.get(source_id, ()))}


def test_real_registries_name_feeds_whose_articles_live_elsewhere(realdata):
    new, old = "artifacts/modelling/source_registry.yaml", "at-cbc559d/artifacts/modelling/source_registry.yaml"
    assert mismatched_sources(realdata, new, "host", {}) == {"reuters_business", "wsj_markets", "us_bea_news"}
    assert mismatched_sources(realdata, old, "host", {}) == {"reuters_business", "wsj_markets"}
    assert mismatched_sources(realdata, new, "domain", {}) == {"reuters_business", "wsj_markets"}
    hosts = {"reuters_business": ("reuters.com",), "wsj_markets": ("wsj.com",)}
    for rel in (new, old):
        assert mismatched_sources(realdata, rel, "domain", hosts) == set()
    assert mismatched_sources(realdata, new, "host", {**hosts, "us_bea_news": ("www.bea.gov",)}) == set()


# -- 5. one finding per problem of numbering ------------------------------------------------------------------

@pytest.mark.parametrize(("numbers", "expected"), [
    ([2, 1], [("[1]", "References entry [1] comes after [2]: sort by citation number")]),
    ([1, 3, 2], [("[2]", "References entry [2] comes after [3]: sort by citation number")]),
    ([3, 1, 2], [("[3]", "References entry [3] comes before [1]: sort by citation number")]),
    ([1, 3], [("[3]", "References entry [3] leaves a gap: expected [2]")]),
    ([99], [("[99]", "References entry [99] leaves a gap: expected [1]")]),
    ([3, 1], [("[3]", "References entry [3] leaves a gap: expected [2]"),
              ("[1]", "References entry [1] comes after [3]: sort by citation number")]),
    ([1, 2, 2], [("[2]", "References entry [2] is numbered twice (first on line 3)")]),
    ([1, 2, 3], []),
])
def test_one_finding_per_numbering_problem(numbers, expected):
    from pytest_citations.kinds.briefs.rules import references_out_of_order

    text = "## References\n" + "".join(f"[{n}] x\n" for n in numbers)
    brief = briefs.read_brief("b.md", text, OPTIONS)
    lines = {e.line: e.number for e in brief.entries}
    assert [(f"[{lines[f.line]}]", f.message) for f in references_out_of_order.check(brief, None)] == expected


# -- 6. a sidecar that is not JSON is reported at the place in the sidecar ------------------------------------

SIDECAR_BRIEF = _brief("- Markets were calm. [1]")


@pytest.mark.parametrize(("sidecar", "message"), [
    ('{"citations": {\n  "1": {"id": "cite_1",\n        "id": "cite_1"}\n}}\n',
     "sidecar brief.citations.json:3:9: invalid JSON: duplicate key 'id'"),
    ('{"citations": {\n  "1": {"id": "cite_1",\n        id: "cite_1"}\n}}\n',
     "sidecar brief.citations.json:3:9: invalid JSON: expecting property name enclosed in double quotes"),
    ('{"citations": {\n  "1": {"id": "cite_1"}\n}}\n{}\n',
     "sidecar brief.citations.json:4:1: invalid JSON: extra data"),
    ('{"citations": {\n  "1": {"id": "cite_\x01"}\n}}\n',
     "sidecar brief.citations.json:2:21: invalid JSON: invalid control character"),
])
def test_an_invalid_sidecar_is_reported_at_its_line_and_column(tmp_path, sidecar, message):
    (tmp_path / "brief.md").write_text(SIDECAR_BRIEF)
    (tmp_path / "brief.citations.json").write_text(sidecar)
    assert [(f[0], f[1], f[2], f[4]) for f in found(tmp_path, {"B318"})] == [("brief.md", 1, 1, message)]


# -- hostile briefs ------------------------------------------------------------------------------------------------

MALFORMED = 'References entry [{}] does not follow `[N] Publisher. "Title". Published <date>. <URL>`: '
HOSTILE_BRIEFS = [
    ("brief-claim-syntax.md", [
        (1, 1, "B317", "claim section 'Minority View' is missing"),
        (1, 1, "B317", "claim section 'What to Watch' is missing"),
        (4, 69, "B306", "[2026] is read as the link reference definition [2026]: on line 20, not as a citation marker"),
        (7, 32, "B306", "[2026] is read as part of an autolink (a URL in angle brackets), not as a citation marker"),
    ]),
    ("brief-block-bullets.md", [
        (1, 1, "B317", "claim section 'Minority View' is missing"),
        (1, 1, "B317", "claim section 'What to Watch' is missing"),
        (2, 1, "B301", "claim bullet has no citation marker [N]"),  # an HTML block
        (4, 1, "B301", "claim bullet has no citation marker [N]"),
        (4, 15, "B306", "[7] is read as part of an HTML tag, not as a citation marker"),
        (5, 1, "B301", "claim bullet has no citation marker [N]"),  # CDATA shows nothing, yet it is no comment
        (7, 1, "B301", "claim bullet has no citation marker [N]"),  # a blockquote of HTML
        (11, 1, "B301", "claim bullet has no citation marker [N]"),  # a [1] in code is no citation
        (16, 2, "B301", "claim bullet has no citation marker [N]"),  # a tab-indented item
        (18, 1, "B301", "claim bullet has no citation marker [N]"),
        (18, 22, "B306", "[7] is read as part of an autolink (a URL in angle brackets), not as a citation marker"),
    ]),
    ("brief-formatted-headings.md", [  # headings with emoji, numbers, bold, colons and setext underlines
        (5, 1, "B301", "claim bullet has no citation marker [N]"),
        (10, 1, "B301", "claim bullet has no citation marker [N]"),
        (11, 1, "B301", "claim bullet has no citation marker [N]"),  # a [1] in a <script> is no citation
        (24, 1, "B305", MALFORMED.format(2) + "'30 Feb 2026' is not a date of the calendar"),
        (25, 1, "B303", "References entry [3] is never cited"),
        (25, 1, "B305", MALFORMED.format(3) + "the title's opening quote is never closed"),
        (26, 1, "B303", "References entry [4] is never cited"),
        (26, 1, "B305", MALFORMED.format(4) + "the publisher 'Reuters' does not end with a period"),
        (27, 1, "B303", "References entry [5] is never cited"),
        (27, 1, "B305", MALFORMED.format(5) + "text after the URL: '(archived)' (only [Paywall] and [Monitor-only source] may follow it)"),
    ]),
    ("brief-deep-headings.md", [
        (1, 1, "B317", "claim section 'Minority View' is missing"),
        (6, 1, "B301", "claim bullet has no citation marker [N]"),
        (33, 1, "B303", "References entry [2] is never cited"),
    ]),
]


@pytest.mark.parametrize(("name", "expected"), HOSTILE_BRIEFS, ids=[name for name, _ in HOSTILE_BRIEFS])
def test_hostile_briefs(tmp_path, name, expected):
    """Each file checked as ``briefs/b.md`` (no sidecar, store or registry: those findings left out),
    and every bullet's claim read: as long as its text, with no digit of a URL left in it."""
    data = (TESTS / "hostile" / name).read_bytes()
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "briefs").mkdir()
    (tmp_path / "briefs" / "b.md").write_bytes(data)
    assert [f[1:] for f in found(tmp_path, None) if f[3] not in ("B307", "B310", "B311")] == expected
    brief = briefs.read_brief("b.md", data.decode(), OPTIONS)
    for bullet in brief.bullets:
        assert len(bullet.claim) == len(bullet.text)
        assert not re.search(r"https?://|www\.", bullet.claim)


HOSTILE_REGISTRY = "brief-registry-article-hosts.yaml"
HOSTILE_REGISTRY_PROBLEMS = [
    "7:20: YAML anchor &hosts is not allowed",
    "12:20: YAML alias *hosts is not allowed",
    "34:20: YAML tag !!python/object/apply:os.system is not allowed",
    "18:9: article_hosts of bea: expected a host name, got a list",
    "19:9: article_hosts of bea: expected a host name, got a mapping",
    "20:9: article_hosts of bea: expected a host name, got a boolean",
    "21:9: article_hosts of bea: expected a host name, got a date",
    "22:9: article_hosts of bea: expected a host name, got null",
    "23:9: article_hosts of bea: 'https://user@www.bea.gov:8443/news?x=1#y' is a URL: write its host alone (www.bea.gov)",
    "24:9: article_hosts of bea: 'http://[::1]/a' is a URL: write its host alone (::1)",
    "25:9: article_hosts of bea: 'www.bea.gov/news' is not a host name (no port, path or blanks)",
    "26:9: article_hosts of bea: 'bea gov' is not a host name (no port, path or blanks)",
    "27:9: article_hosts of bea: '*.bea.gov': a host matches its subdomains already: write bea.gov",
]


def test_a_hostile_registrys_article_hosts_are_problems_never_a_crash(tmp_path, monkeypatch):
    import os

    text = (TESTS / "hostile" / HOSTILE_REGISTRY).read_text(encoding="utf-8")
    parsed = registry.parse("source_registry.yaml", text)
    assert parsed.problems == HOSTILE_REGISTRY_PROBLEMS
    assert {s.id: s.article_hosts for s in parsed.sources.values()} == {
        "fed_press_releases": ("www.federalreserve.gov", "federalreserve.gov"), "reuters_business": (),
        "bea": ("\ufb01nance.bea.gov", "xn--bcher-kva.example"), "wsj": (),
    }
    monkeypatch.chdir(tmp_path)
    calls = []
    monkeypatch.setattr(os, "system", lambda *args: calls.append(args))
    (tmp_path / "source_registry.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "brief.md").write_text(_brief("- The Fed held rates. [1]", _refs("fed_press_releases")))
    (tmp_path / "brief.citations.json").write_text(_sidecar([_cite(1, "fed_press_releases")]))
    assert sorted(f[4] for f in found(tmp_path, {"B319"})) == sorted(f"source registry source_registry.yaml:{p}" for p in HOSTILE_REGISTRY_PROBLEMS)
    assert calls == [] and not (tmp_path / "PWNED").exists()


def test_every_hostile_brief_has_a_case():
    cases = [name for name, _ in HOSTILE_BRIEFS] + [HOSTILE_REGISTRY]
    assert sorted(p.name for p in (TESTS / "hostile").glob("brief-*")) == sorted(cases)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_a_source_hosts_item_is_a_host_or_one_problem(item):
    hosts, problems = registry.source_hosts_setting([item], None)
    assert len(problems) + sum(len(found) for found in hosts.values()) == 1


CLAIM_FRAGMENTS = st.sampled_from([
    "[", "]", "(", ")", "<", ">", "!", "`", "\\", "&#49;", "\"", "'", " ", "\n  ", "a", "1", "[1]", "](u)", "](<u 1>",
    "<https://x/1>", "<b c='1'>", "</b>", "<!-- 1 -->", "https://x/1", "www.x/1", "[r]", "[x][r]", "![i](s/1)",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(CLAIM_FRAGMENTS, max_size=16).map("".join), st.booleans())
def test_a_claim_keeps_every_offset_and_line(content, define):
    env = {"references": {"R": {"href": "https://x/9", "title": ""}, "1": {"href": "https://x/1", "title": ""}}} if define else {}
    claim = briefs.claim_prose(content, env)
    assert len(claim) == len(content)
    assert [i for i, c in enumerate(claim) if c == "\n"] == [i for i, c in enumerate(content) if c == "\n"]
    # each character is kept or blanked, but an entity's, which becomes its character padded with blanks
    assert all(c == " " or c == content[i] or content[i] in "&;" for i, c in enumerate(claim))


def test_the_claims_of_hostile_bullets_are_read_in_linear_time():
    """Bullets of thousands of links, images, tags, reference links and URLs: a bullet's claim reuses
    the inline parse its markers needed, and one without markers is parsed once."""
    import time

    pieces = ["[a](u/1) " * 5000, "![[]()" * 10000, "<b title='1'>" * 5000, "[x][1] " * 5000, "https://x/1 " * 5000, "[" * 25000 + "](u)"]
    bullets = [f"- {piece}{marker}\n" for piece in pieces for marker in (" [1]", "")]
    text = "## Prevailing View\n" + "".join(bullets) + "\n## Counterarguments\n- c [1]\n\n## References\n[1] x\n"
    start = time.process_time()
    brief = briefs.read_brief("b.md", text, OPTIONS)
    claims = [bullet.claim for bullet in brief.bullets]
    assert_cpu_under(time.process_time() - start, 10.0)
    assert [len(c) for c in claims] == [len(b.text) for b in brief.bullets]
    assert [bool(re.search(r"[0-9]", c.replace("[1]", ""))) for c in claims[:12:2]] == [False, False, False, False, False, False]


def test_numbering_of_many_entries_is_checked_fast():
    import time

    from pytest_citations.kinds.briefs.rules import references_out_of_order

    numbers = [*range(20000, 0, -2), *range(1, 20000, 2)]  # descending evens, then ascending odds: 2, 3, 5... stay
    brief = briefs.read_brief("b.md", "## References\n" + "".join(f"[{n}] x\n" for n in numbers), OPTIONS)
    start = time.process_time()
    messages = [f.message for f in references_out_of_order.check(brief, None)]
    assert_cpu_under(time.process_time() - start, 2.0)
    assert len(messages) == 10000 and "References entry [1] comes after [20000]: sort by citation number" in messages


@pytest.mark.parametrize("path", sorted(PROJECT.joinpath("fixtures").rglob("*.md")) + sorted((TESTS / "hostile").glob("*.md")),
                         ids=lambda p: p.name)
def test_a_headings_level_is_its_number_of_hashes_or_its_underline(path):
    text = path.read_bytes().decode("utf-8", "replace")
    lines = [*text.split("\n"), ""]
    for _, line, level in headings(text):
        atx = lines[line - 1].lstrip(" ").startswith(("#" * level + " ", "#" * level + "\t"))
        assert atx or lines[line].strip(" \t")[:1] == ("=" if level == 1 else "-")


def test_heading_heavy_heads_and_reports_are_read_in_linear_time():
    import time

    start = time.process_time()
    assert briefs.KIND.sniff(("## Prevailing View\n" + "### a\n" * 20000)[:SNIFF_BYTES])
    assert not briefs.KIND.sniff(("## x\n" * 20000)[:SNIFF_BYTES])
    sections = briefs.abstain_sections("## Synthesis Status: Insufficient Evidence\n" + "## a\nb\n### c\n" * 100000)
    assert_cpu_under(time.process_time() - start, 5.0)
    assert sections == {"synthesis status: insufficient evidence": (1, False), "a": (2, True), "c": (4, False)}
