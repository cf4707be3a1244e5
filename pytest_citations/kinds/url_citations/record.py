"""One ``citation.v1`` record of a ``citations.jsonl`` file: the unit the url-citations rules check,
with the columns of its top-level values found on first use."""

from __future__ import annotations

import json
from typing import Any

from pytest_citations.core.sources import Line
from pytest_citations.rules import Finding

_KEY_SCANNER = json.JSONDecoder()


class Record:
    """One ``citation.v1`` record: its line, where the line starts, and the decoded object.

    A plain class with slots, built from the :class:`~pytest_citations.core.sources.Line` it was read
    from: one is made per line of files with millions of lines.
    """

    __slots__ = ("line", "offset", "text", "data", "_spans", "memo")

    def __init__(self, line: Line, data: dict[str, Any]) -> None:
        self.line = line.number
        self.offset = line.offset
        self.text = line.text
        self.data = data
        self._spans: dict[str, tuple[int, int]] | None = None
        self.memo: dict[Any, Any] = {}  # values several rules derive

    def __repr__(self) -> str:
        return f"Record(line={self.line}, data={self.data!r})"

    def value_span(self, key: str) -> tuple[int, int] | None:
        """Character span of a top-level key's value within the line, found on first use."""
        if self._spans is None:
            self._spans = _top_level_spans(self.text)
        return self._spans.get(key)

    def col(self, key: str, index: int | None = None) -> int:
        """1-based column of a top-level key's value, or of element ``index`` of that array."""
        span = self.value_span(key)
        if span is None:
            return 1
        if index is None:
            return span[0] + 1
        starts = self.memo.get(("element starts", key))
        if starts is None:  # every element's start found in one scan, however many findings ask
            starts = self.memo[("element starts", key)] = _element_starts(self.text, span[0])
        return (starts[index] if 0 <= index < len(starts) else span[0]) + 1

    def finding(self, message: str, key: str | None = None, fix=None, index: int | None = None) -> Finding:
        col = self.col(key, index) if key else 1
        return Finding(message, self.line, col, fix=fix, context=self.text)


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _element_starts(text: str, array_start: int) -> list[int]:
    """Where each element of the JSON array starting at ``array_start`` begins, in one scan."""
    starts: list[int] = []
    position = _skip_space(text, array_start + 1)
    while position < len(text) and text[position] != "]":
        starts.append(position)
        _, position = _KEY_SCANNER.raw_decode(text, position)
        position = _skip_space(text, position)
        if position < len(text) and text[position] == ",":
            position = _skip_space(text, position + 1)
    return starts


def _top_level_spans(text: str) -> dict[str, tuple[int, int]]:
    """Map each top-level key of a one-line JSON object to its value's span."""
    spans: dict[str, tuple[int, int]] = {}
    scan = _KEY_SCANNER.raw_decode
    position = text.index("{") + 1
    length = len(text)
    while True:
        position = _skip_space(text, position)
        if position >= length or text[position] == "}":
            return spans
        key, position = scan(text, position)
        position = _skip_space(text, position) + 1  # the colon
        start = _skip_space(text, position)
        _, end = scan(text, start)
        spans[key] = (start, end)
        position = _skip_space(text, end)
        if position < length and text[position] == ",":
            position += 1
