"""Where values sit in JSON text: the spans of an object's members and an array's elements, and
the values a path such as ``expected.citations[]`` reaches, each part of the text read once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pytest_citations.kinds.ear_ids.parse_rules import ear_invalid_json

_SCANNER = json.JSONDecoder()
INVALID_JSON = ear_invalid_json  # the rule under which a line or a file that is not JSON is reported


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _members(text: str, start: int) -> Iterator[tuple[str, int, int]]:
    """(key, value start, value end) of the JSON object starting at ``start``."""
    position = start + 1
    while True:
        position = _skip_space(text, position)
        if position >= len(text) or text[position] == "}":
            return
        key, position = _SCANNER.raw_decode(text, position)
        position = _skip_space(text, position) + 1  # the colon
        value_start = _skip_space(text, position)
        _, value_end = _SCANNER.raw_decode(text, value_start)
        yield key, value_start, value_end
        position = _skip_space(text, value_end)
        if position < len(text) and text[position] == ",":
            position += 1


def _elements(text: str, start: int) -> Iterator[tuple[int, int, int]]:
    """(index, start, end) of each element of the JSON array starting at ``start``."""
    position = start + 1
    index = 0
    while True:
        position = _skip_space(text, position)
        if position >= len(text) or text[position] == "]":
            return
        _, end = _SCANNER.raw_decode(text, position)
        yield index, position, end
        index += 1
        position = _skip_space(text, end)
        if position < len(text) and text[position] == ",":
            position += 1


def member_spans(text: str, start: int) -> dict[str, tuple[int, int]]:
    return {key: (value_start, value_end) for key, value_start, value_end in _members(text, start)}


def element_spans(text: str, start: int) -> list[tuple[int, int]]:
    return [(value_start, value_end) for _, value_start, value_end in _elements(text, start)]


def parse_path(path: str) -> tuple[str, ...]:
    """``expected.citations[]`` -> ``("expected", "citations", "[]")``."""
    steps: list[str] = []
    for part in path.split("."):
        name = part
        arrays = 0
        while name.endswith("[]"):
            name = name[:-2]
            arrays += 1
        if name:
            steps.append(name)
        steps.extend(["[]"] * arrays)
    return tuple(steps)


@dataclass(frozen=True)
class Where:
    """Where a value sits in a record (``ear_sections[0]``): the last step of the path there (a key,
    or an index) and where that step starts. A step costs the same however deep the path, and the
    path is spelled out only when a message shows it (spelled out for each of many values of a deep
    path, as it once was, it took memory growing with their number times the depth)."""

    parent: Where | None
    step: str | int

    def __str__(self) -> str:
        steps: list[str | int] = []
        node: Where | None = self
        while node is not None:
            steps.append(node.step)
            node = node.parent
        parts = [f"[{step}]" if isinstance(step, int) else f".{step}" for step in reversed(steps)]
        return "".join(parts).removeprefix(".")


@dataclass(frozen=True)
class Found:
    """A value at a governed path: where (``ear_sections[0]``), the value, and its span."""

    where: Where | None
    value: Any
    start: int
    end: int
    not_array: bool = False  # the path wanted an array here and found this value instead


def find_paths(text: str, start: int, steps: tuple[str, ...]) -> list[Found]:
    """Every value the path ``steps`` reaches in the JSON value at ``start`` (absent parts skipped)."""
    found: list[Found] = []
    _walk(text, start, steps, None, found)
    return found


def _walk(text: str, start: int, steps: tuple[str, ...], where: Where | None, found: list[Found]) -> int:
    """Add to ``found`` what :func:`find_paths` finds in the value at ``start``, and return where the
    value ends. Each part of the text is read once, however deep the path: an object or array on the
    path is walked member by member, the others are skipped by decoding them."""
    start = _skip_space(text, start)
    char = text[start] if start < len(text) else ""
    if steps and steps[0] == "[]" and char == "[":
        return _walk_elements(text, start, steps[1:], where, found)
    if steps and steps[0] != "[]" and char == "{":
        return _walk_members(text, start, steps, where, found)
    value, end = _SCANNER.raw_decode(text, start)
    if not steps:
        found.append(Found(where, value, start, end))
    elif steps[0] == "[]" and value is not None:
        found.append(Found(where, value, start, end, not_array=True))
    return end


def _walk_elements(text: str, start: int, rest: tuple[str, ...], where: Where | None, found: list[Found]) -> int:
    """:func:`_walk` of each element of the array at ``start``; where the array ends."""
    position, index = start + 1, 0
    while True:
        position = _skip_space(text, position)
        if position >= len(text) or text[position] == "]":
            return position + 1
        end = _walk(text, position, rest, Where(where, index), found)
        index += 1
        position = _skip_space(text, end)
        if position < len(text) and text[position] == ",":
            position += 1


def _walk_members(text: str, start: int, steps: tuple[str, ...], where: Where | None, found: list[Found]) -> int:
    """:func:`_walk` of the member named ``steps[0]`` of the object at ``start`` (the others are
    skipped); where the object ends."""
    head, rest = steps[0], steps[1:]
    position = start + 1
    while True:
        position = _skip_space(text, position)
        if position >= len(text) or text[position] == "}":
            return position + 1
        key, position = _SCANNER.raw_decode(text, position)
        value_start = _skip_space(text, _skip_space(text, position) + 1)  # past the colon
        if key == head:
            end = _walk(text, value_start, rest, Where(where, key), found)
        else:
            _, end = _SCANNER.raw_decode(text, value_start)
        position = _skip_space(text, end)
        if position < len(text) and text[position] == ",":
            position += 1


def _whole_elements(text: str, start: int) -> Iterator[Any]:
    """The values of the JSON array starting at ``start``, up to the first that cannot be read
    whole (cut off by the end of ``text``, malformed, or nested too deep). Each is read once."""
    position = start + 1
    while True:
        position = _skip_space(text, position)
        if position >= len(text) or text[position] == "]":
            return
        try:
            value, position = _SCANNER.raw_decode(text, position)
        except (ValueError, RecursionError):
            return
        yield value
        position = _skip_space(text, position)
        if position < len(text) and text[position] == ",":
            position += 1
