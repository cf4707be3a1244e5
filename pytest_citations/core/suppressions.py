"""Inline suppressions: in Markdown ``<!-- citations: disable-next-line CODE [CODE...] -- reason -->``
and ``<!-- citations: disable-file CODE ... -->``; in YAML front matter the same words in a comment,
``# citations: disable-next-line CODE -- reason``.

Kinds collect directives with :func:`markdown_directives` (which also reads front-matter comments
when given the front matter's span); the engine applies them and reports every directive (or code
within one) that suppressed nothing as C007.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from pytest_citations.core.patterns import AlwaysMatches

# Where a directive starts; what follows, up to the end of its comment (the first "-->" in
# Markdown, the end of the line in YAML), is read by :func:`_markdown_comments` and
# :func:`_yaml_comments`, which look at each character a bounded number of times: a pattern for the
# whole directive backtracks on unclosed heads and long runs of spaces, which an artifact may hold.
_MARKDOWN_HEAD = re.compile(r"<!--\s*citations:\s*(?P<action>disable-next-line|disable-file)")
_YAML_HEAD = re.compile(r"#[ \t]*citations:[ \t]*(?P<action>disable-next-line|disable-file)")
_MARKDOWN_CODES = cast("AlwaysMatches", re.compile(r"[A-Za-z0-9,\s]*"))
_YAML_CODES = cast("AlwaysMatches", re.compile(r"[A-Za-z0-9, \t]*"))
_SPACES = cast("AlwaysMatches", re.compile(r"\s*"))
_CODE = re.compile(r"^[A-Z][0-9]{0,3}$")

# An internal error: a file was not fully checked. Nothing that comes with the checkout silences it
# (a suppression comment, ``per-file-ignores`` or ``ignore`` in its settings, a baseline); only
# ``--ignore C006`` on the command line does (docs/configuration.md, "What can never be silenced").
INTERNAL_ERROR = "C006"


@dataclass
class Directive:
    line: int
    col: int
    action: str
    codes: tuple[str, ...]
    reason: str
    used: set[str] = field(default_factory=set)

    def covers(self, code: str, line: int) -> str | None:
        """The prefix in this directive that suppresses ``code`` on ``line``, if any (never for an
        internal error)."""
        if code == INTERNAL_ERROR or (self.action == "disable-next-line" and line != self.line + 1):
            return None
        for prefix in self.codes:
            if code.startswith(prefix):
                return prefix
        return None


class _NextIndex:
    """Where ``needle`` next occurs in ``text`` at or after a position, or ``end`` when it does
    not; asked of positions that never decrease, it searches each part of the text once."""

    def __init__(self, text: str, needle: str, end: int) -> None:
        self.text, self.needle, self.end = text, needle, end
        self.asked, self.found = -1, -1

    def at_or_after(self, position: int) -> int:
        if self.asked < 0 or self.found < position:
            found = self.text.find(self.needle, position, self.end)
            self.asked, self.found = position, self.end if found < 0 else found
        return self.found


def _codes_and_rest(text: str, start: int, end: int, codes_pattern: AlwaysMatches) -> tuple[str, int] | None:
    """The codes after a directive's action (``text[start:end]`` is what follows it in its
    comment) and where the rest begins; None when no space follows the action or no code does."""
    if start >= end or not text[start].isspace():
        return None
    rest = min(codes_pattern.match(text, start).end(), end)
    return (text[start:rest], rest) if rest - start >= 2 else None


def _markdown_comments(text: str) -> Iterator[tuple[int, str, str, str]]:
    """(start, action, codes, reason) of each ``<!-- citations: ACTION CODES [-- REASON] -->``:
    codes may run over lines, a reason may not, and the comment ends at its first ``-->``."""
    closes, newlines = _NextIndex(text, "-->", len(text)), _NextIndex(text, "\n", len(text))
    spaces_before: dict[int, int] = {}  # a comment's end -> where the spaces before it start
    position = 0
    while (head := _MARKDOWN_HEAD.search(text, position)) is not None:
        close = closes.at_or_after(head.end())
        if close == len(text):
            return  # no comment after this head ends: none after the next heads does either
        found = _codes_and_rest(text, head.end(), close, _MARKDOWN_CODES)
        reason = None if found is None else _markdown_reason(text, found[1], close, newlines, spaces_before)
        if found is None or reason is None:
            position = head.start() + 1
            continue
        yield head.start(), head.group("action"), found[0], reason
        position = close + 3


def _markdown_reason(text: str, rest: int, close: int, newlines: _NextIndex, spaces_before: dict[int, int]) -> str | None:
    """The reason of a comment whose codes end at ``rest`` and that ends at ``close``: empty
    without one, None when what follows the codes is no ``-- reason`` on one line."""
    if rest == close:
        return ""
    if not text.startswith("--", rest, close):
        return None
    begin = _SPACES.match(text, rest + 2).end()  # (whitespace runs up to the "-->" at most)
    if close not in spaces_before:
        spaces_before[close] = _spaces_before(text, close)
    stop = max(begin, spaces_before[close])
    return text[begin:stop] if newlines.at_or_after(begin) >= stop else None


def _spaces_before(text: str, end: int) -> int:
    """Where the run of whitespace that ends at ``end`` starts."""
    start = end
    while start > 0 and text[start - 1].isspace():
        start -= 1
    return start


def _yaml_comments(text: str, start: int, end: int) -> Iterator[tuple[int, str, str, str]]:
    """(start, action, codes, reason) of each ``# citations: ACTION CODES [-- REASON]`` in
    ``text[start:end]``: it runs to the end of its line, a carriage return only just before it."""
    newlines, returns = _NextIndex(text, "\n", end), _NextIndex(text, "\r", end)
    position = start
    while (head := _YAML_HEAD.search(text, position, end)) is not None:
        line_end = newlines.at_or_after(head.end())
        body_end = line_end - 1 if line_end > head.end() and text[line_end - 1] == "\r" else line_end
        found = None if returns.at_or_after(head.end()) < body_end else _codes_and_rest(text, head.end(), body_end, _YAML_CODES)
        reason: str | None = None
        if found is not None:
            codes, rest = found
            if rest == body_end:
                reason = ""
            elif text.startswith("--", rest, body_end):
                reason = text[rest + 2 : body_end].strip(" \t")
        if reason is None:
            position = head.start() + 1
            continue
        yield head.start(), head.group("action"), codes, reason
        position = line_end


def _directives(text: str, found: Iterator[tuple[int, str, str, str]]) -> list[Directive]:
    directives = []
    # the line and where it starts, counted on from the last directive (not from the top for each:
    # a file may hold thousands)
    line, line_start, counted = 1, 0, 0
    for start, action, codes_text, reason in found:
        codes = tuple(c for c in re.split(r"[\s,]+", codes_text.strip().upper()) if _CODE.match(c))
        if not codes:
            continue
        line += text.count("\n", counted, start)
        line_start = text.rfind("\n", counted, start) + 1 or line_start
        counted = start
        directives.append(Directive(line, start - line_start + 1, action, codes, reason.strip()))
    return directives


def markdown_directives(text: str, front_matter: tuple[int, int] | None = None) -> list[Directive]:
    """Directives in HTML comments, and in YAML comments within ``front_matter`` (a text span)."""
    found = _directives(text, _markdown_comments(text))
    if front_matter is not None:
        found += _directives(text, _yaml_comments(text, *front_matter))
    return sorted(found, key=lambda d: (d.line, d.col))


def apply(diagnostics, directives: list[Directive]):
    """Split diagnostics into (kept, suppressed), marking which directive codes were used."""
    kept, suppressed = [], []
    for diagnostic in diagnostics:
        for directive in directives:
            prefix = directive.covers(diagnostic.code, diagnostic.line)
            if prefix:
                directive.used.add(prefix)
                suppressed.append(diagnostic)
                break
        else:
            kept.append(diagnostic)
    return kept, suppressed


def unused(directives: list[Directive]):
    """(directive, code) for every code in a directive that suppressed nothing."""
    for directive in directives:
        for code in directive.codes:
            if code not in directive.used:
                yield directive, code
