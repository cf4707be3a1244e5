"""briefs: Markdown synthesis briefs under brief-citation-contract.md (§1-3, 5, 7, 8).

A Markdown file is a brief when it has at least two of the claim-section headings (``Prevailing
View``, ``Counterarguments``, ``Minority View``, ``What to Watch``; ATX or setext, compared without
the emphasis, numbering, emoji and punctuation around their words: :func:`headings.heading_key`)
and a References heading over what a brief holds besides (:func:`recognition.holds_brief_evidence`),
or claim sections that cite without one (:func:`recognition._claim_citations`); a file longer than
the engine's sniff window is read whole when its start holds claim-section headings
(:func:`recognition.opens_a_brief`), and a file the kind's ``include`` names is a brief whatever
it holds (:meth:`Briefs.declared`). Each brief is
parsed once with markdown-it-py (``commonmark`` preset, no linkify) into one :class:`Brief` unit:
sections (each up to the next heading of its level or a higher one) with their bullets (every list
item that shows something, read from all its own blocks: paragraphs, HTML blocks, blockquotes,
headings, code blocks), each bullet's ``[N]`` markers (markers in code spans, code blocks,
code-like HTML elements, links and HTML comments are not citations) and claim (its words, without
link destinations, URLs, HTML or code: :func:`claim_prose` of each block of prose), the References
entries (§7.2's form as generators render it: :func:`references.read_reference`), and the stored
citation objects each marker resolves to, from the sidecar ``<stem>.citations.json`` (or
``<name>.citations.json``) or from the SQLite evidence store named by ``evidence-store``
(:mod:`resolution`).

This module holds the model (:class:`Brief` and its parts), the Markdown reader (:func:`read_brief`,
which reads a plain brief with :mod:`plain_reader` and a bullet's inline spans with :mod:`inline`)
and the kind, :data:`KIND`.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from pytest_citations.core import globs, markdown_text
from pytest_citations.core.suppressions import markdown_directives
from pytest_citations.discovery import head_fills_window
from pytest_citations.kinds import Reported
from pytest_citations.kinds.briefs.headings import abstain_sections, heading_key, heading_titles
from pytest_citations.kinds.briefs.inline import (
    _FOOTNOTE_REFERENCE,
    _MARKER_TEXT,
    _blank_spans,
    _code_elements,
    _consumed_spans,
    _entity_characters,
    _in_content,
    _inline_pieces,
    _innermost,
    _markdown,
    _not_claimed,
    _outside,
    _swallowed_why,
)
from pytest_citations.kinds.briefs.plain_reader import _plain_blocks
from pytest_citations.kinds.briefs.recognition import (
    ABSTAIN_PREFIXES,
    ABSTAIN_STATUS,
    _is_brief,
    looks_like_brief,
    may_be_brief,
    names_a_brief,
    opens_a_brief,
)
from pytest_citations.kinds.briefs.references import Reference, read_reference
from pytest_citations.kinds.briefs.resolution import _load_registry, _load_sidecar, _load_store
from pytest_citations.rules import Option

CLAIM_SECTIONS = ["Prevailing View", "Counterarguments", "Minority View", "What to Watch"]
SECTION_KEYS = ("prevailing", "counter", "minority", "watch")  # §8's names, in the order above
ABSTAIN_MARKER = "[Insufficient evidence to support this claim]"
REQUIRED_FIELDS = ("id", "source_id", "publisher", "doc_id", "chunk_id", "url", "title", "published_at", "fetched_at")
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


def is_abstain(text: str, prefixes: list[str]) -> bool:
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")) or "]" in text[1:-1]:
        return False
    inner = text[1:-1].strip().casefold()
    return any(inner.startswith(prefix.casefold()) for prefix in prefixes)


_NEWLINE = re.compile("\n")
# What can make a ``[N]`` of a bullet's source something other than a marker in its inline text:
# an inline link, an autolink or HTML, an escape, an entity, a code span (link reference
# definitions are checked apart).
_INLINE_SYNTAX = re.compile(r"\]\(|[<\\`]|&(?:#|\w+;)")


# A bare URL, which a reader (and GitHub, which links it) takes for an address, not for words.
_BARE_URL = re.compile(r"\b(?:https?://|ftp://|www\.)[^\s<]*", re.I)


def claim_prose(content: str, env: dict[str, Any]) -> str:
    """``content`` (a bullet's inline Markdown, read with the brief's parse ``env``) with what a
    reader does not read as its claim blanked, offsets and newlines kept: link destinations and
    titles and the brackets around link text, reference labels, images, autolinks and bare URLs,
    HTML tags and comments, code spans, footnote references (``[^1]``). A link's text stays (it is
    read), unless it is a lone ``[N]`` that a definition turned into a link (B306 reports it; it
    states no number). An entity (``&#160;``) is the character it stands for, padded with blanks."""
    claim = content
    if env.get("references") or _INLINE_SYNTAX.search(content):
        pieces = _inline_pieces(content, env)
        claim = _blank_spans(content, _not_claimed(content, pieces))
        if "<" in content:
            claim = _blank_spans(claim, _code_elements(content))
        if "&" in content:
            claim = _entity_characters(claim, content, pieces)
    if "[^" in claim:
        claim = _FOOTNOTE_REFERENCE.sub(lambda m: markdown_text.blank(m.group()), claim)
    if "://" in claim or "www." in claim.lower():
        claim = _BARE_URL.sub(lambda m: markdown_text.blank(m.group()), claim)
    return claim


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
    markers = cast("re.Match[str]", _CONTAINER_MARKS.match(lines))  # (the pattern matches an empty start too)
    return lines[markers.end() :]


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
            for offset, entry_line in enumerate(text[start:line_span(token.map[0], token.map[1])[1]].split("\n")):
                entry_line = entry_line.rstrip("\r")
                found = _ENTRY_START.match(entry_line)
                if found:
                    body = entry_line[found.end() :].rstrip(" \t")
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
        bullet = Bullet(current.key, len(current.bullets), line, col, item_start, item_end, block, markers, False, env,
                        ((block, True),) if code else ())
        held[1] = bullet
        current.bullets.append(bullet)
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


def _read_as(lost: list[Marker], content: str, source: str, source_start: int, env: dict[str, Any]) -> list[str]:
    """What Markdown reads each of the ``lost`` candidates of a token as, instead of a marker
    (B306 says it): the innermost piece of the token's inline parse holding it."""
    positions = _in_content(source, source_start, content, [candidate.start for candidate in lost])
    known = [position for position in positions if position is not None]
    pieces = dict(zip(known, _innermost(_inline_pieces(content, env), known), strict=True))
    definitions = env.get("references", {})
    return [_swallowed_why(content, p, pieces[p], definitions) if p is not None else "a link" for p in positions]


def _line_col(line_starts: list[int], offset: int) -> tuple[int, int]:
    index = bisect.bisect_right(line_starts, offset) - 1
    return index + 1, offset - line_starts[index] + 1


class Briefs:
    name = "briefs"
    description = "Markdown synthesis briefs whose claim bullets cite stored evidence"
    include: tuple[str, ...] = ()
    sniff_include = ("**/*.md",)
    # A README beside the briefs describes them: even where `include` names it, its content decides.
    by_content_only = ("README.md",)
    options: Mapping[str, Option] = {
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
        return head_fills_window(head) and opens_a_brief(head, CLAIM_SECTIONS)

    def sniff_long(self, head: str, text: Iterable[str]) -> bool:
        """Whether a file whose head :meth:`sniff` does not claim is a brief past it: a head that
        fills the window may be the start of a brief whose claim sections all lie further on
        (pages of background, a long HTML comment). Its ``text``, read on from the start, is
        searched for two claim-section headings (:func:`recognition.names_a_brief`), a bounded
        pass that stops at the first that shows them; the whole file is then held to the rule of
        every brief when it is read (:meth:`units`)."""
        return head_fills_window(head) and names_a_brief(text, CLAIM_SECTIONS)

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

    def web_citations(self, unit, ctx):
        """The URLs the brief's citation objects cite, for the online rules (:mod:`.web`)."""
        from pytest_citations.kinds.briefs.web import web_citations

        return web_citations(unit) if isinstance(unit, Brief) else ()


KIND = Briefs()
