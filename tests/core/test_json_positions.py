"""scan_json, which inlines its whitespace test and calls the C scanner directly, builds the same
position tree as the plain reading it replaced: on every JSON and JSONL file of the fixtures, the
hostile corpus and the real files, on odd hand-made documents and on generated ones in every
layout json.dumps makes and with whitespace scattered between tokens."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PROJECT, TESTS
from pytest_citations.core import jsonlines
from pytest_citations.core.json_positions import Node, scan_json

_DECODER = json.JSONDecoder()


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def reference(text: str, index: int = 0) -> Node:
    """The plain reading: whitespace skipped by a loop before every token, scalars by raw_decode."""
    index = _skip(text, index)
    char = text[index]
    if char in "{[":
        close = "}" if char == "{" else "]"
        members: dict = {}
        items: list = []
        position = _skip(text, index + 1)
        while text[position] != close:
            if char == "{":
                key_start = position
                key, position = _DECODER.raw_decode(text, position)
                value = reference(text, _skip(text, position) + 1)
                members[key] = (key_start, value)
            else:
                value = reference(text, position)
                items.append(value)
            position = _skip(text, value.end)
            if text[position] == ",":
                position = _skip(text, position + 1)
        return Node(members if char == "{" else items, index, position + 1)
    value, end = _DECODER.raw_decode(text, index)
    return Node(value, index, end)


def assert_same(text: str) -> None:
    assert scan_json(text) == reference(text)


ODD = [
    "0", " 1 ", '"x"', "[]", "{}", "[ ]", "{ }", "\t[\r\n1 ,\n2\t]\n", '{"a" : {"b" :[ {} , [ ] ]} }',
    '{"a":1,"a":2}', '["\\u00e9\\"\\\\", -0.5e+3, true, false, null, NaN, -Infinity]', '{"k\\n":"\\ud800"}',
    '  {"artifact_id": "src/a.py", "lines": "L1-2"}  ', '[[[[[[[[["deep"]]]]]]]]]',
]


@pytest.mark.parametrize("text", ODD, ids=repr)
def test_odd_documents(text):
    assert_same(text)


def _json_files() -> list:
    folders = [PROJECT / "fixtures", TESTS / "hostile"]
    return sorted(
        path for folder in folders for suffix in ("json", "jsonl") for path in folder.glob(f"**/*.{suffix}") if path.is_file()
    )


def _documents(text: str) -> list[str]:
    """Each JSON document of a JSON or JSONL text (the whole text, or each line) that the kinds
    hand to scan_json: valid, and nested no deeper than jsonlines.MAX_DEPTH."""
    found = []
    for candidate in (text, *text.splitlines()):
        try:
            jsonlines.loads(candidate)
        except (ValueError, RecursionError):
            continue
        found.append(candidate)
    return found


@pytest.mark.parametrize("path", _json_files(), ids=lambda p: str(p.relative_to(PROJECT)))
def test_project_files(path):
    for document in _documents(path.read_bytes().decode("utf-8", "replace")):
        assert_same(document)


def test_real_files(realdata):
    paths = sorted(path for suffix in ("json", "jsonl") for path in realdata.glob(f"**/*.{suffix}") if path.is_file())
    assert paths
    for path in paths:
        for document in _documents(path.read_bytes()[: 1 << 20].decode("utf-8", "replace")):
            assert scan_json(document) == reference(document), path


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)
_LAYOUTS = st.sampled_from([{}, {"indent": 2}, {"indent": "\t"}, {"separators": (",", ":")},
                            {"separators": (" , ", " : ")}, {"indent": 0, "ensure_ascii": False}])


@settings(max_examples=1500, deadline=None)
@given(_VALUES, _LAYOUTS)
def test_generated_documents(value, layout):
    assert_same(json.dumps(value, **layout))


@settings(max_examples=1500, deadline=None)
@given(_VALUES, st.lists(st.sampled_from([" ", "\t", "\r", "\n", "\r\n", "  \n\t"]), min_size=1, max_size=8), st.randoms())
def test_generated_documents_with_whitespace_between_tokens(value, spaces, random):
    """Whitespace inserted at random token boundaries (after each structural character)."""
    text = json.dumps(value, separators=(",", ":"))
    out, in_string, escaped = [], False, False
    for char in text:
        out.append(char)
        if in_string:
            escaped, in_string = (False, in_string) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[]{},:":
            out.append(random.choice(spaces))
    document = random.choice(spaces) + "".join(out)
    json.loads(document)  # still valid
    assert_same(document)
