"""briefs: Markdown synthesis briefs under brief-citation-contract.md (§1-3, 5, 7, 8).

A Markdown file is a brief when it has a References heading and at least two of the claim-section
headings (``Prevailing View``, ``Counterarguments``, ``Minority View``, ``What to Watch``; ATX or
setext, compared without the emphasis, numbering, emoji and punctuation around their words:
:func:`heading_key`) and holds what a brief holds besides (:func:`holds_brief_evidence`); a file
longer than the engine's sniff window is read whole when its start holds claim-section headings
(:func:`opens_a_brief`), and a file the kind's ``include`` names is a brief whatever it holds
(:meth:`Briefs.declared`). Each brief is parsed once with markdown-it-py
(``commonmark`` preset, no linkify) into one :class:`Brief` unit: sections (each up to the next
heading of its level or a higher one) with their bullets (every list item that shows something,
read from all its own blocks: paragraphs, HTML blocks, blockquotes, headings, code blocks), each
bullet's ``[N]`` markers (markers in code spans, code blocks, code-like HTML elements, links and
HTML comments are not citations) and claim (its words, without link destinations, URLs, HTML or
code: :func:`claim_prose` of each block of prose), the References entries (§7.2's form as
generators render it: :func:`read_reference`), and
the stored citation objects each marker resolves to, from the sidecar ``<stem>.citations.json``
(or ``<name>.citations.json``) or from the SQLite evidence store named by ``evidence-store``.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from pytest_citations.core import globs, jsonlines, markdown_text, sources
from pytest_citations.core.diagnostics import quoted
from pytest_citations.core.suppressions import markdown_directives
from pytest_citations.kinds import Reported
from pytest_citations.rules import Finding, Option

CLAIM_SECTIONS = ["Prevailing View", "Counterarguments", "Minority View", "What to Watch"]
SECTION_KEYS = ("prevailing", "counter", "minority", "watch")  # §8's names, in the order above
ABSTAIN_PREFIXES = [
    "Insufficient evidence",
    "Insufficient credible evidence",
    "Data not yet available",
    "Conflicting reports",
    "No official statement found",
    "Cite official source directly",
]
ABSTAIN_MARKER = "[Insufficient evidence to support this claim]"
REQUIRED_FIELDS = ("id", "source_id", "publisher", "doc_id", "chunk_id", "url", "title", "published_at", "fetched_at")

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
# A marker number has at most 9 ASCII digits: ``[`` + 5000 digits + ``]`` is text, not a marker
# (``int`` refuses over 4300 digits), and fullwidth digits such as ``[３]`` are never markers.
_MARKER_TEXT = re.compile(r"\[([0-9]{1,9})\]")
# an entry's start; its body is the rest of the line without trailing blanks
_ENTRY_START = re.compile(r"[ \t]*(?:[-*+][ \t]+)?\[(?P<number>[0-9]{1,9})\][ \t]+")


class Marker(NamedTuple):
    """A ``[N]`` of a bullet: a named tuple, a brief holds thousands (a frozen dataclass costs four
    times as much to make)."""

    number: int
    line: int
    col: int
    start: int
    end: int


@dataclass
class Bullet:
    section: str  # the section's key: prevailing, counter, minority, watch
    index: int  # 0-based within its section
    line: int
    col: int
    start: int  # character span of the list item's lines
    end: int
    # its blocks' Markdown as markdown-it reads it (a code block as written), a blank line between two
    text: str
    markers: list[Marker]
    abstain: bool
    # the parse environment of the brief (its link reference definitions), for :attr:`claim`
    env: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # (Markdown, whether it is code) of each block, for a bullet of a code block or of several
    # blocks; empty for the usual bullet, whose text is one block of prose
    blocks: tuple[tuple[str, bool], ...] = field(default=(), repr=False)

    @functools.cached_property
    def claim(self) -> str:
        """The bullet's text as its claim (:meth:`read_claim`), read when a rule asks (most bullets
        are never asked, and most that are hold no Markdown syntax)."""
        return self.read_claim()

    def read_claim(self) -> str:
        """:func:`claim_prose` of each block of prose; a code block is blanked whole, as a code span is."""
        if not self.blocks:
            return claim_prose(self.text, self.env)
        return "\n\n".join(
            markdown_text.blank(block) if code else claim_prose(block, self.env) for block, code in self.blocks
        )

    def add_block(self, block: str, code: bool, markers: list[Marker]) -> None:
        """Read one more block of the bullet's list item (a bullet is made at its first)."""
        self.blocks = (*(self.blocks or ((self.text, False),)), (block, code))
        self.text += "\n\n" + block
        self.markers += markers


@dataclass
class Section:
    key: str
    title: str
    line: int
    bullets: list[Bullet] = field(default_factory=list)


class Reference(NamedTuple):
    """A References entry read in spec §7.2's form: ``Publisher. "Title". Published <date>. <URL>``."""

    publisher: str
    title: str
    date: str | None  # as written, without "Published"; None when the entry gives none
    url: str  # where a reader goes: a Markdown link's destination, an autolink's or a bare URL
    tags: frozenset[str]  # Paywall, Monitor-only source


@dataclass
class Entry:
    number: int
    line: int
    col: int
    text: str

    @functools.cached_property
    def _read(self) -> tuple[Reference | None, str | None]:
        return read_reference(self.text)

    @property
    def reference(self) -> Reference | None:
        """The entry read in §7.2's form; None when it is not in it (:attr:`problem` says why)."""
        return self._read[0]

    @property
    def problem(self) -> str | None:
        """Which part of the entry is not in §7.2's form, for a person to read; None when it is."""
        return self._read[1]

    @property
    def tags(self) -> frozenset[str]:
        return self.reference.tags if self.reference else frozenset()

    @property
    def url(self) -> str | None:
        return self.reference.url if self.reference else None


@dataclass
class Brief:
    rel: str
    sections: dict[str, Section]
    missing_sections: list[str]
    references: Section | None
    entries: list[Entry]
    swallowed: list[tuple[Marker, str]]  # markers read as links, and why
    citations: dict[str, Any] | None = None  # marker number (str) -> citation object
    citation_source: str | None = None  # where the objects came from (the sidecar or the store)
    store: Any = None
    registry: Any = None
    registry_rel: str | None = None
    line: int = 1
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)
    sidecar: dict[str, Any] | None = None  # the whole sidecar object, when one was read
    pack: dict[str, Any] | None = None  # the evidence pack of §4.4 (sidecar ``evidence_pack`` or store)
    pack_source: str | None = None
    bullet_tags: dict[tuple[str, int], list[str]] | None = None  # (section, index) -> topic tags (§8 mapping)
    source_hosts: dict[str, tuple[str, ...]] = field(default_factory=dict)  # the source-hosts setting, by source id
    abstaining: bool = False  # §3.2's abstaining report, not a synthesis

    # A brief is not changed once read: what every rule asks of it is computed once.

    @functools.cached_property
    def bullets(self) -> list[Bullet]:
        return [b for s in self.sections.values() for b in s.bullets]

    @functools.cached_property
    def _first_markers(self) -> dict[int, Marker]:
        found: dict[int, Marker] = {}
        for bullet in self.bullets:
            for marker in bullet.markers:
                found.setdefault(marker.number, marker)
        return found

    @functools.cached_property
    def _first_entries(self) -> dict[int, Entry]:
        found: dict[int, Entry] = {}
        for entry in self.entries:
            found.setdefault(entry.number, entry)
        return found

    def cited_numbers(self) -> list[int]:
        return sorted(self._first_markers)

    def entry(self, number: int) -> Entry | None:
        return self._first_entries.get(number)

    def first_marker(self, number: int) -> Marker | None:
        return self._first_markers.get(number)


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


def is_abstain(text: str, prefixes: list[str]) -> bool:
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")) or "]" in text[1:-1]:
        return False
    inner = text[1:-1].strip().casefold()
    return any(inner.startswith(prefix.casefold()) for prefix in prefixes)


ABSTAIN_STATUS = "Synthesis Status: Insufficient Evidence"
ABSTAIN_SECTIONS = ["Available Evidence Summary", "Why Insufficient"]


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


# What a brief holds besides its headings, and ordinary writing under the same headings does not
# (spec §3, §6, §7.2): a References entry line (``[N] ...``, as :data:`_ENTRY_START` reads one), a
# ``[N]`` marker on a list item's line or on an indented line (a list item's next line), or an
# abstain marker. Searched with a newline put in front of the text, as :data:`_ATX_HEADING` is.
_EVIDENCE = re.compile(
    r"\n[ \t]*(?:[-*+][ \t]+)?\[[0-9]{1,9}\][ \t]"
    r"|\n(?:[ \t]|(?:>[ \t]*)*(?:[-*+]|[0-9]{1,9}[.)])[ \t])[^\n]*\[[0-9]{1,9}\]"
    r"|\[[ \t]*(?i:" + "|".join(re.escape(prefix) for prefix in ABSTAIN_PREFIXES) + ")"
)


def holds_brief_evidence(text: str) -> bool:
    """Whether ``text`` holds a References entry, a marker in a list item or an abstain marker
    (:data:`_EVIDENCE`): a brief always holds one, even when none of its bullets is cited."""
    return _EVIDENCE.search("\n" + text) is not None


def looks_like_brief(text: str, claim_sections: list[str], references: str) -> bool:
    return _is_brief(heading_titles(text), claim_sections, references, text)


# A word of each default claim-section heading, with no letter another character casefolds to
# (no ``s``, ``k``, ``st``, ``ff``, ``fi``...): what :func:`may_be_brief` looks for.
_CLAIM_WORDS = ("prevailing", "counterargument", "minority", "watch")


def may_be_brief(head: str) -> bool:
    """False for most heads :func:`looks_like_brief` rejects with the default headings, at a tenth
    of its cost (every Markdown file no kind claims by path is sniffed). A brief has a heading that
    compares as ``synthesis status: insufficient evidence``, or one that compares as
    ``references`` and two claim-section headings. The only characters that casefold to the
    letters of ``referenc``, ``evidence``, ``cient`` (of "insufficient") or :data:`_CLAIM_WORDS`
    are those ASCII letters in either case (``ſ`` and the Kelvin sign give ``s`` and ``k``,
    ligatures and ``ß`` give pairs none of these words holds), and :func:`heading_key` removes no
    character between two letters, so the head holds these words in ASCII, in some case."""
    lowered = head.lower()
    if "evidence" in lowered and "cient" in lowered:
        return True
    return "referenc" in lowered and sum(word in lowered for word in _CLAIM_WORDS) >= 2


def _is_brief(titles: set[str], claim_sections: list[str], references: str, text: str) -> bool:
    """Whether a file of these heading ``titles`` and ``text`` is a brief: §3.2's abstaining
    report, or a synthesis with a References heading, two claim-section headings (one when only
    one is configured) and :func:`holds_brief_evidence`."""
    claims = sum(1 for name in claim_sections if heading_key(name) in titles)
    if heading_key(ABSTAIN_STATUS) in titles and claims == 0:
        return True  # §3.2's abstaining report: B335 checks its sections
    return heading_key(references) in titles and claims >= min(2, len(claim_sections)) and holds_brief_evidence(text)


def not_a_brief_because(text: str, claim_sections: list[str], references: str) -> str:
    """What ``text`` lacks to be a brief by its content (:func:`_is_brief`), for a person to read."""
    titles = heading_titles(text)
    claims = [name for name in claim_sections if heading_key(name) in titles]
    lacking = []
    if heading_key(references) not in titles:
        lacking.append(f"a {references} heading")
    if len(claims) < min(2, len(claim_sections)):
        found = f" (it has {', '.join(claims)})" if claims else ""
        lacking.append(f"two of the claim-section headings {', '.join(claim_sections)}{found}")
    if not holds_brief_evidence(text):
        lacking.append("a [N] marker in a list item, a [N] References entry or an abstain marker")
    return "it lacks " + "; ".join(lacking)


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


def _fills_window(head: str) -> bool:
    """Whether ``head`` may be only the start of its file: it fills the engine's sniff window
    (``SNIFF_BYTES`` of UTF-8, its last character perhaps cut and replaced by U+FFFD). A character
    takes at most four bytes, so a head of under a quarter of the window is never encoded."""
    from pytest_citations.engine import SNIFF_BYTES

    if len(head) >= SNIFF_BYTES:
        return True
    return len(head) * 4 >= SNIFF_BYTES - 3 and len(head.encode("utf-8", "surrogatepass")) >= SNIFF_BYTES - 3


def opens_a_brief(head: str, claim_sections: list[str]) -> bool:
    """Whether the start of a file holds what the start of a brief always holds, however long
    the brief: claim-section headings. A brief's References heading comes last and may lie past
    any window, but its first claim section starts near the top: the head holds two claim-section
    headings, or one whose section runs on to the end of the head (a deeper heading stays inside
    it). Ordinary Markdown names such a heading rarely, and then goes on to other sections."""
    claims = {heading_key(name) for name in claim_sections}
    found = headings(head)
    opened = [index for index, (title, _, _) in enumerate(found) if title in claims]
    if not opened:
        return False
    if len({found[index][0] for index in opened}) >= 2:
        return True
    level = found[opened[0]][2]
    return all(depth > level for _, _, depth in found[opened[0] + 1 :])


_NEWLINE = re.compile("\n")
# What can make a ``[N]`` of a bullet's source something other than a marker in its inline text:
# an inline link, an autolink or HTML, an escape, an entity, a code span (link reference
# definitions are checked apart).
_INLINE_SYNTAX = re.compile(r"\]\(|[<\\`]|&(?:#|\w+;)")


# The inline rules that can consume a ``[``: what they consume is never a marker.
_CONSUMING_RULES = ("backticks", "link", "image", "autolink", "html_inline")
_CONSUMED = "pytest_citations.consumed"  # the env key of an inline parse's consumed spans


def _watched(name: str, rule):
    """``rule`` (the inline rule ``name``), which also records in ``env[_CONSUMED]`` what content it
    consumes in the watched parse (not in an image's description, which markdown-it parses apart):
    (name, start, end, where a link's text ends; -1 for other rules). The link's text end is found
    as the link rule found it, from its cached reading of the tokens inside the brackets."""

    def watched(state, silent: bool) -> bool:
        start = state.pos
        found = rule(state, silent)
        watch = state.env.get(_CONSUMED)
        if found and not silent and watch is not None and state.tokens is watch[0]:
            text_end = state.md.helpers.parseLinkLabel(state, start, True) if name == "link" else -1
            watch[1].append((name, start, state.pos, text_end))
        return found

    return watched


@functools.cache
def _markdown():
    """One CommonMark parser for the run (building one costs a tenth of parsing a brief), for
    blocks only: inline parsing, over half of a full parse, is done for the few bullets that need
    it (:func:`_inline_pieces`)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").disable(["inline", "text_join"])
    ruler = md.inline.ruler
    for name in _CONSUMING_RULES:
        ruler.at(name, _watched(name, ruler.__rules__[ruler.__find__(name)].fn))
    return md


# The lines of a brief as generators write them, which :func:`_plain_blocks` reads without
# markdown-it: ATX headings without ``#`` in their text, ``- `` bullets and paragraph lines that start
# with a letter, digit or ``[`` (never an ordered list's ``1.``), and empty lines.
_PLAIN_HEADING = re.compile(r"(#{1,6}) ([^#]*)")
_PLAIN_BULLET = re.compile(r"- ([A-Za-z0-9\[].*)")
_PLAIN_PARAGRAPH = re.compile(r"[A-Za-z0-9\[].*")
# what markdown-it trims off a heading's or paragraph's text (its ``MD_TRIM_CHARS``), held here so
# that a plain brief is read without importing markdown-it (a test keeps them equal)
MARKDOWN_TRIM = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_ORDERED_START = re.compile(r"[0-9]{1,9}[.)](?:[ \t]|$)")


class _Block(NamedTuple):
    """What :func:`read_brief` reads of a markdown-it token."""

    type: str
    map: list[int] | None = None
    content: str = ""
    tag: str = ""  # a heading's: h1 to h6


def _plain_blocks(text: str) -> list[_Block] | None:
    """The block tokens markdown-it gives ``text`` that :func:`read_brief` reads (headings' opening
    and inline tokens, list items' opening, inline and closing ones, paragraphs' inline ones), when
    every line is a plain heading, bullet, paragraph line or empty line and no link reference can
    be defined; None otherwise, and for a paragraph line right after a bullet (a lazy continuation).
    About half of what markdown-it spends on a brief, this takes a tenth of."""
    if "]:" in text or "\r" in text or "\0" in text:
        return None
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # markdown-it counts no line after a final newline
    kinds: list[tuple[str, str]] = []  # (kind, content); a heading's kind is its tag, h1 to h6
    for line in lines:
        if not line:
            kinds.append(("blank", ""))
        elif line[0] == "#":
            found = _PLAIN_HEADING.fullmatch(line)
            if found is None:
                return None
            kinds.append((f"h{len(found.group(1))}", found.group(2).rstrip(" \t").strip(MARKDOWN_TRIM)))
        elif line[0] == "-":
            found = _PLAIN_BULLET.fullmatch(line)
            if found is None or _ORDERED_START.match(found.group(1)):
                return None
            kinds.append(("bullet", found.group(1).strip(MARKDOWN_TRIM)))
        elif _PLAIN_PARAGRAPH.fullmatch(line) and not _ORDERED_START.match(line):
            kinds.append(("paragraph", line))
        else:
            return None
    return _blocks(kinds)


def _blocks(kinds: list[tuple[str, str]]) -> list[_Block] | None:
    """The tokens of classified lines that :func:`read_brief` reads: headings, list items (an item
    spans the empty lines after it) and paragraphs."""
    blocks: list[_Block] = []
    index = 0
    while index < len(kinds):
        kind, content = kinds[index]
        if kind[0] == "h":
            blocks += [_Block("heading_open", [index, index + 1], tag=kind), _Block("inline", [index, index + 1], content)]
        elif kind == "bullet":
            after = index + 1
            if after < len(kinds) and kinds[after][0] == "paragraph":
                return None  # a lazy continuation line
            while after < len(kinds) and kinds[after][0] == "blank":
                after += 1
            blocks += [_Block("list_item_open", [index, after]), _Block("inline", [index, index + 1], content), _Block("list_item_close")]
        elif kind == "paragraph":
            end = index + 1
            while end < len(kinds) and kinds[end][0] == "paragraph":
                end += 1
            joined = "\n".join(line for _, line in kinds[index:end]).strip(MARKDOWN_TRIM)
            blocks.append(_Block("inline", [index, end], joined))
            index = end
            continue
        index += 1
    return blocks


_PIECES = "pytest_citations.pieces"  # the env key of the pieces :func:`_inline_pieces` found, by content


def _inline_pieces(content: str, env: dict[str, Any]) -> list[tuple[str, int, int, int]]:
    """(rule, start, end, text end) of each span of ``content`` (an inline token's) that CommonMark
    reads as a code span, link, image, autolink or HTML tag (``_watched``); a bullet's markers and
    its claim ask for the same content, which is parsed once per brief (``env`` is the brief's)."""
    held = env.setdefault(_PIECES, {})
    pieces = held.get(content)
    if pieces is None:
        md = _markdown()
        children: list = []
        pieces = held[content] = []
        md.inline.parse(content, md, {**env, _CONSUMED: (children, pieces)}, children)
    return pieces


def _consumed_spans(content: str, env: dict[str, Any]) -> list[tuple[int, int]]:
    """The spans of ``content`` (an inline token's) that CommonMark reads as code spans, links,
    images, autolinks or HTML tags: a ``[N]`` starting in one is no marker."""
    return [(start, end) for _, start, end, _ in _inline_pieces(content, env)]


# A bare URL, which a reader (and GitHub, which links it) takes for an address, not for words.
_BARE_URL = re.compile(r"\b(?:https?://|ftp://|www\.)[^\s<]*", re.I)


def claim_prose(content: str, env: dict[str, Any]) -> str:
    """``content`` (a bullet's inline Markdown, read with the brief's parse ``env``) with what a
    reader does not read as its claim blanked, offsets and newlines kept: link destinations and
    titles and the brackets around link text, reference labels, images, autolinks and bare URLs,
    HTML tags and comments, code spans. A link's text stays (it is read), unless it is a lone
    ``[N]`` that a definition turned into a link (B306 reports it; it states no number)."""
    claim = content
    if env.get("references") or _INLINE_SYNTAX.search(content):
        claim = _blank_spans(content, _not_claimed(content, _inline_pieces(content, env)))
        if "<" in content:
            claim = _blank_spans(claim, _code_elements(content))
    if "://" in claim or "www." in claim.lower():
        claim = _BARE_URL.sub(lambda m: markdown_text.blank(m.group()), claim)
    return claim


# HTML elements whose content a reader sees as code (``<code>``, ``<pre>``) or never sees
# (``<script>``, ``<style>``): none of it is a claim's words, and a ``[N]`` in one is no citation, as
# in a code span. Each runs to its closing tag or to the end of the text. (``<math>``, which
# markdown_text blanks for the other kinds, shows figures a reader reads: it stays a claim's words.)
_CODE_ELEMENT = re.compile(r"<(?P<tag>code|pre|script|style)\b[^<>]*>.*?(?:</(?P=tag)\s*>|\Z)", re.S | re.I)


def _code_elements(text: str) -> Iterator[tuple[int, int]]:
    """The spans of ``text`` (Markdown) that :data:`_CODE_ELEMENT` elements cover; a tag written in
    a code span or an HTML comment is text, not a tag, and opens none."""
    return (match.span() for match in _CODE_ELEMENT.finditer(markdown_text.blank_inline_code_and_comments(text)))


def _not_claimed(content: str, pieces: list[tuple[str, int, int, int]]) -> Iterator[tuple[int, int]]:
    """The spans of ``pieces`` that hold no words of the claim: all of each but a link's text."""
    for name, start, end, text_end in pieces:
        if name != "link" or text_end < 0 or _MARKER_TEXT.fullmatch(content, start, text_end + 1):
            yield start, end
        else:
            yield start, start + 1
            yield text_end, end


def _blank_spans(text: str, spans: Iterator[tuple[int, int]]) -> str:
    """``text`` with the characters of ``spans`` (which may nest or overlap) blanked, newlines kept."""
    parts = []
    done = 0
    for start, end in sorted(spans):
        start = max(start, done)
        if end > start:
            parts += [text[done:start], markdown_text.blank(text[start:end])]
            done = end
    parts.append(text[done:])
    return "".join(parts)


def _marker_flags(token, source: str, source_start: int, candidates: list[Marker], env: dict[str, Any]) -> list[bool]:
    """Whether each candidate ``[N]`` of an inline token or an HTML block (whose content is read as
    inline Markdown too) is a marker as CommonMark reads it (outside
    links, images, code and HTML). When ``source`` (the token's lines, starting at ``source_start``)
    holds no link, escape, entity, code span or HTML and the file defines no link references, every
    candidate is, without an inline parse. Otherwise a candidate is matched to its ``[N]`` in the
    token's content by position: both list the same ``[N]`` texts in the same order (the token's
    content is its lines without indentation and list or quote markers, which hold no ``[``)."""
    if not env.get("references") and not _INLINE_SYNTAX.search(source):
        return [True] * len(candidates)
    positions = _in_content(source, source_start, token.content, [candidate.start for candidate in candidates])
    known = [position for position in positions if position is not None]
    outside = iter(_outside(spans=_consumed_spans(token.content, env), positions=known))
    return [position is not None and next(outside) for position in positions]


def _in_content(source: str, source_start: int, content: str, starts: list[int]) -> list[int | None]:
    """The offset in a token's ``content`` of each ``[N]`` that starts at one of the ascending
    file offsets ``starts`` in its lines (``source``, from offset ``source_start``): the n-th
    ``[N]`` text of one is the n-th of the other. None for one the content lacks."""
    index = {source_start + m.start(): n for n, m in enumerate(_MARKER_TEXT.finditer(source))}
    found = [m.start() for m in _MARKER_TEXT.finditer(content)]
    return [found[index[start]] if index.get(start, len(found)) < len(found) else None for start in starts]


def _outside(spans: list[tuple[int, int]], positions: list[int]) -> list[bool]:
    """For each of the ascending ``positions``, whether it lies outside every ``[start, end)`` span
    (in linear time after sorting: a bullet may hold thousands of links and markers)."""
    ordered = sorted(spans)
    flags = []
    reach, next_span = -1, 0  # the furthest end of the spans starting at or before a position
    for position in positions:
        while next_span < len(ordered) and ordered[next_span][0] <= position:
            reach = max(reach, ordered[next_span][1])
            next_span += 1
        flags.append(position >= reach)
    return flags


_LONE_CR = re.compile(r"\r(?!\n)")


def _lines_as_counted(text: str) -> str:
    """``text`` with each carriage return that no newline follows made a space: markdown-it ends a
    line there, while the project counts lines by newlines (``sources.Source.line_starts``), and
    the token's line numbers must index the same lines. The length is kept, so offsets hold."""
    return _LONE_CR.sub(" ", text) if "\r" in text else text


# The blocks whose text a bullet holds (a paragraph's or heading's is an inline token's), and those of code.
_TEXT_BLOCKS = ("inline", "html_block", "fence", "code_block")
_CODE_BLOCKS = ("fence", "code_block")
# the list and blockquote markers in front of a block on its first line
_CONTAINER_MARKS = re.compile(r"(?:[ \t]*(?:(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t])|>))*[ \t]*")


def _shows_nothing(html_block) -> bool:
    """Whether an HTML block shows a reader nothing: it holds comments only. A list item of
    nothing else states nothing, as an empty one, and is no bullet."""
    return not markdown_text.HTML_COMMENT.sub("", html_block.content).strip()


def _code_as_written(source: str) -> str:
    """A code block's lines (``source``) as written, from its first character after the list and
    blockquote markers in front of it: where ``--fix`` finds a bullet that starts with one."""
    lines = source.replace("\r\n", "\n").rstrip("\n")
    return lines[_CONTAINER_MARKS.match(lines).end() :]


def _block_markers(block, source: str, start: int, line_starts: list[int], env: dict[str, Any],
                   swallowed: list[tuple[Marker, str]]) -> list[Marker]:
    """The markers of a block of prose of a bullet (an inline token or an HTML block, whose lines,
    ``source``, start at offset ``start``); a ``[N]`` Markdown reads as something else is added to
    ``swallowed``, with what it is read as."""
    prose = markdown_text.blank_inline_code_and_comments(source)
    if "<" in prose:
        prose = _blank_spans(prose, _code_elements(prose))
    candidates = _candidates(prose, start, block.map, line_starts)
    flags = _marker_flags(block, source, start, candidates, env) if candidates else []
    if all(flags):
        return candidates
    lost = [candidate for candidate, is_marker in zip(candidates, flags, strict=True) if not is_marker]
    swallowed += zip(lost, _read_as(lost, block.content, source, start, env), strict=True)
    return [candidate for candidate, is_marker in zip(candidates, flags, strict=True) if is_marker]


def read_brief(rel: str, text: str, options: dict[str, Any]) -> Brief:
    claim_names = options.get("claim-sections", CLAIM_SECTIONS)
    keys = {heading_key(name): (SECTION_KEYS[i] if i < len(SECTION_KEYS) else heading_key(name)) for i, name in enumerate(claim_names)}
    titles = {heading_key(name): name for name in claim_names}
    references_title = heading_key(options.get("references-heading", "References"))
    prefixes = options.get("abstain-prefixes", ABSTAIN_PREFIXES)
    env: dict[str, Any] = {}
    tokens = _plain_blocks(text)
    if tokens is None:
        tokens = _markdown().parse(_lines_as_counted(text), env)
    line_starts = [0, *(match.end() for match in _NEWLINE.finditer(text)), len(text) + 1]

    def line_span(first: int, last: int) -> tuple[int, int]:  # 0-based [first, last) lines
        return line_starts[first], min(line_starts[min(last, len(line_starts) - 1)], len(text))

    sections: dict[str, Section] = {}
    references: Section | None = None
    entries: list[Entry] = []
    swallowed: list[tuple[Marker, str]] = []
    current: Section | None = None
    in_references = False
    section_level = 0  # the heading level of the claim or References section being read (0: none)
    item_stack: list[list] = []  # [list_item token, bullet or None]
    for position, token in enumerate(tokens):
        if token.type == "heading_open":
            if item_stack:
                continue  # a heading inside a list item is a block of its bullet, not a section's
            title = heading_key(tokens[position + 1].content)
            level = int(token.tag[1])
            if title not in keys and title != references_title and section_level and level > section_level:
                continue  # a sub-heading: its section goes on
            in_references = title == references_title
            current = None
            section_level = level if title in keys or in_references else 0
            if title in keys:
                current = sections.setdefault(keys[title], Section(keys[title], titles[title], token.map[0] + 1))
            elif in_references and references is None:
                references = Section("references", tokens[position + 1].content, token.map[0] + 1)
            continue
        if token.type == "list_item_open":
            item_stack.append([token, None])
            continue
        if token.type == "list_item_close":
            bullet = item_stack.pop()[1]
            if bullet is not None and "[" in bullet.text:
                bullet.abstain = is_abstain(bullet.read_claim(), prefixes)
            continue
        if token.type not in _TEXT_BLOCKS or token.map is None:
            continue
        if token.type == "inline" and tokens[position - 1].type == "heading_open" and not item_stack:
            continue  # a section's heading
        if in_references:
            if token.type != "inline":
                continue
            start, _ = line_span(token.map[0], token.map[1])
            for offset, line in enumerate(text[start:line_span(token.map[0], token.map[1])[1]].split("\n")):
                line = line.rstrip("\r")
                found = _ENTRY_START.match(line)
                if found:
                    body = line[found.end() :].rstrip(" \t")
                    entries.append(
                        Entry(int(found.group("number")), token.map[0] + offset + 1, found.start("number"), body)
                    )
            continue
        if current is None or not item_stack or (token.type == "html_block" and _shows_nothing(token)):
            continue
        start, end = line_span(token.map[0], token.map[1])
        code = token.type in _CODE_BLOCKS
        if code:
            block, markers = _code_as_written(text[start:end]), []
        else:
            # an HTML block's content ends with its newline, an inline token's does not
            block = token.content if token.type == "inline" else token.content.removesuffix("\n")
            markers = _block_markers(token, text[start:end], start, line_starts, env, swallowed)
        held = item_stack[-1]
        if held[1] is not None:
            held[1].add_block(block, code, markers)
            continue
        item = held[0]
        item_start, item_end = line_span(item.map[0], item.map[1])
        item_text = text[item_start:item_end]
        indent = len(item_text) - len(item_text.lstrip())
        line, col = _line_col(line_starts, item_start + indent) if indent else (item.map[0] + 1, 1)
        held[1] = Bullet(current.key, len(current.bullets), line, col, item_start, item_end, block, markers, False, env,
                         ((block, True),) if code else ())
        current.bullets.append(held[1])
    missing = [titles[name] for name in titles if keys[name] not in sections]
    return Brief(rel, sections, missing, references, entries, swallowed)


def _candidates(prose: str, start: int, lines: list[int], line_starts: list[int]) -> list[Marker]:
    """The ``[N]`` of a bullet's lines (``prose``, starting at offset ``start`` on the 0-based line
    ``lines[0]``) that are not escaped nor followed by ``(``. A one-line bullet's columns are
    counted from its start (most bullets), others' found by :func:`_line_col`."""
    found = list(_MARKER_TEXT.finditer(prose))
    if "\\" in prose or "](" in prose:  # else no [N] is escaped or followed by (
        found = [m for m in found if prose[m.end() : m.end() + 1] != "(" and not _escaped(prose, m.start())]
    if lines[1] - lines[0] == 1:
        line = lines[0] + 1
        return [Marker(int(m.group(1)), line, m.start() + 1, start + m.start(), start + m.end()) for m in found]
    return [Marker(int(m.group(1)), *_line_col(line_starts, start + m.start()), start + m.start(), start + m.end())
            for m in found]


def _escaped(text: str, position: int) -> bool:
    """Whether the character at ``position`` is backslash-escaped: an odd run of backslashes
    before it (two backslashes before ``[1]`` are an escaped backslash, then a marker)."""
    run = 0
    while position > run and text[position - run - 1] == "\\":
        run += 1
    return run % 2 == 1


# What a ``[N]`` consumed by an inline rule other than a link's is read as.
_CONSUMED_AS = {
    "autolink": "part of an autolink (a URL in angle brackets)",
    "html_inline": "part of an HTML tag",
    "image": "part of an image",
    "backticks": "part of a code span",
}


def _read_as(lost: list[Marker], content: str, source: str, source_start: int, env: dict[str, Any]) -> list[str]:
    """What Markdown reads each of the ``lost`` candidates of a token as, instead of a marker
    (B306 says it): the innermost piece of the token's inline parse holding it."""
    positions = _in_content(source, source_start, content, [candidate.start for candidate in lost])
    known = [position for position in positions if position is not None]
    pieces = dict(zip(known, _innermost(_inline_pieces(content, env), known), strict=True))
    definitions = env.get("references", {})
    return [_swallowed_why(content, p, pieces[p], definitions) if p is not None else "a link" for p in positions]


def _innermost(pieces: list[tuple[str, int, int, int]], positions: list[int]) -> list[tuple[str, int, int, int] | None]:
    """For each of the ascending ``positions``, the innermost of the nested ``pieces`` holding it
    (None for none), in one pass: the pieces holding a position are a stack, the innermost on top."""
    ordered = sorted(pieces, key=lambda piece: (piece[1], -piece[2]))
    found = []
    held: list[tuple[str, int, int, int]] = []
    next_piece = 0
    for position in positions:
        while next_piece < len(ordered) and ordered[next_piece][1] <= position:
            held.append(ordered[next_piece])
            next_piece += 1
        while held and held[-1][2] <= position:
            held.pop()
        found.append(held[-1] if held else None)
    return found


def _swallowed_why(content: str, position: int, piece: tuple[str, int, int, int] | None,
                   definitions: dict[str, Any]) -> str:
    """What the ``[N]`` at ``position`` of ``content`` is read as, ``piece`` being the innermost
    inline piece that consumed it: a link's text, destination or reference label (and then its
    definition), an autolink, an image, an HTML tag, a code span."""
    if piece is None or (piece[0] == "link" and piece[3] < 0):
        return "a link"
    name, start, end, text_end = piece
    if name != "link":
        return _CONSUMED_AS[name]
    after = content[text_end + 1 : end]  # "(destination title)", "[label]", "[]" or nothing
    if after.startswith("("):
        return "part of a link's destination or title" if position > text_end else "part of a link's text"
    label = after[1:-1] if len(after) > 2 else content[start + 1 : text_end]  # [text][label], or [label][] and [label]
    line = _definition_line(label, definitions)
    if line is None:
        return "a link"
    if position > text_end or (len(after) <= 2 and position == start):  # the [N] is the label itself
        return f"the link reference definition [{label}]: on line {line}"
    return f"part of the text of a link to the link reference definition [{label}]: on line {line}"


def _definition_line(label: str, definitions: dict[str, Any]) -> int | None:
    """The 1-based line of the link reference definition ``label`` names (labels are matched as
    CommonMark matches them: case and runs of spaces do not count)."""
    from markdown_it.common.utils import normalizeReference

    found = definitions.get(normalizeReference(label))
    return found["map"][0] + 1 if isinstance(found, dict) and found.get("map") else None


def _line_col(line_starts: list[int], offset: int) -> tuple[int, int]:
    index = bisect.bisect_right(line_starts, offset) - 1
    return index + 1, offset - line_starts[index] + 1


# -- References entries (spec §7.2) --------------------------------------------------------------------

_TAGS = frozenset(("Paywall", "Monitor-only source"))
# The URL an entry ends in: a Markdown link (its destination), an autolink or a bare URL.
_LINK_AT_END = re.compile(r"(?:\A|[ \t])\[(?P<text>[^\[\]]*)\]\((?P<url>https?://[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)\)\Z", re.I)
_URL = re.compile(r"<https?://[^\s<>]+>|\[[^\[\]]*\]\(https?://[^\s()\[\]]*\)|https?://\S+", re.I)
_OPENING_QUOTES, _CLOSING_QUOTES = "\"\u201c", "\"\u201d"
_EMPHASIS_MARKS = "*_"
_PUBLISHED = re.compile(r"Published:?[ \t]*", re.I)
_MONTH_NUMBERS = {name: number for number, names in enumerate([
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
    ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
    ("dec", "december"),
], start=1) for name in names}
_WEEKDAY = r"(?:(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)[a-z]*\.?,?[ \t]+)?"
# The dates §7.2's "Published <date>" is written with: a month's name with the day before or after
# it (or without a day), an ISO 8601 date or date-time (the citation's own published_at), and the
# numeric forms 2026/02/10, 10/02/2026, 10.02.2026 (either order of day and month).
_DATE_FORMS = [
    re.compile(_WEEKDAY + r"(?P<month>[A-Za-z]{3,9})\.?[ \t]+(?P<day>[0-9]{1,2})(?:st|nd|rd|th)?,?[ \t]+(?P<year>[0-9]{4})"),
    re.compile(_WEEKDAY + r"(?P<day>[0-9]{1,2})(?:st|nd|rd|th)?[ \t]+(?P<month>[A-Za-z]{3,9})\.?,?[ \t]+(?P<year>[0-9]{4})"),
    re.compile(r"(?P<month>[A-Za-z]{3,9})\.?,?[ \t]+(?P<year>[0-9]{4})"),
    re.compile(r"(?P<year>[0-9]{4})/(?P<month>[0-9]{1,2})/(?P<day>[0-9]{1,2})"),
    re.compile(r"(?P<first>[0-9]{1,2})[/.](?P<second>[0-9]{1,2})[/.](?P<year>[0-9]{4})"),
]
_ISO_SHAPE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T\S*)?")


def read_reference(body: str) -> tuple[Reference | None, str | None]:
    """(the entry read in §7.2's form, None) or (None, which part failed) for the text of a
    References entry after its ``[N]``. Besides §7.2's exact form it reads what generators write:
    curly quotes, emphasis around the publisher or title, any date (or none, as in a calendar
    entry), "Published" left out (§10), a Markdown link or an autolink for the URL."""
    rest, tags = _split_tags(body)
    found = _url_at_end(rest)
    if found is None:
        return None, _no_url_problem(rest)
    head, url = found
    opening = next((index for index, char in enumerate(head) if char in _OPENING_QUOTES), -1)
    if opening < 0:
        return None, "no title in double quotes"
    closing = max(head.rfind(char) for char in _CLOSING_QUOTES)
    if closing <= opening:
        return None, "the title's opening quote is never closed"
    publisher = head[:opening].rstrip(" \t" + _EMPHASIS_MARKS)
    if not publisher:
        return None, "no publisher before the title"
    if not publisher.endswith("."):
        return None, f"the publisher {quoted(_unemphasized(publisher))} does not end with a period"
    title = _unemphasized(head[opening + 1 : closing])
    if not title:
        return None, "the title is empty"
    written = head[closing + 1 :].lstrip(_EMPHASIS_MARKS).lstrip(".").strip(" \t").removesuffix(".").rstrip(" \t")
    date = _PUBLISHED.sub("", written, count=1) if _PUBLISHED.match(written) else written
    problem = _date_problem(date, written) if written else None
    if problem:
        return None, problem
    return Reference(_unemphasized(publisher[:-1]), title, date or None, url, tags), None


def _unemphasized(text: str) -> str:
    """``text`` without the blanks and emphasis marks around it (``**Reuters**``, ``*Title*``)."""
    return text.strip(" \t").strip(_EMPHASIS_MARKS).strip(" \t")


def _split_tags(body: str) -> tuple[str, frozenset[str]]:
    """(the entry without the §7.2 tags at its end, the tags)."""
    tags = set()
    end = len(body.rstrip(" \t"))
    while end and body[end - 1] == "]":  # read back by index: a line may hold a long run of blanks or tags
        opening = body.rfind("[", 0, end)
        tag = body[opening + 1 : end - 1]
        if opening <= 0 or tag not in _TAGS or body[opening - 1] not in " \t":
            break
        tags.add(tag)
        end = opening
        while end and body[end - 1] in " \t":
            end -= 1
    return body[:end], frozenset(tags)


def _url_at_end(text: str) -> tuple[str, str] | None:
    """(what comes before it, the URL) of the URL ``text`` ends in, None when it ends in none."""
    if text.endswith(")"):
        link = _LINK_AT_END.search(text)
        if link is not None:
            return text[: link.start()], link.group("url")
    cut = max(text.rfind(" "), text.rfind("\t"))  # the last blank, -1 for none
    before, last = text[: max(cut, 0)], text[cut + 1 :]
    if last.startswith("<") and last.endswith(">"):
        last = last[1:-1]
    scheme, separator, address = last.partition("://")
    if separator and scheme.lower() in ("http", "https") and address and "<" not in last and ">" not in last:
        return before, last
    return None


def _no_url_problem(text: str) -> str:
    """Why ``text`` (an entry without its tags) ends in no URL: text follows its URL, or it has none."""
    urls = list(_URL.finditer(text))
    last = urls[-1] if urls else None
    if last is None or not text[last.end() :].strip():
        return "it ends in no http(s) URL"
    after = text[last.end() :].strip()
    return f"text after the URL: {quoted(after)} (only [Paywall] and [Monitor-only source] may follow it)"


def _date_problem(date: str, written: str) -> str | None:
    """None when ``date`` (the entry's text between its title and URL, ``written``, without
    "Published") is a date; else what is wrong with it."""
    if _ISO_SHAPE.fullmatch(date):
        from pytest_citations.core.timestamps import parse_iso_8601

        return None if parse_iso_8601(date) is not None else f"{quoted(date)} is not a date of the calendar"
    for form in _DATE_FORMS:
        found = form.fullmatch(date)
        readings = _calendar_readings(found.groupdict()) if found else None
        if readings is None:
            continue  # not this form, or a word that names no month
        if any(_is_calendar_date(*reading) for reading in readings):
            return None
        return f"{quoted(date)} is not a date of the calendar"
    return f"{quoted(written)} is not a date"


def _calendar_readings(parts: dict[str, str | None]) -> list[tuple[int, int, int]] | None:
    """The (year, month, day) a date of :data:`_DATE_FORMS` may mean: a numeric day and month
    (``10/02/2026``) either way round, a month without a day its first; None when its month's
    word names no month."""
    year = int(parts["year"])
    if parts.get("first") is not None:
        first, second = int(parts["first"]), int(parts["second"])
        return [(year, first, second), (year, second, first)]
    month = parts["month"]
    number = int(month) if month.isdigit() else _MONTH_NUMBERS.get(month.casefold())
    return None if number is None else [(year, number, int(parts.get("day") or 1))]


def _is_calendar_date(year: int, month: int, day: int) -> bool:
    import datetime

    try:
        datetime.date(year, month, day)
    except ValueError:
        return False
    return True


# -- resolution: sidecar, store, registry ------------------------------------------------------------


def sidecar_candidates(rel: str) -> list[str]:
    """``<stem>.citations.json`` and ``<name>.citations.json`` of a brief; a plain path (no empty,
    ``.`` or ``..`` part) is cut as ``PurePosixPath.with_suffix`` would, without building one."""
    if not sources._is_plain(rel):
        return [str(PurePosixPath(rel).with_suffix(".citations.json")), f"{rel}.citations.json"]
    name = rel.rpartition("/")[2]
    dot = name.rfind(".")
    stem = rel[: len(rel) - len(name) + dot] if 0 < dot < len(name) - 1 else rel
    return [f"{stem}.citations.json", f"{rel}.citations.json"]


def _is_file_inside(root, rel: str) -> bool:
    """Whether ``rel`` resolves inside ``root`` (``sources.resolve_inside``) to something that
    exists, found by ``sources.stat_inside``: one ``lstat`` for a regular file, else the path
    resolved and ``os.stat``, as ``exists`` does. An error ``exists`` may raise takes its way."""
    try:
        sources.stat_inside(root, rel)
    except (sources.SourceError, FileNotFoundError):
        return False
    except (OSError, ValueError):
        return sources.resolve_inside(root, rel).exists()
    return True


def _load_sidecar(ctx, brief: Brief) -> Iterator[Reported]:
    root, max_size = ctx.root, ctx.max_file_size
    for candidate in sidecar_candidates(brief.rel):
        if not _is_file_inside(root, candidate):
            continue
        try:
            text = sources.read_source(root, candidate, max_size).text
            data = jsonlines.loads(text)
        except sources.SourceError as exc:
            brief.citation_source = candidate  # unreadable: B318 says so, B307 stays quiet
            yield Reported("B318", Finding(f"sidecar {candidate}: {exc.message}"))
            return
        except (ValueError, RecursionError) as exc:
            message = jsonlines.error_message(exc, document=True)[0]
            brief.citation_source = candidate
            yield Reported("B318", Finding(f"sidecar {candidate}: {message}"))
            return
        citations = data.get("citations") if isinstance(data, dict) else None
        if not isinstance(citations, dict):
            shown = jsonlines.describe(data) if not isinstance(data, dict) else "an object without a \"citations\" object"
            brief.citation_source = candidate
            yield Reported("B318", Finding(f"sidecar {candidate}: expected {{\"citations\": {{\"1\": {{...}}}}}}, got {shown}"))
            return
        bad = [key for key, value in citations.items() if not key.isdigit() or not key.isascii() or not isinstance(value, dict)]
        if bad:
            yield Reported("B318", Finding(f"sidecar {candidate}: citations[{bad[0]!r}] must map a marker number to a citation object"))
        brief.citations = {str(int(k)): v for k, v in citations.items() if k.isdigit() and k.isascii() and len(k) <= 9 and isinstance(v, dict)}
        brief.citation_source = candidate
        brief.sidecar = data
        if isinstance(data.get("evidence_pack"), dict):
            brief.pack, brief.pack_source = data["evidence_pack"], candidate
        brief.bullet_tags = _sidecar_bullet_tags(data.get("bullets"))
        return


def _sidecar_bullet_tags(bullets: Any) -> dict[tuple[str, int], list[str]] | None:
    """Topic tags of §8's bullet mapping: ``{"prevailing": [{"citations": [...], "tags": [...]}]}``."""
    if not isinstance(bullets, dict):
        return None
    found: dict[tuple[str, int], list[str]] = {}
    for section, items in bullets.items():
        if not isinstance(items, list):
            continue
        for index, item in enumerate(items):
            if isinstance(item, dict) and isinstance(item.get("tags"), list):
                found[(section, index)] = [t for t in item["tags"] if isinstance(t, str)]
    return found or None


def _load_store(ctx, brief: Brief) -> Iterator[Reported]:
    from pytest_citations.kinds.briefs import evidence_store

    rel = ctx.kind_options.get("evidence-store", "")
    if not rel:
        return
    def open_store():
        try:
            return evidence_store.open_readonly(ctx.root, rel)
        except evidence_store.StoreError as exc:
            return exc

    store = ctx.engine.memo(("briefs.store", rel), open_store)
    if isinstance(store, evidence_store.StoreError):
        yield Reported("B318", Finding(str(store)))
        return
    try:
        if brief.citations is None and brief.citation_source is None:
            stored = store.markers(brief.rel)
            if stored is not None:
                brief.citations = stored
                brief.citation_source = f"evidence store {rel}"
        if brief.pack is None:
            pack = store_pack(store, brief.rel)
            if pack is not None:
                brief.pack, brief.pack_source = pack, f"evidence store {rel}"
        if brief.bullet_tags is None:
            brief.bullet_tags = store_bullet_tags(store, brief.rel)
    except evidence_store.StoreError as exc:  # a query past its time budget, a damaged page
        if brief.citations is None:
            brief.citation_source = f"evidence store {rel}"  # unreadable: B318's, not B307's
        yield Reported("B318", Finding(str(exc)))
        return
    brief.store = store


def _query(store, sql: str, params: tuple) -> list[dict[str, Any]] | None:
    import sqlite3

    from pytest_citations.kinds.briefs.evidence_store import column_keys

    try:
        cursor = store.connection.execute(sql, params)
    except sqlite3.Error:  # a table or column this store does not have
        return None
    names = column_keys(cursor)
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def store_pack(store, brief_rel: str) -> dict[str, Any] | None:
    """The §4.4 pack of the synthesis stored for ``brief_rel`` (chunks dated by their document)."""
    rows = _query(
        store,
        "SELECT p.* FROM syntheses s JOIN evidence_packs p ON p.pack_id = s.pack_id WHERE s.brief_path = ?",
        (brief_rel,),
    )
    if not rows:
        return None
    head = rows[0]
    chunks = _query(
        store,
        "SELECT e.chunk_id, e.source_id, e.score, e.credibility_tier, d.published_at FROM evidence_pack_chunks e "
        "LEFT JOIN chunks c ON c.id = e.chunk_id LEFT JOIN documents d ON d.id = c.doc_id "
        "WHERE e.pack_id = ? ORDER BY e.rowid",
        (head["pack_id"],),
    ) or []
    stats = {k: head[k] for k in ("unique_publishers", "tier_1_pct", "tier_2_pct", "tier_3_pct", "tier_4_pct", "max_publisher_pct")
             if head.get(k) is not None}
    pack = {"pack_id": head["pack_id"], "query": head.get("query"), "generated_at": head.get("generated_at"),
            "chunks": [{k: v for k, v in c.items() if v is not None} for c in chunks]}
    if stats:
        pack["diversity_stats"] = stats
    return pack


def store_bullet_tags(store, brief_rel: str) -> dict[tuple[str, int], list[str]] | None:
    """Topic tags from a ``tags`` column (a JSON array) of ``synthesis_bullets``, when the store has one."""
    import json

    if "tags" not in store.columns("synthesis_bullets"):
        return None  # the query below would fail, once per brief
    rows = _query(
        store,
        "SELECT b.section, b.bullet_index, b.tags FROM synthesis_bullets b JOIN syntheses s ON s.id = b.synthesis_id "
        "WHERE s.brief_path = ?",
        (brief_rel,),
    )
    found: dict[tuple[str, int], list[str]] = {}
    for row in rows or ():
        try:
            tags = json.loads(row["tags"]) if isinstance(row["tags"], str) else None
        except ValueError:
            tags = None
        if isinstance(tags, list):
            found[(row["section"], row["bullet_index"])] = [t for t in tags if isinstance(t, str)]
    return found or None


_CHUNK_TEXT = "SELECT text FROM chunks WHERE id = ?"


def _query_each(store, sql: str, keys: list[Any]) -> dict[Any, list[dict[str, Any]] | None]:
    """``{key: _query(store, sql, (key,))}``, read in as few statements as the store allows."""
    import sqlite3

    try:
        names, rows = store.rows_each(sql, keys)
    except sqlite3.Error:
        return {key: _query(store, sql, (key,)) for key in keys}
    return {key: [dict(zip(names, row, strict=True)) for row in found] for key, found in zip(keys, rows, strict=True)}


def _quoted_chunk_rows(brief: Brief) -> dict[Any, list[dict[str, Any]] | None]:
    """The stored text rows of every chunk a citation of the brief quotes, read at once."""
    if "quoted_chunk_rows" not in brief.memo:
        quoting = [c for c in (brief.citations or {}).values() if isinstance(c, dict) and isinstance(c.get("quote_span"), dict)]
        chunk_ids = list(dict.fromkeys(c["chunk_id"] for c in quoting if isinstance(c.get("chunk_id"), str)))
        held = brief.store.chunk_texts(chunk_ids)
        brief.memo["quoted_chunk_rows"] = held if held is not None else _query_each(brief.store, _CHUNK_TEXT, chunk_ids)
    return brief.memo["quoted_chunk_rows"]


def chunk_text(brief: Brief, chunk_id: Any, doc_id: Any) -> tuple[str, str] | None:
    """(text, what it is) of the stored chunk, else of the stored document: the store first, then
    the sidecar's ``chunks`` / ``documents`` maps (``{"chunk_1": {"text": "..."}}``)."""
    if brief.store is not None and isinstance(chunk_id, str):
        read = _quoted_chunk_rows(brief)
        rows = read[chunk_id] if chunk_id in read else _query(brief.store, _CHUNK_TEXT, (chunk_id,))
        if rows and isinstance(rows[0]["text"], str):
            return rows[0]["text"], f"chunk {chunk_id}"
    sidecar = brief.sidecar or {}
    for table, key in (("chunks", chunk_id), ("documents", doc_id)):
        mapping = sidecar.get(table)
        item = mapping.get(key) if isinstance(mapping, dict) and isinstance(key, str) else None
        text = item.get("text") if isinstance(item, dict) else item
        if isinstance(text, str):
            return text, f"{table[:-1]} {key}"
    return None


def _load_registry(ctx, brief: Brief) -> Iterator[Reported]:
    from pytest_citations.kinds.briefs import source_registry as registry

    rel = ctx.kind_options.get("registry", "source_registry.yaml")
    brief.registry_rel = rel
    def read_registry():
        """The parsed registry, None when there is none, or the SourceError that stops reading it."""
        try:
            if not sources.resolve_inside(ctx.root, rel).exists():
                return None
            return registry.parse(rel, sources.read_source(ctx.root, rel, ctx.max_file_size).text)
        except sources.SourceError as exc:
            return exc

    found = ctx.engine.memo(("briefs.registry", rel), read_registry)
    if isinstance(found, sources.SourceError):
        yield Reported("B319", Finding(f"source registry {rel}: {found.message}"))
        return
    if found is not None:
        for problem in found.problems:
            yield Reported("B319", Finding(f"source registry {rel}:{problem}"))
    brief.registry = found
    items = tuple(ctx.kind_options.get("source-hosts", ()))
    if items:
        hosts, problems = ctx.engine.memo(
            ("briefs.source-hosts", rel, items), lambda: registry.source_hosts_setting(list(items), found)
        )
        for problem in problems:
            yield Reported("B319", Finding(f"setting source-hosts: {problem}"))
        brief.source_hosts = hosts


def abstain_sections(text: str) -> dict[str, tuple[int, bool]]:
    """Each heading of an abstaining report: (its line, whether any text other than headings
    follows before the next heading of its level or a higher one: a deeper heading is inside it)."""
    lines = text.split("\n")
    spans = list(_headings(text))
    found = [(title, line, level) for title, line, level, _ in spans]
    heading_lines = {line + below for _, line, _, spanned in spans for below in range(spanned)}  # a setext underline too
    written = [0]  # written[n]: how many of the first n lines hold text that is not a heading
    for number, line in enumerate(lines, start=1):
        written.append(written[-1] + (number not in heading_lines and bool(line.strip())))
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


class Briefs:
    name = "briefs"
    description = "Markdown synthesis briefs whose claim bullets cite stored evidence"
    include = ()
    sniff_include = ("**/*.md",)
    # A README beside the briefs describes them: even where `include` names it, its content decides.
    by_content_only = ("README.md",)
    options = {
        "claim-sections": Option(list, CLAIM_SECTIONS, "the claim-section headings, in §8's order", items=str),
        "references-heading": Option(str, "References", "the heading of the References section"),
        "abstain-prefixes": Option(list, ABSTAIN_PREFIXES, "a bullet that is one bracketed phrase starting so is an abstain marker", items=str),
        "registry": Option(str, "source_registry.yaml", "the source registry, relative to the repository root"),
        "url-match": Option(str, "host", "how a citation URL matches its registry entry", choices=("host", "domain")),
        "source-hosts": Option(
            list, [], "\"source_id = host\": a host a source's articles live on besides its registry URL's "
            "(what a registry entry's article_hosts names)", items=str,
        ),
        "evidence-store": Option(str, "", "the SQLite evidence store, relative to the repository root (empty: none)"),
    }

    def sniff(self, head: str) -> bool:
        # the head only, without the settings: custom headings are claimed through `include`
        if may_be_brief(head) and looks_like_brief(head, CLAIM_SECTIONS, "References"):
            return True
        return _fills_window(head) and opens_a_brief(head, CLAIM_SECTIONS)

    def declared(self, ctx) -> bool:
        """Whether the settings claim the file as a brief by its path (the kind's ``include``
        globs, not its ``exclude``, nor :attr:`by_content_only`): it is then read as a brief
        whatever it holds, and a claim section it lacks is reported (B317), never passed."""
        own = ctx.engine.config.kinds[self.name]
        return (bool(own.include) and globs.matches(ctx.rel, own.include) and not globs.matches(ctx.rel, own.exclude)
                and not globs.matches(ctx.rel, self.by_content_only))

    def units(self, ctx) -> Iterator[Brief | Reported]:
        text = ctx.full_text()
        options = ctx.kind_options
        ctx.directives = markdown_directives(text)
        titles = heading_titles(text)
        if not (_is_brief(titles, options["claim-sections"], options["references-heading"], text) or self.declared(ctx)):
            return
        brief = read_brief(ctx.rel, text, options)
        brief.abstaining = heading_key(ABSTAIN_STATUS) in titles and not brief.sections
        if brief.abstaining:
            brief.memo["abstain_sections"] = abstain_sections(text)
        yield from _load_sidecar(ctx, brief)
        yield from _load_store(ctx, brief)
        yield from _load_registry(ctx, brief)
        yield brief


KIND = Briefs()
