"""Claim bullets whose content is a Markdown block other than a paragraph: an HTML block, an HTML
comment before the words, a code block, a blockquote, a heading, a table, several blocks. Every
list item of a claim section that shows something is a bullet at its list marker, its claim the
words a reader reads, its markers found as in any bullet; the front ends agree on them. And why a
``[N]`` is not a marker (B306): what Markdown really made of it."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from brief_examples import _QREGISTRY, _brief, _cite, _refs, _sidecar
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main
from pytest_citations.kinds.briefs import model as briefs

OPTIONS = {"claim-sections": briefs.CLAIM_SECTIONS, "references-heading": "References"}
REFERENCE = '[1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm'


def brief_with(prevailing: str, definitions: str = "") -> str:
    """A brief whose Prevailing View holds ``prevailing`` (from line 2) and whose other sections are cited."""
    return (
        f"## Prevailing View\n{prevailing}\n\n## Counterarguments\n- Other. [1]\n\n## Minority View\n- x [1]\n\n"
        f"## What to Watch\n- y [1]\n\n## References\n{REFERENCE}\n{definitions}"
    )


def words(claim: str) -> str:
    return " ".join(claim.split())


def read(prevailing: str, definitions: str = "") -> briefs.Brief:
    return briefs.read_brief("b.md", brief_with(prevailing, definitions), OPTIONS)


def shown(brief: briefs.Brief) -> list[tuple]:
    """(line, col, claim words, markers as (number, line, col)) of each Prevailing View bullet."""
    return [(b.line, b.col, words(b.claim), [(m.number, m.line, m.col) for m in b.markers]) for b in brief.sections["prevailing"].bullets]


# -- 1. every list item that shows something is a bullet ------------------------------------------------

BLOCK_BULLETS = [
    # an HTML block: its tags are no claim, the words inside them are
    ("- <div>Markets fell 2%.</div>", [(2, 1, "Markets fell 2%.", [])]),
    ("- <p>Markets fell 2%. [1]</p>", [(2, 1, "Markets fell 2%. [1]", [(1, 2, 23)])]),
    ("- <div>\n  Markets fell 2%. [1]\n  </div>", [(2, 1, "Markets fell 2%. [1]", [(1, 3, 20)])]),
    ('- <div title="Rates [9]">Markets fell 2%.</div> [1]', [(2, 1, "Markets fell 2%. [1]", [(1, 2, 49)])]),
    ("- <script>x</script>", [(2, 1, "", [])]),  # a script's text is never shown (nor code's: tests/kinds/briefs/test_brief_recognition.py)
    # an HTML comment before the words (an HTML block of CommonMark's kind 2)
    ("- <!-- note --> Markets fell 2%.", [(2, 1, "Markets fell 2%.", [])]),
    ("- <!-- note [7] --> Markets fell 2%. [1]", [(2, 1, "Markets fell 2%. [1]", [(1, 2, 38)])]),
    ("- <!-- note -->\n  Markets fell 2%. [1]", [(2, 1, "Markets fell 2%. [1]", [(1, 3, 20)])]),
    # nested and indented items keep their own markers and positions
    ("- Outer. [1]\n  - <p>Inner 2%.</p>", [(2, 1, "Outer. [1]", [(1, 2, 10)]), (3, 3, "Inner 2%.", [])]),
    ("   - <p>Indented 2%.</p>", [(2, 4, "Indented 2%.", [])]),
    # a code block shows code, not a claim: the bullet is seen, with no claim and no marker
    ("- ```\n  Markets fell 2%. [1]\n  ```", [(2, 1, "", [])]),
    ("-     Markets fell 2%. [1]", [(2, 1, "", [])]),
    ("- ```\n  code\n  ```\n  Markets fell 2%. [1]", [(2, 1, "Markets fell 2%. [1]", [(1, 5, 20)])]),
    # a blockquote, a heading (ATX or setext) and a table: their words
    ("- > Markets fell 2%. [1]", [(2, 1, "Markets fell 2%. [1]", [(1, 2, 22)])]),
    ("- > <div>Markets fell 2%.</div>", [(2, 1, "Markets fell 2%.", [])]),
    ("- # Markets fell 2%. [1]", [(2, 1, "Markets fell 2%. [1]", [(1, 2, 22)])]),
    ("- Markets fell 2%. [1]\n  ---", [(2, 1, "Markets fell 2%. [1]", [(1, 2, 20)])]),
    ("- | Index | Change |\n  |---|---|\n  | S&P 500 | -2% [1] |", [(2, 1, "| Index | Change | |---|---| | S&P 500 | -2% [1] |", [(1, 4, 19)])]),
    # every block of the item is read, not the first only
    ("- Markets fell 2%.\n\n  Source: [1]", [(2, 1, "Markets fell 2%. Source: [1]", [(1, 4, 11)])]),
    ("- <div>\n\n  Markets fell 2%. [1]\n\n  </div>", [(2, 1, "Markets fell 2%. [1]", [(1, 4, 20)])]),
    ("- Outer 2%.\n  - Inner. [1]\n\n  Outer again. [1]", [(2, 1, "Outer 2%. Outer again. [1]", [(1, 5, 16)]), (3, 3, "Inner. [1]", [(1, 3, 12)])]),
    # an item that shows nothing states nothing: empty, a thematic break, only a comment
    ("-\n- ***\n- <!-- Markets fell 2% -->", []),
]


@pytest.mark.parametrize(("prevailing", "expected"), BLOCK_BULLETS)
def test_every_list_item_that_shows_something_is_a_bullet(prevailing, expected):
    brief = read(prevailing)
    assert shown(brief) == expected
    assert len(brief.sections) == 4  # no block inside an item ends the section or starts another
    for bullet in brief.bullets:
        assert len(bullet.claim) == len(bullet.text)


def test_a_heading_inside_a_list_item_does_not_end_the_section():
    brief = read("- ## Markets fell 2%. [1]\n- # References\n- Yields rose.")
    assert [words(b.claim) for b in brief.sections["prevailing"].bullets] == ["Markets fell 2%. [1]", "References", "Yields rose."]
    assert [e.number for e in brief.entries] == [1]


@pytest.mark.parametrize("bullet", [
    "<!-- reviewed 2026-02-11 --> [Insufficient evidence to assess this claim]",
    "<p>[Insufficient evidence to assess this claim]</p>",
    "<!-- reviewed -->\n  [Insufficient evidence to assess this claim]",
])
def test_an_abstain_marker_in_an_html_block_is_read(bullet):
    assert read(f"- {bullet}").bullets[0].abstain is True


def test_a_code_block_is_never_an_abstain_marker():
    bullets = read("- ```\n  [Insufficient evidence to assess this claim]\n  ```").sections["prevailing"].bullets
    assert [(b.line, b.abstain, b.markers) for b in bullets] == [(2, False, [])]


@pytest.mark.parametrize("bullet", [
    "- Markets fell 2% yesterday. [1]",
    "- <p>Markets fell 2% yesterday. [1]</p>",
    "- <!-- drafted --> Markets fell 2% yesterday. [1]",
    "- > Markets fell 2% yesterday. [1]",
    "- Markets fell sharply. [1]\n\n  They fell 2% yesterday.",
])
def test_the_quality_rules_read_a_block_bullets_claim(tmp_path, bullet):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "brief.md").write_text(_brief(bullet, _refs("market_blog")))
    (root / "brief.citations.json").write_text(_sidecar([_cite(1, "market_blog")]))
    (root / "source_registry.yaml").write_text(_QREGISTRY)
    found = [(d.line, d.code) for d in Engine.load(root).check([root]).diagnostics if d.code in ("B301", "B320")]
    assert found == [(2, "B320")]  # a single Tier 3 source for a percentage


def test_a_number_in_a_code_block_is_no_claim(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "brief.md").write_text(_brief("- Markets fell sharply. [1]\n\n  ```\n  down 2%\n  ```", _refs("market_blog")))
    (root / "brief.citations.json").write_text(_sidecar([_cite(1, "market_blog")]))
    (root / "source_registry.yaml").write_text(_QREGISTRY)
    assert [d.code for d in Engine.load(root).check([root]).diagnostics if d.code in ("B301", "B320")] == []


# -- 2. why a [N] is no marker (B306) --------------------------------------------------------------------

ONE = "\n[1]: https://x.example/one\n[zz]: https://x.example/z\n"


@pytest.mark.parametrize(("bullet", "definitions", "why"), [
    ("Autolink <https://x.example/[1]> [2]", ONE, "part of an autolink (a URL in angle brackets)"),
    ("Autolink <https://x.example/[1]> [2]", "", "part of an autolink (a URL in angle brackets)"),
    ('Tag <b title="[1]">b</b> [2]', ONE, "part of an HTML tag"),
    ("Image ![a [1]](u) [2]", ONE, "part of an image"),
    ("Link [see [1] here](https://x.example) [2]", "", "part of a link's text"),
    ("Link [see](https://x.example/[1]) [2]", ONE, "part of a link's destination or title"),
    ("Shortcut [1] and [2]", ONE, "the link reference definition [1]: on line 16"),
    ("Collapsed [1][] and [2]", ONE, "the link reference definition [1]: on line 16"),
    ("Full [text][1] and [2]", ONE, "the link reference definition [1]: on line 16"),
    ("Text of [1][zz] and [2]", ONE, "part of the text of a link to the link reference definition [zz]: on line 17"),
])
def test_a_swallowed_marker_says_what_swallowed_it(bullet, definitions, why):
    brief = read(f"- {bullet}", definitions)
    assert [(m.number, reason) for m, reason in brief.swallowed if m.line == 2] == [(1, why)]
    assert [m.number for m in brief.bullets[0].markers] == [2]


def test_an_autolink_marker_is_not_blamed_on_a_definition(tmp_path):
    (tmp_path / "brief.md").write_text(brief_with("- Autolinks <https://x.example/[2026]> hold no marker. [1]", "\n[2026]: https://x.example/year\n"))
    found = [(d.line, d.col, d.message) for d in Engine.load(tmp_path).check([tmp_path]).diagnostics if d.code == "B306"]
    assert found == [(2, 32, "[2026] is read as part of an autolink (a URL in angle brackets), not as a citation marker")]


# -- 3. the front ends see the bullets ----------------------------------------------------------------------

BRIEF_REPO = PROJECT / "fixtures" / "brief-repo"
UNCITED = "claim bullet has no citation marker [N]"


def test_uncited_block_bullets_are_reported_by_check(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(BRIEF_REPO, root)
    found = [(d.line, d.col, d.code, d.message) for d in Engine.load(root).check([root / "briefs" / "blocks.md"]).diagnostics]
    assert found == [(4, 1, "B301", UNCITED), (5, 1, "B301", UNCITED), (9, 1, "B301", UNCITED)]


def test_validate_counts_and_fixes_block_bullets(tmp_path, capsys):
    root = tmp_path / "repo"
    shutil.copytree(BRIEF_REPO, root)
    brief = root / "briefs" / "blocks.md"
    status = main(["brief", "validate", str(brief)])
    report = json.loads(capsys.readouterr().out)
    assert status == 1
    assert [(b["section"], b["line"], b["status"]) for b in report["bullets"]] == [
        ("prevailing", 2, "cited"), ("prevailing", 3, "cited"), ("prevailing", 4, "removed"), ("prevailing", 5, "removed"),
        ("counter", 8, "cited"), ("counter", 9, "removed"), ("minority", 14, "abstain"), ("watch", 17, "cited"),
    ]
    assert (report["total_bullets"], report["removed_bullets"], report["validation_passed"]) == (8, 3, False)
    status = main(["brief", "validate", str(brief), "--fix"])
    capsys.readouterr()
    lines = brief.read_text().splitlines()
    abstain = "[Insufficient evidence to support this claim]"
    assert lines[3:5] == [f"- {abstain}", f"- {abstain}"]
    assert lines[8:10] == [f"- {abstain}", ""]  # the code block went with its bullet
    status = main(["brief", "validate", str(brief)])
    again = json.loads(capsys.readouterr().out)
    assert (status, again["validation_passed"], again["removed_bullets"]) == (0, True, 0)


# -- 4. never a crash, never a bullet lost -----------------------------------------------------------------

def shows_something(token) -> bool:
    return token.type != "html_block" or bool(re.sub(r"<!--.*?(?:-->|\Z)", "", token.content, flags=re.S).strip())


def items_that_show_something(text: str) -> list[int]:
    """The 1-based lines of the list items under the first heading of ``text``, in markdown-it's
    parse, that hold a paragraph, heading, HTML block (other than comments only) or code block of
    their own: up to the next heading outside a list item (generated text may make one)."""
    found: set[int] = set()
    open_items: list[int] = []
    for token in briefs._markdown().parse(text, {}):
        if token.type == "heading_open" and not open_items and token.map[0] > 0:
            break
        if token.type == "list_item_open":
            open_items.append(token.map[0] + 1)
        elif token.type == "list_item_close":
            open_items.pop()
        elif open_items and token.type in ("inline", "fence", "code_block", "html_block") and shows_something(token):
            found.add(open_items[-1])
    return sorted(found)


ITEM_STARTS = st.sampled_from([
    "<div>", "</div>", "<p>", "<!-- c -->", "<!--", "-->", "```", "~~~", "    ", "> ", "# ", "| a | b |", "***", "<br/>",
    "<https://x.example/[1]>", "[1]", "[2]", "2%", "words", "\\[1]", "`[1]`", "<b title='[1]'>", "",
])
ITEM_LINES = st.lists(st.lists(ITEM_STARTS, max_size=4).map(" ".join), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.lists(ITEM_LINES, min_size=1, max_size=5), st.booleans())
def test_generated_block_bullets_are_read_whole(items, define):
    prevailing = "\n".join("- " + "\n  ".join(lines) for lines in items)
    text = brief_with(prevailing, "\n[1]: https://x.example/one\n" if define else "")
    brief = briefs.read_brief("b.md", text, OPTIONS)
    lines = text.split("\n")
    assert [b.line for b in brief.sections["prevailing"].bullets] == items_that_show_something(text)
    for bullet in brief.bullets:
        assert len(bullet.claim) == len(bullet.text)
        assert re.match(r"[-*+]|[0-9]", lines[bullet.line - 1][bullet.col - 1 :])  # at its list marker
        for marker in bullet.markers:
            assert bullet.start <= marker.start < marker.end <= bullet.end
            assert text[marker.start : marker.end] == f"[{marker.number}]"
    for marker, _ in brief.swallowed:
        assert text[marker.start : marker.end] == f"[{marker.number}]"
