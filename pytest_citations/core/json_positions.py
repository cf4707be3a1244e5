"""JSON with positions: :func:`scan_json` reads a valid JSON text into a tree of :class:`Node`
values, each with its character span, so that a finding can point at the field it is about."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from pytest_citations.core.patterns import AlwaysMatches

# The C scanner behind json.JSONDecoder.raw_decode, called directly: scan_json calls it for every
# key and scalar of a document, and the text is known to be valid JSON.
_SCAN_ONCE = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # (set by __init__; not in the stubs)
_SPACE = " \t\r\n"
_SPACES = cast("AlwaysMatches", re.compile(r"[ \t\r\n]*"))


@dataclass
class Node:
    """A JSON value with its character span; objects map keys to (key start, value node)."""

    value: Any
    start: int
    end: int


def _skip(text: str, index: int) -> int:
    """``index``, or past the JSON whitespace there; called where there is some (the check is
    made inline: compact JSON has none between most tokens)."""
    return _SPACES.match(text, index).end()


def scan_json(text: str, index: int = 0) -> Node:
    """A position tree of the JSON value at ``index`` (the text is known to be valid JSON)."""
    if text[index] in _SPACE:
        index = _skip(text, index)
    char = text[index]
    if char == "{":
        members: dict[str, tuple[int, Node]] = {}
        position = index + 1
        if text[position] in _SPACE:
            position = _skip(text, position)
        if text[position] == "}":
            return Node(members, index, position + 1)
        while True:
            key_start = position
            key, position = _SCAN_ONCE(text, position)
            if text[position] in _SPACE:
                position = _skip(text, position)
            value = scan_json(text, position + 1)  # past the colon
            members[key] = (key_start, value)
            position = value.end
            if text[position] in _SPACE:
                position = _skip(text, position)
            if text[position] == ",":
                position += 1
                if text[position] in _SPACE:
                    position = _skip(text, position)
                continue
            return Node(members, index, position + 1)
    if char == "[":
        items: list[Node] = []
        position = index + 1
        if text[position] in _SPACE:
            position = _skip(text, position)
        if text[position] == "]":
            return Node(items, index, position + 1)
        while True:
            value = scan_json(text, position)
            items.append(value)
            position = value.end
            if text[position] in _SPACE:
                position = _skip(text, position)
            if text[position] == ",":
                position += 1
                continue
            return Node(items, index, position + 1)
    value, end = _SCAN_ONCE(text, index)
    return Node(value, index, end)


def plain(node: Node) -> Any:
    """The Python value of a node."""
    if isinstance(node.value, dict):
        return {key: plain(value) for key, (_, value) in node.value.items()}
    if isinstance(node.value, list):
        return [plain(item) for item in node.value]
    return node.value
