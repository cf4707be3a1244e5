"""More shortcuts of brief checking, each against the plain way of computing the same thing: the
heading scan (a newline-led pattern) against the multi-line ``^`` pattern, on the fixtures, the
hostile corpus, real Markdown files and generated texts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PROJECT, TESTS
from pytest_citations.kinds import briefs

PLAIN_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(?P<text>.+?)[ \t#]*$", re.M)


def plain_headings(text: str) -> list[tuple[str, int]]:
    """(normalized text, 1-based line) of every ATX heading, by the multi-line pattern."""
    return [(briefs._norm(m.group("text")), text.count("\n", 0, m.start()) + 1) for m in PLAIN_HEADING.finditer(text)]


def assert_headings_read_the_same(text: str) -> None:
    expected = plain_headings(text)
    assert briefs.headings(text) == expected
    assert briefs.heading_titles(text) == {title for title, _ in expected}


def markdown_files(realdata_root: Path | None = None) -> list[Path]:
    found = sorted(PROJECT.joinpath("fixtures").rglob("*.md")) + sorted((TESTS / "hostile").glob("*.md"))
    for folder in sorted(Path("/tmp/pytest-citations-bench").glob("briefs-scale0.01-*"))[:1]:
        found += sorted(folder.rglob("*.md"))[:100]
    return found


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.name)
def test_headings_of_fixture_hostile_and_bench_files_read_the_same(path):
    assert_headings_read_the_same(path.read_bytes().decode("utf-8", "replace"))


def test_headings_of_real_markdown_files_read_the_same(realdata):
    paths = sorted(realdata.rglob("*.md"))[:400]
    if not paths:
        pytest.skip(f"no Markdown file under {realdata}")
    for path in paths:
        assert_headings_read_the_same(path.read_bytes().decode("utf-8", "replace"))


HEADING_PIECES = [
    "#",
    "##",
    "#######",
    " ",
    "   ",
    "    ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "a",
    "Prevailing View",
    "# ",
    " #",
    "\x0b",
    "\u2028",
]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(HEADING_PIECES), max_size=16).map("".join))
def test_headings_of_generated_texts_read_the_same(text):
    assert_headings_read_the_same(text)


@pytest.mark.parametrize(
    "text", ["# a", "\n# a", "# a\n", "a\n   # b #\n#\tc\n", "#a\n# \n#  #\n", "x # a\n## b ##  \n", "    # code\n"]
)
def test_headings_of_tricky_texts_read_the_same(text):
    assert_headings_read_the_same(text)
