"""What CommonMark reads inside a bullet's text: the spans its inline rules consume (code
spans, links, images, autolinks, HTML tags) and its entities, found by one inline parse of each
content per brief (:func:`_inline_pieces`, with the one parser of the run, :func:`_markdown`); the
parts of them that hold no words of a claim, and the characters the entities stand for; and what a
``[N]`` one of them consumed is read as (B306)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from pytest_citations.core import markdown_text

# A marker number has at most 9 ASCII digits: ``[`` + 5000 digits + ``]`` is text, not a marker
# (``int`` refuses over 4300 digits), and fullwidth digits such as ``[３]`` are never markers.
_MARKER_TEXT = re.compile(r"\[([0-9]{1,9})\]")


# The inline rules that can consume a ``[``: what they consume is never a marker.
_CONSUMING_RULES = ("backticks", "link", "image", "autolink", "html_inline")
# and the rule of entities (``&#160;``, ``&mdash;``), which a claim reads as the characters they stand for
_WATCHED_RULES = (*_CONSUMING_RULES, "entity")
_CONSUMED = "pytest_citations.consumed"  # the env key of an inline parse's consumed spans
# A GFM footnote reference (``[^1]``, ``[^note]``): a pointer to a note, no words of the claim. CommonMark
# reads it as text, or as a link where a footnote's definition (``[^1]: ...``) defines its label.
_FOOTNOTE_REFERENCE = re.compile(r"\[\^[^\]\s]+\]")


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
    for name in _WATCHED_RULES:
        ruler.at(name, _watched(name, ruler.__rules__[ruler.__find__(name)].fn))
    return md


_PIECES = "pytest_citations.pieces"  # the env key of the pieces :func:`_inline_pieces` found, by content


def _inline_pieces(content: str, env: dict[str, Any]) -> list[tuple[str, int, int, int]]:
    """(rule, start, end, text end) of each span of ``content`` (an inline token's) that CommonMark
    reads as a code span, link, image, autolink, HTML tag or entity (``_watched``); a bullet's
    markers and its claim ask for the same content, which is parsed once per brief (``env`` is the
    brief's)."""
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
    return [(start, end) for name, start, end, _ in _inline_pieces(content, env) if name != "entity"]


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
    """The spans of ``pieces`` that hold no words of the claim: all of each but a link's text (and
    none of an entity, which is a character of the claim: :func:`_entity_characters`). A link whose
    text is a lone ``[N]`` or a footnote reference (``[^1]``, a link where a footnote's definition
    defines its label) holds none either."""
    for name, start, end, text_end in pieces:
        if name == "entity":
            continue
        if (name != "link" or text_end < 0 or _MARKER_TEXT.fullmatch(content, start, text_end + 1)
                or _FOOTNOTE_REFERENCE.fullmatch(content, start, text_end + 1)):
            yield start, end
        else:
            yield start, start + 1
            yield text_end, end


def _entity_characters(claim: str, content: str, pieces: list[tuple[str, int, int, int]]) -> str:
    """``claim`` (``content`` with what is no claim blanked) with each entity that is still there
    replaced by the character it stands for, padded with blanks to its length (offsets kept): a
    reader reads ``calm&#160;overall`` as two words and ``3&#37;`` as a percentage. The character
    goes next to the text it joins: at the entity's end when only the text after it does
    (``&#51;%``), else at its start (``3&#37;``). A blank or a line end it stands for is a blank,
    so that the claim keeps its lines."""
    parts: list[str] = []
    done = 0
    for name, start, end, _ in pieces:
        if name != "entity" or start < done or claim[start:end] != content[start:end]:
            continue
        character = _entity_character(content[start:end])
        if character.isspace():
            character = " "
        padding = " " * (end - start - len(character))
        before = claim[start - 1 : start] if start > done or not parts else parts[-1][-1:]
        joins_after = claim[end : end + 1].strip() != "" and before.strip() == ""
        parts += [claim[done:start], *((padding, character) if joins_after else (character, padding))]
        done = end
    return "".join(parts) + claim[done:] if parts else claim


def _entity_character(entity: str) -> str:
    """What an entity CommonMark read (``&#160;``, ``&#x2014;``, ``&mdash;``) stands for, as its
    entity rule decodes it: a code point that is no character is U+FFFD."""
    from markdown_it.common.entities import entities
    from markdown_it.common.utils import fromCodePoint, isValidEntityCode

    if entity[1] != "#":
        return entities[entity[1:-1]]
    code = int(entity[3:-1], 16) if entity[2] in "xX" else int(entity[2:-1])
    return fromCodePoint(code) if isValidEntityCode(code) else "\ufffd"


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


# What a ``[N]`` consumed by an inline rule other than a link's is read as.
_CONSUMED_AS = {
    "autolink": "part of an autolink (a URL in angle brackets)",
    "html_inline": "part of an HTML tag",
    "image": "part of an image",
    "backticks": "part of a code span",
}


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
