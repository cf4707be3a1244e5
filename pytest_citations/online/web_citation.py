"""The unit of the online rules: one URL an artifact cites, with what the artifact says of it.

A kind that cites web pages gives its units' web citations through ``web_citations(unit, ctx)``;
the rule runner asks for them only in an online run (:mod:`pytest_citations.online.run`). This
module imports nothing of the fetching machinery, so that the rules can be listed and documented
offline.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from pytest_citations.core.diagnostics import Edit, Fix


@dataclass(frozen=True)
class RecordedCheck:
    """What a ``citation.v1`` record says its producer found when it fetched the URL, and how to
    find its fields in its line, so that ``--fix`` can write what the live page says now."""

    status: object  # the record's ``status`` as written (any JSON value)
    http_status: object  # its ``http_status``, or None when absent
    line_offset: int  # where the record's line starts in the file
    span_of: Callable[[str], tuple[int, int] | None]  # key -> its value's span within the line, when asked

    def fix(self, status: str, http_status: int | None, checked_at: str, text: str) -> Fix | None:
        """The edits of the record's line ``text`` that write ``status``, ``http_status`` and
        ``checked_at``: each replaces its value, or is added before the closing brace;
        ``http_status`` is taken out when there is no HTTP answer to write (the spec makes it
        optional, a number when present). None when the line's shape leaves no place for an edit."""
        edits: list[Edit] = []
        added: list[str] = []
        for key, value in (("status", status), ("checked_at", checked_at), ("http_status", http_status)):
            span = self.span_of(key)
            if span is None:
                if value is not None:
                    added.append(f", {json.dumps(key)}: {json.dumps(value)}")
            elif value is not None:
                edits.append(Edit(self.line_offset + span[0], self.line_offset + span[1], json.dumps(value)))
            else:
                member = _member_span(text, span)
                if member is None:
                    return None
                edits.append(Edit(self.line_offset + member[0], self.line_offset + member[1], ""))
        if added:
            stripped = text.rstrip()
            if not stripped.endswith("}"):
                return None
            end = self.line_offset + len(stripped) - 1
            edits.append(Edit(end, end, "".join(added)))
        return Fix("write what the page answers now into status, http_status and checked_at",
                   tuple(sorted(edits, key=lambda e: e.start)))


def _member_span(text: str, value: tuple[int, int]) -> tuple[int, int] | None:
    """The span of the whole member (key, colon, value) whose value spans ``value`` in the JSON
    object ``text``, with one of the commas around it, so that taking it out leaves valid JSON."""
    colon = text.rfind(":", 0, value[0])
    key_end = text.rfind('"', 0, colon)
    key_start = key_end - 1
    while key_start >= 0 and not (text[key_start] == '"' and _unescaped(text, key_start)):
        key_start -= 1
    if colon < 0 or key_end < 0 or key_start < 0:
        return None
    before = len(text[:key_start].rstrip())
    if before > 0 and text[before - 1] == ",":
        return before - 1, value[1]
    after = value[1] + len(text[value[1]:]) - len(text[value[1]:].lstrip())
    if after < len(text) and text[after] == ",":
        return key_start, after + 1
    return key_start, value[1]


def _unescaped(text: str, at: int) -> bool:
    """Whether the character at ``at`` is not escaped by an odd run of backslashes before it."""
    run = 0
    while at - run - 1 >= 0 and text[at - run - 1] == "\\":
        run += 1
    return run % 2 == 0


@dataclass(frozen=True)
class WebCitation:
    """One cited URL.

    ``what`` names the citing thing in messages ("the record", "citation [3]", "the citation at
    response.content[1].citations[0]"); ``quote`` is text the artifact says the page holds;
    ``paywall_policy`` and ``source_id`` are the source registry's word on the page's source (briefs);
    ``recorded`` is what a ``citation.v1`` record says of its own fetch."""

    url: str
    line: int
    col: int
    what: str
    quote: str | None = None
    context: str | None = None
    paywall_policy: str | None = None
    source_id: str | None = None
    recorded: RecordedCheck | None = None
