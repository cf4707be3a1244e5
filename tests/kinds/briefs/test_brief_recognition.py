"""Which files are briefs and how their headings are read: claim headings as generators format
them (emphasis, numbering, a trailing colon, an emoji, setext underlines) are the claim sections; a
file the settings claim as a brief (``include``) is one whatever it holds, with one verdict from
``citations check``, ``pytest --citations`` and ``citations brief validate``; ordinary writing that
names the claim headings but holds nothing a brief holds is not claimed; and the words a reader
sees as code (``<code>``, ``<pre>``) or never sees (``<script>``, ``<style>``) are no claim."""

from __future__ import annotations

import json

import pytest

from frontends import from_cli, from_engine, from_pytest
from pytest_citations.discovery import SNIFF_BYTES
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main
from pytest_citations.kinds.briefs import model as briefs

OPTIONS = {"claim-sections": briefs.CLAIM_SECTIONS, "references-heading": "References"}
REFERENCE = '[1] Federal Reserve. "FOMC Statement". Published Feb 10, 2026. https://www.federalreserve.gov/a.htm\n'
TITLES = ["Prevailing View", "Counterarguments", "Minority View", "What to Watch", "References"]


def atx(template: str) -> str:
    """A brief of four uncited claim bullets whose headings are ``template`` of each title."""
    parts = [f"## {template.format(title)}\n- Uncited claim about {title.lower()}.\n\n" for title in TITLES[:4]]
    return "".join(parts) + f"## {template.format('References')}\n{REFERENCE}"


def setext(underline: str) -> str:
    """The same brief with setext headings (CommonMark's other way of writing a heading)."""
    parts = [f"{title}\n{underline * len(title)}\n- Uncited claim about {title.lower()}.\n\n" for title in TITLES[:4]]
    return "".join(parts) + f"References\n{underline * 10}\n{REFERENCE}"


FORMATTED = {
    "bold": atx("**{}**"),
    "underscores": atx("__{}__"),
    "italic": atx("*{}*"),
    "numbered": atx("{}").replace("## Prevailing", "## 1. Prevailing").replace("## Counter", "## 2. Counter")
    .replace("## Minority", "## 3) Minority").replace("## What", "## 4. What"),
    "trailing colon": atx("{}:"),
    "emoji": atx("{}").replace("## Prevailing", "## 📈 Prevailing").replace("## Counter", "## ⚖️ Counter")
    .replace("## Minority", "## 🔍 Minority").replace("## What", "## 👀 What").replace("## References", "## 📚 References"),
    "numbered bold with a colon": atx("**1. {}:**"),
    "setext =": setext("="),
    "setext -": setext("-"),
}


def repo(tmp_path, files: dict[str, str], settings: str = "") -> object:
    root = tmp_path / "repo"
    for rel, text in {"pyproject.toml": "[tool.citations]\n" + settings, **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def found(root) -> list[tuple]:
    return [(d.path, d.line, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics]


# -- 1. formatted claim headings --------------------------------------------------------------------------


@pytest.mark.parametrize("name", FORMATTED)
def test_formatted_claim_headings_make_a_brief(tmp_path, name):
    text = FORMATTED[name]
    assert briefs.KIND.sniff(text)
    uncited = [index + 1 for index, line in enumerate(text.split("\n")) if line.startswith("- Uncited")]
    assert [(line, code) for _, line, code, _ in found(repo(tmp_path, {"briefs/b.md": text}))
            if code in ("B301", "B317")] == [(line, "B301") for line in uncited]


@pytest.mark.parametrize("plain", [True, False], ids=["plain reader", "markdown-it"])
@pytest.mark.parametrize("name", FORMATTED)
def test_the_reader_finds_each_formatted_section(name, plain, monkeypatch):
    if not plain:
        monkeypatch.setattr(briefs, "_plain_blocks", lambda text: None)
    brief = briefs.read_brief("b.md", FORMATTED[name], OPTIONS)
    assert list(brief.sections) == list(briefs.SECTION_KEYS) and brief.missing_sections == []
    assert [len(section.bullets) for section in brief.sections.values()] == [1, 1, 1, 1]
    assert [entry.number for entry in brief.entries] == [1]


@pytest.mark.parametrize(("heading", "key"), [
    ("**Prevailing View**", "prevailing view"),
    ("1. Prevailing View", "prevailing view"),
    ("12) Prevailing View", "prevailing view"),
    ("Prevailing View:", "prevailing view"),
    ("📈 Prevailing View", "prevailing view"),
    ("1️⃣ Prevailing View", "prevailing view"),
    ("**Prevailing** _View_", "prevailing view"),
    ("2026 Outlook", "2026 outlook"),  # a year is no numbering
    ("1.5 Prevailing View", "1.5 prevailing view"),
    ("What_to_Watch", "what_to_watch"),  # underscores inside a word are no emphasis
    ("Q&A", "q&a"),
])
def test_a_heading_is_compared_without_its_formatting(heading, key):
    assert briefs.heading_key(heading) == key


def test_an_underline_after_a_list_item_or_a_blank_line_makes_no_heading():
    text = "- Prevailing View\n---\n\nCounterarguments\n\n---\n"
    assert briefs.heading_titles(text) == set()


# -- 1. a file the settings claim as a brief ---------------------------------------------------------------

DAILY = "# Daily Brief\n\n## Summary\n- The Fed held rates.\n- Markets fell 3%.\n"
DECLARED = '[tool.citations.kinds.briefs]\ninclude = ["briefs/*.md"]\n'
MISSING = sorted(("briefs/2026-02-11.md", 1, "B317", f"claim section '{title}' is missing") for title in TITLES[:4])


def test_a_declared_brief_without_claim_sections_is_reported(tmp_path):
    root = repo(tmp_path, {"briefs/2026-02-11.md": DAILY}, DECLARED)
    assert found(root) == MISSING


def test_a_declared_readme_is_a_brief_only_by_its_content(tmp_path):
    root = repo(tmp_path, {"briefs/README.md": "# Briefs\n\nThe pipeline's daily outputs.\n"}, DECLARED)
    assert found(root) == []


def test_check_pytest_and_validate_give_one_verdict_on_a_declared_brief(pytester, capsys):
    root = pytester.path / "repo"
    (root / "briefs").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.citations]\n" + DECLARED)
    (root / "briefs" / "2026-02-11.md").write_text(DAILY)
    expected = {(f"repo/{rel}", line, 1, code, message) for rel, line, code, message in MISSING}
    assert from_engine(pytester.path, "repo") == expected
    assert from_cli(pytester.path, "repo", capsys) == expected
    from_pytest_found, result = from_pytest(pytester, "repo")
    assert from_pytest_found == expected
    result.assert_outcomes(failed=1)
    written = pytester.path / "report.json"
    status = main(["brief", "validate", str(root / "briefs" / "2026-02-11.md"), "--report", str(written)])
    report = json.loads(written.read_text())
    assert status == 1
    assert [(d["line"], d["code"], d["message"]) for d in report["diagnostics"]] == [(1, c, m) for _, _, c, m in MISSING]
    assert (report["validation_passed"], report["decision"], report["empty_sections"]) == (False, "retry", TITLES[:4])


def test_validate_says_how_to_claim_a_file_that_is_no_brief(tmp_path, capsys):
    root = repo(tmp_path, {"notes/today.md": DAILY})
    assert main(["brief", "validate", str(root / "notes" / "today.md")]) == 2
    error = capsys.readouterr().err
    assert "notes/today.md is not a brief" in error and "include" in error


# -- 2. ordinary writing with the claim headings --------------------------------------------------------------

MEMO = """\
# Research memo: standing in data-breach cases

## Prevailing view

Most circuits hold that an increased risk of identity theft is enough [1].

## Minority view

The Fourth Circuit disagrees [2]:

1. Beck v. McDonald, 848 F.3d 262 (4th Cir. 2017).
2. Speculative harm is not enough.

## What to watch

- *TransUnion v. Ramirez* fallout.

## References

1. Remijas v. Neiman Marcus Group, LLC, 794 F.3d 688 (7th Cir. 2015).
2. Beck v. McDonald, 848 F.3d 262 (4th Cir. 2017).
"""
BLOG = """\
---
title: Where the debate stands
---

## Prevailing View

Most teams ship weekly. The data backs this up.

## Counterarguments

- Some argue smaller releases hide regressions.
- Others point at review fatigue.

## References

- [Accelerate](https://itrevolution.com/accelerate-book/)
- The DORA reports, 2014-2023.
"""


@pytest.mark.parametrize("text", [MEMO, BLOG], ids=["legal memo", "blog post"])
def test_everyday_writing_with_the_claim_headings_is_no_brief(tmp_path, text):
    assert not briefs.KIND.sniff(text)
    assert found(repo(tmp_path, {"research/memo.md": text})) == []


@pytest.mark.parametrize("evidence", [
    "- A claim. [1]",  # a marker in a claim bullet
    "- A claim\n  over two lines. [1]",  # on an indented line of the bullet
    "- [Insufficient evidence to assess this claim]",  # an abstain marker
])
def test_a_brief_holds_a_marker_an_entry_or_an_abstain_marker(evidence):
    text = f"## Prevailing View\n{evidence}\n\n## Counterarguments\n- Other.\n\n## References\n"
    assert briefs.KIND.sniff(text)
    assert briefs.KIND.sniff("## Prevailing View\n- a\n\n## Counterarguments\n- b\n\n## References\n" + REFERENCE)
    assert not briefs.KIND.sniff("## Prevailing View\n- a\n\n## Counterarguments\n- b\n\n## References\n- c\n")


def test_a_long_brief_is_still_claimed_from_its_head(tmp_path):
    words = "about the outlook, discussed at length by several analysts and weighed against the data " * 5
    claims = "".join(f"- **Claim {n}** {words}\n" for n in range(190))
    text = f"## **Prevailing View**\n{claims}\n## **Counterarguments**\n- Other. [1]\n\n## **References**\n{REFERENCE}"
    assert text.index("[1]") > SNIFF_BYTES
    root = repo(tmp_path, {"briefs/long.md": text})
    codes = [code for _, _, code, _ in found(root)]
    assert codes.count("B301") == 190 and codes.count("B317") == 2


def test_a_long_file_with_the_headings_and_nothing_a_brief_holds_gets_no_finding(tmp_path):
    paragraphs = "".join(f"Paragraph {n} of an ordinary essay, long enough to fill the window.\n\n" for n in range(1200))
    text = f"## Prevailing View\n{paragraphs}## Counterarguments\n- A point.\n\n## References\n- A book.\n"
    assert found(repo(tmp_path, {"essays/long.md": text})) == []


# -- 3. a brief that lost its References section ----------------------------------------------------------------

UNREFERENCED = (
    "## Prevailing View\n- GDP grew 3.1% in the fourth quarter. [1]\n\n## Counterarguments\n"
    "- [Insufficient evidence to assess this claim]\n\n## What to Watch\n- CPI on Feb 12. [2]\n"
)
NO_REFERENCES = "section 'References' is missing: every [N] marker resolves to an entry there"


def test_claim_sections_citing_markers_without_references_are_one_verdict(pytester, capsys):
    """Claim sections whose bullets cite [N] are a brief: the missing References section is
    reported (B317) with the markers it would resolve (B302), by check, pytest and validate."""
    root = pytester.path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "brief.md").write_text(UNREFERENCED)
    expected = {
        ("repo/brief.md", 1, 1, "B317", "claim section 'Minority View' is missing"),
        ("repo/brief.md", 1, 1, "B317", NO_REFERENCES),
        ("repo/brief.md", 2, 40, "B302", "marker [1] has no entry in the References section"),
        ("repo/brief.md", 2, 40, "B307", "no stored citation objects: no sidecar brief.citations.json and no synthesis "
                                         "for this brief in an evidence store"),
        ("repo/brief.md", 8, 18, "B302", "marker [2] has no entry in the References section"),
    }
    assert from_engine(pytester.path, "repo") == expected
    assert from_cli(pytester.path, "repo", capsys) == expected
    from_pytest_found, result = from_pytest(pytester, "repo")
    assert from_pytest_found == expected
    result.assert_outcomes(failed=1)
    status = main(["brief", "validate", str(root / "brief.md"), "--report", str(pytester.path / "r.json")])
    report = json.loads((pytester.path / "r.json").read_text())
    assert (status, report["validation_passed"]) == (1, False)
    assert {("repo/brief.md", d["line"], d["col"], d["code"], d["message"]) for d in report["diagnostics"]} == expected


@pytest.mark.parametrize("text", [
    UNREFERENCED,
    UNREFERENCED.replace("[1]\n", "[1]\n  Analysts agreed.\n"),
    UNREFERENCED + '\n[1] BEA. "GDP". Feb 10, 2026. https://www.bea.gov/a\n',  # entries left in the last claim section
    "# Daily Brief\n\n" + UNREFERENCED.replace("## ", "### "),
    "## Prevailing View\n- [Insufficient evidence to assess this claim]\n\n## Counterarguments\n"
    "- [Conflicting reports; unable to confirm]\n",  # a brief that abstains throughout
])
def test_claim_sections_with_markers_or_abstain_markers_are_a_brief_without_references(text):
    assert briefs.KIND.sniff(text)
    assert briefs.looks_like_brief(text, briefs.CLAIM_SECTIONS, "References")


ADR = """\
# ADR 7: Use SQLite for the evidence store

## Context

- Postgres needs a server [1].
- SQLite is embedded [2].

## Decision

- SQLite.

## References

[1] PostgreSQL documentation. https://www.postgresql.org/docs/
[2] SQLite documentation. https://sqlite.org/docs.html
"""


@pytest.mark.parametrize("text", [
    ADR,  # References and [N] entries, but no claim section
    MEMO.replace("## References", "## Table of authorities"),  # markers in paragraphs, not in bullets
    # a research note that lists its sources under another heading: a brief with a renamed
    # References heading is claimed by path (include), as any other renamed heading
    "## Prevailing View\n- Rates stay high. [1]\n\n## Counterarguments\n- Cuts come soon. [2]\n\n"
    "## Sources\n[1] A paper. https://a.example/\n[2] Another. https://b.example/\n",
    "## Prevailing View\nRates stay high.\n\n## Counterarguments\nCuts come soon.\n\n## Notes\n- See the appendix. [1]\n",
])
def test_ordinary_writing_without_a_references_heading_is_no_brief(tmp_path, text):
    assert not briefs.KIND.sniff(text)
    assert found(repo(tmp_path, {"notes/note.md": text})) == []


def test_validate_refuses_what_check_passes_over_and_says_why(tmp_path, capsys):
    text = "## Prevailing View\nRates stay high.\n\n## Counterarguments\nCuts come soon.\n"
    root = repo(tmp_path, {"notes/note.md": text})
    assert found(root) == []
    assert main(["brief", "validate", str(root / "notes" / "note.md")]) == 2
    error = capsys.readouterr().err
    assert "it lacks a References heading or a [N] marker or abstain marker in a claim section's bullet" in error


# -- 7. code, preformatted text, scripts and styles in a claim bullet --------------------------------------------


@pytest.mark.parametrize("html", [
    "<code>rate_2026 = 5.25</code>",
    "<pre>2026: 5.25%</pre>",
    "<script>track(2026)</script>",
    "<style>.x { width: 2026px }</style>",
    "<CODE class='x'>2026</CODE>",
])
def test_code_and_hidden_html_hold_no_claim_words(html):
    content = f"Analysts discussed the table {html} at length. [1]"
    claim = briefs.claim_prose(content, {})
    assert len(claim) == len(content)
    assert "2026" not in claim and "at length" in claim and "Analysts" in claim


def test_a_marker_inside_code_is_no_citation():
    text = "## Prevailing View\n- Rates held. <code>[1]</code>\n- Rates held. <pre>[1]</pre> [2]\n\n## References\n"
    brief = briefs.read_brief("b.md", text, OPTIONS)
    assert [[m.number for m in b.markers] for b in brief.bullets] == [[], [2]]
    assert brief.swallowed == []


def test_math_is_still_read_as_the_claim():
    content = "Growth of <math>2.9%</math> in the quarter. [1]"
    assert "2.9%" in briefs.claim_prose(content, {})


def test_setext_headings_of_a_crlf_file_are_headings():
    text = setext("=").replace("\n", "\r\n")
    assert briefs.KIND.sniff(text)
    assert list(briefs.read_brief("b.md", text, OPTIONS).sections) == list(briefs.SECTION_KEYS)


def test_an_abstaining_report_with_formatted_headings_is_complete(tmp_path):
    report = (
        "# Daily Brief - 2026-02-11\n\n## **Synthesis Status: Insufficient Evidence**\n\nNo brief today.\n\n"
        "## 1. Available Evidence Summary\n\n- The Fed held rates. [1]\n\n"
        "Why Insufficient:\n-----------------\n\n- No Tier 1 sources published policy statements today\n\n"
        f"## 📚 Sources:\n\n{REFERENCE}"
    )
    root = repo(tmp_path, {"briefs/abstain.md": report}, '[tool.citations.kinds.briefs]\nreferences-heading = "Sources:"\n')
    assert [code for _, _, code, _ in found(root) if code in ("B317", "B335")] == []
    assert briefs.abstain_sections(report)["why insufficient"] == (11, True)


def test_a_setext_underline_is_no_text_of_its_section():
    assert briefs.abstain_sections("Why Insufficient\n----------------\n\n## References\n[1] x\n") == {
        "why insufficient": (1, False), "references": (4, True),
    }
