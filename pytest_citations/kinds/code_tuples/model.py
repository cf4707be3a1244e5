"""code tuples: ``{artifact_id, content_hash, lines}`` citations of repository files
(rlm-citation-tuple.schema.json), in JSON, JSONL and inline in Markdown.

- JSON: the whole document is read once; every object of a tuple's shape (the schema's keys alone,
  each of a tuple's form: :func:`~pytest_citations.kinds.code_tuples.json_tuples.has_tuple_shape`),
  and every object under one of the ``tuple-keys`` (default ``citations``), at any depth, is a tuple.
- JSONL: one JSON document per line, searched the same way; a bad line is R401 and the rest is read.
- Markdown: the inline form ``[artifact_id@content_hash, L42-58]``, ``[artifact_id@content_hash]``
  and ``[artifact_id, L88]``. The schema's ``x-inline-form`` regex is not used (it puts ``, L88``
  into the path of a path-only citation, matches ``[1]`` and ``[Paywall]`` and rejects uppercase
  hashes); the intended grammar is parsed instead, and bracket text is a tuple only when it has a
  tuple's shape: an artifact id that looks like a path, then an ``@`` and a hash (hex digits), or a
  line part as the schema writes it (``L88``, ``L42-58``). Any other bracket is prose: ``[N/A]``,
  ``[docs/guide.md]``, ``[actions/checkout@v4]``, ``CI [0.0pp, 0.0pp]``, ``[Get-Config.ps1, line
  42]``. Fenced code, code spans, HTML comments and YAML front matter are skipped. A file whose
  head ends inside a bracket that may still be a tuple (padded past the head) is claimed too.

Each tuple is one :class:`Tuple` unit. Its verdict (FRESH, STALE, UN-VERSIONED, MISSING, or a path
outside the root) is computed once, from the cited file's raw bytes read through ``sources``
(:mod:`~pytest_citations.kinds.code_tuples.verdicts`).

This module holds the unit (:class:`Tuple` and its :class:`Part`) and the kind, :data:`KIND`; the
inline grammar is in :mod:`~pytest_citations.kinds.code_tuples.inline`, the JSON reader in
:mod:`~pytest_citations.core.json_positions` and
:mod:`~pytest_citations.kinds.code_tuples.json_tuples`, and the git history of a cited file in
:mod:`~pytest_citations.kinds.code_tuples.history`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pytest_citations.core import git_history, jsonlines
from pytest_citations.core.json_positions import plain, scan_json
from pytest_citations.core.suppressions import markdown_directives
from pytest_citations.discovery import head_fills_window
from pytest_citations.kinds import Reported

# the run-wide index git.head (R408's history lookups consult it), declared beside the history it
# serves and held here, where pytest_citations.builtins finds a kind package's indexes
from pytest_citations.kinds.code_tuples.history import head_commit as head_commit
from pytest_citations.kinds.code_tuples.inline import MAY_BE_A_TUPLE, ends_inside_a_tuple, find_inline
from pytest_citations.kinds.code_tuples.json_tuples import find_json_tuples, head_holds_tuples
from pytest_citations.kinds.code_tuples.parse_rules import invalid_json
from pytest_citations.rules import Finding, Option

HASH = re.compile(r"[0-9a-f]{16}\Z")
ANY_CASE_HASH = re.compile(r"[0-9a-fA-F]{16}\Z")
LINES = re.compile(r"L([0-9]+)(?:-([0-9]+))?\Z")
_MAX_LINE_DIGITS = 18  # a longer line number is past the end of any file (and int() of thousands refuses)
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")
GIT_HISTORY = ("root", "enclosing", "off")


# -- the unit ---------------------------------------------------------------------------------------


@dataclass
class Part:
    """One field of a tuple as written: its value and where it is."""

    value: Any
    start: int  # character offset into the file text of the value (a JSON string's opening quote)
    end: int
    line: int
    col: int


@dataclass
class Tuple:
    """One code tuple: the JSON object or inline bracket, and its fields with positions."""

    form: str  # "json" or "inline"
    where: str  # the JSON path, or "inline"
    line: int
    col: int
    context: str
    data: Any  # the decoded object (JSON) or None (inline)
    artifact_id: Part | None
    content_hash: Part | None
    lines: Part | None
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)

    def finding(self, message: str, part: Part | None = None, fix=None) -> Finding:
        """A finding at ``part`` (else at the tuple), which shows that part's line: a JSON tuple
        written over several lines has its fields on lines of their own, which the rule runner
        then takes from the file's text."""
        if part is None or part.line == self.line:
            return Finding(message, self.line if part is None else part.line, self.col if part is None else part.col,
                           fix=fix, context=self.context)
        return Finding(message, part.line, part.col, fix=fix)

    @property
    def label(self) -> str:
        """How messages name the tuple: ``citations[1]`` in JSON, the bracket text inline."""
        return self.where

    @property
    def checkable(self) -> bool:
        """Whether the artifact id is a non-empty string, so the file can be looked at."""
        return self.artifact_id is not None and isinstance(self.artifact_id.value, str) and bool(self.artifact_id.value)

    def line_range(self) -> tuple[int, int] | None:
        """(start, end) of a well-formed ``lines``, or None; a number of more than
        :data:`_MAX_LINE_DIGITS` digits is read as the largest such number."""
        if self.lines is None or not isinstance(self.lines.value, str):
            return None
        match = LINES.match(self.lines.value)
        if match is None:
            return None
        start = _line_number(match.group(1))
        return start, _line_number(match.group(2)) if match.group(2) else start

    def hash_value(self) -> str | None:
        """The content hash, lowercased, when it is 16 hex digits in any case."""
        if self.content_hash is None or not isinstance(self.content_hash.value, str):
            return None
        value = self.content_hash.value
        return value.lower() if ANY_CASE_HASH.match(value) else None


def _line_number(digits: str) -> int:
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= _MAX_LINE_DIGITS else 10**_MAX_LINE_DIGITS


# -- the kind ---------------------------------------------------------------------------------------




class CodeTuples:
    name = "code-tuples"
    description = "code citation tuples {artifact_id, content_hash, lines} in JSON, JSONL and Markdown"
    include: tuple[str, ...] = ()
    sniff_include = ("**/*.json", "**/*.jsonl", "**/*.md", "**/*.markdown")
    options = {
        "tuple-keys": Option(list, ["citations"], "keys whose values are tuples (or lists of tuples)", items=str),
        "require-content-hash": Option(
            bool, False, "report a tuple without content_hash as an error (R410) instead of a warning (R409)"
        ),
        "git-history": Option(
            str, "root", "where STALE looks up history: root (the root is the checkout's top), enclosing (or a folder "
            "below it; the checkout's own history either way), off",
            choices=GIT_HISTORY,
        ),
        "git-max-commits": Option(int, git_history.DEFAULT_MAX_COMMITS, "commits searched per cited file"),
        "git-timeout": Option((int, float), git_history.DEFAULT_TIMEOUT, "seconds allowed per cited file's search"),
    }

    def sniff(self, head: str) -> bool:
        # JSON and Markdown share the sniff: the engine gives it the head only, not the name
        json_like = head.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")
        if json_like and head_holds_tuples(head):
            return True
        if any(True for _ in find_inline(head)):
            return True
        # A bracket the head's end cuts may be a tuple padded past it, in Markdown; a JSON head cut
        # inside its own brackets (a deep array, a long line) says nothing of the sort.
        return not json_like and head_fills_window(head) and ends_inside_a_tuple(head)

    def sniff_long(self, head: str, text: Iterable[str]) -> bool:
        """Whether a Markdown file whose head :meth:`sniff` does not claim may hold a tuple past it:
        a head that fills the window may be pages of prose before the first citation (a long
        review that cites its sources at its end). Its ``text``, read on from the start, is
        searched a piece at a time for what may be a tuple whatever surrounds it
        (:data:`MAY_BE_A_TUPLE`, linear and cheap); only when a piece holds one is the whole text
        searched for tuples as the kind reads them (a piece alone does not know whether a code
        block or a comment opened in an earlier one). (A JSON document's tuples are weighed by the
        head alone: large JSON data files are many, and read whole they would cost every run.)"""
        if head.lstrip("\ufeff \t\r\n")[:1] in ("{", "[") or not head_fills_window(head):
            return False
        pieces, may_hold = [], False
        for piece in text:
            pieces.append(piece)
            may_hold = may_hold or MAY_BE_A_TUPLE.search(piece) is not None
        return may_hold and any(True for _ in find_inline("".join(pieces)))

    def units(self, ctx) -> Iterator[Tuple | Reported]:
        rel = ctx.rel.lower()
        if rel.endswith(MARKDOWN_SUFFIXES):
            yield from self._markdown(ctx)
        elif rel.endswith(".jsonl"):
            yield from self._jsonl(ctx)
        else:
            yield from self._json(ctx)

    # -- Markdown

    def _markdown(self, ctx) -> Iterator[Tuple]:
        text = ctx.full_text()
        ctx.directives = markdown_directives(text)
        source = ctx.source
        line_text = functools.lru_cache(maxsize=1)(source.line_text)  # each line copied once, not once per tuple
        for found in find_inline(text):
            line, col = source.line_col(found.start)
            context = line_text(line)

            def part(value, start, length, line=line):
                part_line, part_col = source.line_col(start)
                return Part(value, start, start + length, part_line, part_col)

            yield Tuple(
                "inline",
                text[found.start : found.end],
                line,
                col,
                context,
                None,
                part(found.artifact_id, found.id_start, len(found.artifact_id)),
                part(found.hash, found.hash_start, len(found.hash)) if found.hash is not None else None,
                part(found.lines, found.lines_start, len(found.lines)) if found.lines is not None else None,
            )

    # -- JSON and JSONL

    def _tuples(self, text: str, base: int, line_col, context, ctx) -> Iterator[Tuple]:
        tuple_keys = tuple(ctx.kind_options["tuple-keys"])
        for where, node in find_json_tuples(scan_json(text), tuple_keys):
            line, col = line_col(base + node.start)
            parts: dict[str, Part] = {}
            if isinstance(node.value, dict):
                for key in ("artifact_id", "content_hash", "lines"):
                    if key in node.value:
                        value = node.value[key][1]
                        part_line, part_col = line_col(base + value.start)
                        parts[key] = Part(value.value, base + value.start, base + value.end, part_line, part_col)
            yield Tuple(
                "json", where, line, col, context(line), plain(node),
                parts.get("artifact_id"), parts.get("content_hash"), parts.get("lines"),
            )

    def _json(self, ctx) -> Iterator[Tuple | Reported]:
        loaded = jsonlines.document(ctx, invalid_json)
        if isinstance(loaded, Reported):
            yield loaded
            return
        source = ctx.source
        yield from self._tuples(source.text, 0, source.line_col, functools.lru_cache(maxsize=1)(source.line_text), ctx)

    def _jsonl(self, ctx) -> Iterator[Tuple | Reported]:
        for item in jsonlines.records(ctx, invalid_json):
            if isinstance(item, Reported):
                yield item
                continue
            text, number, offset = item.line.text, item.line.number, item.line.offset
            yield from self._tuples(
                text, offset, lambda at, number=number, offset=offset: (number, at - offset + 1), lambda _, t=text: t, ctx
            )


KIND = CodeTuples()
