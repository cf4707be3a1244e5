"""Where a Markdown file's headings are and how their text compares: every ATX and setext heading
found by a scan of the text (fences not considered), its text compared by :func:`heading_key`
(without the emphasis, numbering, symbols and punctuation around its words), and the sections of
an abstaining report (:func:`abstain_sections`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

# An ATX heading line, from the newline before it to its end, and a line that may underline a
# setext heading: :func:`_heading_matches` searches the text with a newline put in front. A pattern
# that starts with a plain character is found by a fast scan for it, where ``^`` in multi-line mode
# is tried at every position (three times slower); both fail at a line's first character mostly.
_ATX_HEADING = re.compile(r"\n {0,3}(?P<hashes>#{1,6})[ \t]+(?P<text>[^\n]+?)[ \t#]*(?=\n|\Z)")
_UNDERLINE = re.compile(r"\n {0,3}(?P<underline>=+|-+)[ \t]*\r?(?=\n|\Z)")
# The line of text a setext heading underlines: not blank nor indented code, no list item or quote.
_SETEXT_TEXT = re.compile(r" {0,3}(?![-+*][ \t]|[0-9]{1,9}[.)][ \t]|>)[^ \t\n][^\n]*")
# What a heading's text may carry around its words, as generators write it: inline emphasis
# (``**Prevailing View**``; ``_`` inside a word is no emphasis), and in front numbering (``1.``,
# ``2)``, a keycap ``1️⃣``), emoji and other symbols, and behind them punctuation (``Prevailing View:``).
_EMPHASIS = re.compile(r"(?<![\w*_])[*_]+|[*_]+(?![\w*_])")  # a whole run at a word's edge
_HEADING_LEAD = re.compile(r"(?:[\W_]|[0-9]{1,9}[.)](?!\w)|[0-9]\ufe0f?\u20e3)+")


def _norm(title: str) -> str:
    return " ".join(title.casefold().split())


def heading_key(text: str) -> str:
    """A heading's text (or a heading name of the settings) as headings are compared: without the
    emphasis, numbering, symbols and punctuation around its words, blanks collapsed, casefolded.
    ``**1. Prevailing View:**`` and ``📈 Prevailing View`` are the ``Prevailing View`` section."""
    if text[:1].isalpha() and text[-1:].isalnum() and "*" not in text and "_" not in text:
        return _norm(text)  # most headings: nothing around the words
    if "*" in text or "_" in text:
        text = _EMPHASIS.sub("", text)
    lead = _HEADING_LEAD.match(text)
    end = len(text)
    while end and not text[end - 1].isalnum():  # what a regex anchored at the end would try at every blank
        end -= 1
    return _norm(text[lead.end() if lead else 0 : end])


class _Heading(NamedTuple):
    start: int  # the offset of its (first) line's start; the newlines before it count its 0-based line
    text: str  # as written
    level: int
    lines: int  # 1, or 2 for a setext heading and its underline


def _heading_matches(text: str) -> list[_Heading]:
    """The headings of ``text`` (fences not considered), in order: each ATX line, and each setext
    heading (:func:`_setext_headings`)."""
    led = "\n" + text  # a match at ``i`` of ``led`` starts the line at ``i`` of ``text``
    found = [_Heading(m.start(), m.group("text"), len(m.group("hashes")), 1) for m in _ATX_HEADING.finditer(led)]
    setext = _setext_headings(text, led) if "=" in text or "-" in text else []
    return sorted(found + setext) if setext else found


def _setext_headings(text: str, led: str) -> list[_Heading]:
    """Each line of ``text`` (:data:`_SETEXT_TEXT`: not an ATX line, nor itself a heading's
    underline) whose next line is an underline of ``=`` (level 1) or ``-`` (level 2), as CommonMark
    reads a setext heading; ``led`` is ``text`` with a newline in front."""
    found = []
    underlining: set[int] = set()  # the lines that underline a heading
    for underline in _UNDERLINE.finditer(led):
        line = underline.start()
        above = text.rfind("\n", 0, line - 1) + 1 if line else -1
        if above < 0 or above in underlining or _ATX_HEADING.match(led, above) or not _SETEXT_TEXT.fullmatch(text, above, line - 1):
            continue
        found.append(_Heading(above, text[above : line - 1], 1 if underline.group("underline")[0] == "=" else 2, 2))
        underlining.add(line)
    return found


def heading_titles(text: str) -> set[str]:
    """The compared text (:func:`heading_key`) of every ATX and setext heading (fences not considered)."""
    led = "\n" + text
    titles = {heading_key(match.group("text")) for match in _ATX_HEADING.finditer(led)}
    if "=" in text or "-" in text:
        titles.update(heading_key(heading.text) for heading in _setext_headings(text, led))
    return titles


def _headings(text: str) -> Iterator[tuple[str, int, int, int]]:
    """(compared text, 1-based line, level, lines it spans: 1, or 2 for a setext heading) of every
    heading (fences not considered), lines counted on from the previous heading's (a file may
    hold a heading on every line)."""
    line, counted = 1, 0
    for heading in _heading_matches(text):
        line += text.count("\n", counted, heading.start)
        counted = heading.start
        yield heading_key(heading.text), line, heading.level, heading.lines


def headings(text: str) -> list[tuple[str, int, int]]:
    """(compared text, 1-based line, level) of every ATX and setext heading (fences not considered)."""
    return [(title, line, level) for title, line, level, _ in _headings(text)]


def abstain_sections(text: str) -> dict[str, tuple[int, bool]]:
    """Each heading of an abstaining report: (its line, whether any text other than headings
    follows before the next heading of its level or a higher one: a deeper heading is inside it)."""
    lines = text.split("\n")
    spans = list(_headings(text))
    found = [(title, line, level) for title, line, level, _ in spans]
    heading_lines = {line + below for _, line, _, spanned in spans for below in range(spanned)}  # a setext underline too
    written = [0]  # written[n]: how many of the first n lines hold text that is not a heading
    for number, line_text in enumerate(lines, start=1):
        written.append(written[-1] + (number not in heading_lines and bool(line_text.strip())))
    ends = [len(lines)] * len(found)
    open_sections: list[int] = []  # indexes into found, of ever deeper levels
    for index, (_, line, level) in enumerate(found):
        while open_sections and found[open_sections[-1]][2] >= level:
            ends[open_sections.pop()] = line - 1
        open_sections.append(index)
    sections: dict[str, tuple[int, bool]] = {}
    for (title, line, _), end in zip(found, ends, strict=True):
        sections.setdefault(title, (line, written[end] > written[line]))
    return sections
