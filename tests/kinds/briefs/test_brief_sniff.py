"""The briefs kind's sniff rules out most heads with a cheap test first: of a head shorter than the
sniff window (a whole file), it claims exactly the heads :func:`briefs.looks_like_brief` claims, on
the fixtures, the hostile corpus, real repositories' Markdown, heads made to trip casefolding
(``ſ``, the Kelvin sign, ligatures, ``ß``, dotted ``İ``) and generated ones. (A head that fills the
window may open a longer brief: tests/kinds/briefs/test_brief_verdicts.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PROJECT, TESTS
from pytest_citations.discovery import SNIFF_BYTES
from pytest_citations.kinds.briefs import model as briefs

REALDATA = Path("/work/shared/realdata")


def sniffed(head: str) -> bool:
    return briefs.KIND.sniff(head)


def reference(head: str) -> bool:
    return briefs.looks_like_brief(head, briefs.CLAIM_SECTIONS, "References")


def head_of(path: Path) -> str:
    with path.open("rb") as file:
        return file.read(SNIFF_BYTES).decode("utf-8", "replace")


def test_fixture_and_hostile_heads_are_sniffed_as_before():
    paths = sorted(PROJECT.joinpath("fixtures").rglob("*.md")) + sorted((TESTS / "hostile").rglob("*"))
    heads = [head_of(path) for path in paths if path.is_file()]
    assert all(len(head.encode()) < SNIFF_BYTES - 3 for head in heads)
    assert [sniffed(head) for head in heads] == [reference(head) for head in heads]
    assert any(sniffed(head) for head in heads)


def test_real_markdown_heads_are_sniffed_as_before():
    if not REALDATA.is_dir():
        pytest.skip(f"no real data at {REALDATA}")
    paths = sorted(REALDATA.rglob("*.md"))[:5000]
    if not paths:
        pytest.skip(f"no Markdown under {REALDATA}")
    for path in paths:
        head = head_of(path)
        assert sniffed(head) == reference(head), path


CLAIMS = "## Prevailing View\n- a [1]\n\n## Counterarguments\n- b [2]\n\n"
TRICKY_TITLES = [
    "References", "REFERENCES", "ReFeReNcEs", "Referenceſ", "  references  ", "References #", "Reference", "Refs",
    "Synthesis Status: Insufficient Evidence", "ſynthesis ﬆatus: Inſuﬃcient EVIDENCE", "SYNTHESIS STATUS:  INSUFFICIENT\tEVIDENCE",
    "Synthesis Status: Insuﬀicient Evidence", "Synthesİs Status: Insufficient Evidence", "Synthesis Status: Insufficient Evİdence",
    "Synthesis Status: Insufficient Evidenceſ", "Rеferences",  # a Cyrillic е
    "Re\u0301ferences", "REFERENCESß", "referenceſ", "Synthesis Status: Insufficient Evidence \u212a",
    "**References**", "📚 References", "References:", "5. References", "Refer**ences**", "**Synthesis Status: Insufficient Evidence**",
]


@pytest.mark.parametrize("title", TRICKY_TITLES)
@pytest.mark.parametrize("claims", ["", CLAIMS, CLAIMS.replace("Counterarguments", "ƇOUNTERARGUMENTS")])
def test_casefolded_titles_are_sniffed_as_before(title, claims):
    head = f"{claims}## {title}\n[1] x\n"
    assert sniffed(head) == reference(head)


def test_the_cheap_test_claims_the_tricky_briefs():
    assert sniffed(CLAIMS + "## Referenceſ\n")
    assert sniffed("## ſynthesis ﬆatus: Inſuﬃcient EVIDENCE\n")
    # cited claim sections without a References heading are a brief; with their entries under
    # another heading ("Reference"), a brief whose References heading is renamed: not by content
    assert sniffed(CLAIMS + "## Reference\n") and not sniffed(CLAIMS + "## Reference\n[1] x\n")
    assert not sniffed("# Notes\n\nplain text\n")


PIECES = st.sampled_from([
    "## ", "# ", "   ### ", "#", "\n", " ", "\t", "References", "REFERENCES", "Referenceſ", "Prevailing View",
    "Counterarguments", "Minority View", "What to Watch", "WHAT TO WATCH", "Synthesis Status: Insufficient Evidence",
    "ſynthesis ﬆatus: Inſuﬃcient Evidence", "evidence", "referenc", "ß", "\u212a", "İ", "ﬁ", "x", ":", "-", "```\n",
    "**", "_", "1. ", "📈 ", "===", "---", "[1] ", "- a [1]", "  b [2]", "[Insufficient evidence", "Counterargumentſ",
    "prevailing", "watch", "cient",
])


@settings(max_examples=1500, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_generated_heads_are_sniffed_as_before(head):
    assert sniffed(head) == reference(head)
