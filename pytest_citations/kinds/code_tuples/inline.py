"""The inline form of a code tuple in Markdown prose: ``[artifact_id@content_hash, L42-58]``,
``[artifact_id@content_hash]`` and ``[artifact_id, L88]``, parsed by its intended grammar
(:func:`parse_inline`) wherever a bracket in prose has a tuple's shape (:func:`find_inline`); any
other bracket is prose."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from pytest_citations.core import markdown_text

if TYPE_CHECKING:
    from pytest_citations.core.patterns import AlwaysMatches

# A bracket that is not escaped (a backslash before it that is itself escaped does not count), not
# the second half of a reference link, not link text; of any length (padding must not hide a
# tuple), over one line end at most (a paragraph wrapped inside a tuple), found in linear time
# since its body holds no bracket.
_BRACKET = re.compile(r"(?:(?<![\\\]])|(?<=(?<!\\)\\\\))\[(?P<body>[^\[\]\n]+(?:\n[^\[\]\n]+)?)\](?![(\[])")
_ENDS_ID = r"\s@,\[\]"  # characters that end an artifact id in a bracket (a class's inside)
_NOT_IN_ID_CLASS = r"\s()<>\"'`|*?{}\\"  # characters no artifact id holds (see looks_like_path)
_BODY = re.compile(  # matched against a body without its trailing white space (padding)
    rf"(?P<id>[^{_ENDS_ID}]+)"
    r"(?:@(?P<hash>[^\s,\[\]]*))?"
    r"(?:[ \t]*,\s*(?P<lines>[^\[\]]*))?\Z"
)
_NOT_IN_ID = re.compile(f"[{_NOT_IN_ID_CLASS}]")
_EXTENSION = re.compile(r"[^.]\.[A-Za-z0-9]{0,9}[A-Za-z][A-Za-z0-9]{0,9}\Z|\A\.[A-Za-z0-9_-]*[A-Za-z][A-Za-z0-9_-]*\Z")
# What makes bracket text a tuple besides a path-like id: a hash (16 hex digits give or take two,
# or 16 letters and digits: a hash with a typo), or a line part as the schema writes it (L42,
# L42-58). A git commit (7 to 12 hex digits abbreviated, 40 or 64 in full) is not a tuple's hash:
# [pallets/flask@1a2b3c4] is a commit of a repository, as GitHub writes it. Prose names lines in
# its own words ([Get-Config.ps1, line 42], [src/Parser.cs, l3]); beside a hash, such a line part
# is a malformed one (R403).
HASH_SHAPE = re.compile(r"[0-9A-Fa-f]{14,18}\Z|[0-9A-Za-z]{16}\Z")
# What may be a tuple anywhere in Markdown, whatever surrounds it (a code block, a comment): a
# bracket that opens an id and then a hash (``@...``) or a line part (``, L<n>``, the comma perhaps
# at a line's end). Its search is linear in the text (an id ends at a bracket, so no two brackets
# look at the same characters); what it finds is weighed on the whole text when the file is read.
MAY_BE_A_TUPLE = re.compile(rf"\[[^{_ENDS_ID}]+(?:@[0-9A-Za-z]|,\s*L[0-9])")
LINES_SHAPE = re.compile(r"L[0-9]+(?:-[0-9]+)?\Z")


def looks_like_path(artifact_id: str) -> bool:
    """Whether bracket text names a project file: no spaces or markup, a letter, and a ``/`` or a
    file extension (so ``[1]``, ``[Paywall]``, ``[e.g.]`` and ``[x]`` are not citations)."""
    if not artifact_id or artifact_id.startswith(("^", "#", "!")) or "://" in artifact_id:
        return False
    if _NOT_IN_ID.search(artifact_id) or not re.search(r"[A-Za-z_]", artifact_id):
        return False
    if "/" in artifact_id.strip("/") or artifact_id.startswith("/"):
        return True
    return _EXTENSION.search(artifact_id) is not None


@dataclass(frozen=True)
class InlineMatch:
    """One inline tuple in a text: offsets of the whole bracket and of each part."""

    start: int
    end: int
    artifact_id: str
    id_start: int
    hash: str | None
    hash_start: int
    lines: str | None
    lines_start: int


def parse_inline(body: str, offset: int = 0) -> InlineMatch | None:
    """The tuple in bracket text ``body`` (without the brackets), or None if it is not one.

    ``offset`` is where ``body`` starts in its text. Bracket text is a tuple when it has a tuple's
    shape (a path-like id, then a hash or a line part: :data:`HASH_SHAPE`, :data:`LINES_SHAPE`);
    its other part may then be malformed, for the rules to report.
    """
    match = _BODY.match(body.rstrip())
    if match is None or not looks_like_path(match.group("id")):
        return None
    hash_text, lines = match.group("hash"), match.group("lines")
    if not ((hash_text is not None and HASH_SHAPE.match(hash_text)) or (lines is not None and LINES_SHAPE.match(lines))):
        return None
    return InlineMatch(
        offset - 1,
        offset + len(body) + 1,
        match.group("id"),
        offset + match.start("id"),
        hash_text,
        offset + match.start("hash") if hash_text is not None else -1,
        lines,
        offset + match.start("lines") if lines is not None else -1,
    )


# What every inline tuple leaves in the raw text: its ``[`` and artifact id, whose characters are
# neither space nor markup (see _BODY and looks_like_path) and which holds a "/" or a "." (a path
# or a file extension). Blanking non-prose keeps offsets and turns characters into spaces only, so
# text without this has no tuple, and is not blanked or scanned (most Markdown and JSON files).
_MAY_HOLD_INLINE = re.compile(rf"\[[^{_ENDS_ID}{_NOT_IN_ID_CLASS}]*[./]")


_BLANKS = cast("AlwaysMatches", re.compile(r"[^\S\n]*"))
# A bracket's opening as _BRACKET takes one (not escaped, not the second half of a reference link),
# and the start of a line part as the schema writes it, cut anywhere (L, L4, L42-, L42-5).
_OPENING = re.compile(r"(?:(?<![\\\]])|(?<=(?<!\\)\\\\))\[")
_LINES_START = re.compile(r"L(?:[0-9]+(?:-[0-9]*)?)?\Z")
# What the rest of the file may close into something the prose blanks (an HTML comment, a code span,
# raw HTML), so that the bracket's text after it is padding: from its start to the head's end. No
# artifact id holds one of these characters.
_HIDDEN_ONCE_CLOSED = re.compile(r"[<`].*", re.DOTALL)


def find_inline(text: str) -> Iterator[InlineMatch]:
    """Every inline tuple in Markdown ``text``, in order."""
    if _MAY_HOLD_INLINE.search(text) is None:
        return iter(())
    return _scan_inline(text)


def _scan_inline(text: str) -> Iterator[InlineMatch]:
    prose = markdown_text.prose(text)
    # where the blanks that start the bracket's line end, found once per line: a line may hold
    # thousands of brackets, and looking back to its start for each would take quadratic time
    scanned, blank_to = 0, _BLANKS.match(prose).end()
    for bracket in _BRACKET.finditer(prose):
        newline = prose.rfind("\n", scanned, bracket.start())
        scanned = bracket.start()
        if newline != -1:
            blank_to = _BLANKS.match(prose, newline + 1).end()
        if prose[bracket.end() : bracket.end() + 1] == ":" and blank_to >= bracket.start():
            continue  # a link reference definition
        found = parse_inline(bracket.group("body"), bracket.start("body"))
        if found is not None:
            yield found


def ends_inside_a_tuple(head: str) -> bool:
    """Whether Markdown ``head``, the start of a longer file, ends inside a bracket that the rest of
    the file may close as a tuple: its end cuts the bracket's artifact id, or the bracket so far
    is a path-like id, then a hash, padding or a line part as the schema writes it (begun or not).
    Padding is invisible once rendered, and a tuple padded past the head is a tuple all the same.

    Linear in the head, and the prose is blanked only when one of its last two lines holds a
    ``[`` (a bracket holds one line end at most)."""
    last_line = head.rfind("\n")
    if "[" not in head[head.rfind("\n", 0, max(last_line, 0)) + 1 :]:
        return False
    prose = markdown_text.prose(head)
    start = prose.rfind("[")
    if start == -1 or _OPENING.match(prose, start) is None:
        return False
    body = prose[start + 1 :].removesuffix("\ufffd")  # a character cut by the head's end
    if "]" in body or body.count("\n") > 1 or body.startswith("\n"):
        return False
    if not body:
        return True  # the head ends at the bracket's opening
    body = _HIDDEN_ONCE_CLOSED.sub(" ", body, count=1)
    match = _BODY.match(body.rstrip())
    if match is None:
        return False
    artifact_id, hash_text, lines = match.group("id"), match.group("hash"), match.group("lines")
    padded = body != body.rstrip()
    if hash_text is None and lines is None and not padded:
        return _NOT_IN_ID.search(artifact_id) is None  # the head ends in the artifact id
    if not looks_like_path(artifact_id):
        return False
    if hash_text is not None or not lines:
        return True
    return (LINES_SHAPE if padded else _LINES_START).match(lines) is not None
