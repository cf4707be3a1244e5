"""The code tuples of a JSON document (:func:`find_json_tuples`): objects of a tuple's shape
(:func:`has_tuple_shape`) and every element under a tuple key, at any depth, each named by its
JSON path."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from pytest_citations.core.json_positions import Node
from pytest_citations.kinds.code_tuples.inline import HASH_SHAPE, LINES_SHAPE, looks_like_path


def _json_path(parts: list[str | int]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(document)"


_TUPLE_FIELDS = frozenset({"artifact_id", "content_hash", "lines"})
# Top-level keys of documents that describe data rather than hold it: a JSON Schema, an OpenAPI or
# Swagger description (whose examples may be tuples).
_DESCRIPTIONS = ("$schema", "openapi", "swagger")


def has_tuple_shape(fields: Mapping[str, Any]) -> bool:
    """Whether a JSON object outside a tuple key, of ``fields`` (key -> value), is a code tuple:
    the schema's keys and no other (its ``additionalProperties: false``), a string
    ``artifact_id``, each other part of a tuple's form (a ``content_hash`` of a truncated SHA-256's
    shape, :data:`HASH_SHAPE`; ``lines`` as ``L<n>`` or ``L<start>-<end>``), and such a part or a
    path-like id. Other tools use ``artifact_id`` and ``content_hash`` for their own records: build
    and model artifact manifests (``{"artifact_id": "dist/app.tar.gz", "content_hash":
    "sha256:...", "size": 10240}``), model registries, SBOMs, package metadata; those are not
    citations."""
    artifact_id = fields.get("artifact_id")
    if not isinstance(artifact_id, str) or not fields.keys() <= _TUPLE_FIELDS:
        return False
    if "content_hash" in fields and not _has_form(fields["content_hash"], HASH_SHAPE):
        return False
    if "lines" in fields and not _has_form(fields["lines"], LINES_SHAPE):
        return False
    return len(fields) > 1 or looks_like_path(artifact_id)


def _fields(members: dict[str, tuple[int, Node]]) -> dict[str, Any]:
    """An object's members as :func:`has_tuple_shape` weighs them: key -> value (an object or
    array as its members, which no part of a tuple's form is)."""
    return {key: child.value for key, (_, child) in members.items()}


def _has_form(value: Any, form: re.Pattern[str]) -> bool:
    return isinstance(value, str) and form.match(value) is not None


# What the head of a JSON or JSONL file shows of its tuples: an artifact id beside the default
# tuple key (whose elements are tuples whatever they hold); objects with no object or array inside
# them, as a tuple is, each read on its own; and the artifact id of an object the head's end cuts.
_ARTIFACT_ID = re.compile(r'"artifact_id"\s*:\s*"(?P<id>[^"\\]{0,300})"')
_TUPLE_KEY = re.compile(r'"citations"\s*:')
_FLAT_OBJECT = re.compile(r"\{[^{}\[\]]*\}")


def head_holds_tuples(head: str) -> bool:
    """Whether the head of a JSON or JSONL file holds a tuple: an ``artifact_id`` beside a
    ``citations`` key, an object of a tuple's shape (:func:`has_tuple_shape`; an object that is not
    JSON on its own is claimed, for the reader to report), or an object cut by the head's end
    whose ``artifact_id`` looks like a path."""
    if _ARTIFACT_ID.search(head) is None:
        return False
    if _TUPLE_KEY.search(head):
        return True
    for found in _FLAT_OBJECT.finditer(head):
        if '"artifact_id"' in found.group() and _may_be_tuple(found.group()):
            return True
    last = head[head.rfind("{"):] if "{" in head else ""
    return "}" not in last and any(looks_like_path(pair.group("id")) for pair in _ARTIFACT_ID.finditer(last))


def _may_be_tuple(text: str) -> bool:
    try:
        fields = json.loads(text)
    except ValueError:
        return True
    return isinstance(fields, dict) and has_tuple_shape(fields)


def find_json_tuples(root: Node, tuple_keys: tuple[str, ...]) -> Iterator[tuple[str, Node]]:
    """(JSON path, node) of every tuple: objects of a tuple's shape (:func:`has_tuple_shape`), and
    every element under a tuple key (an element that is not an object is still yielded, for the
    schema rule). A JSON Schema or OpenAPI document describes tuples and holds none."""
    if isinstance(root.value, dict) and any(key in root.value for key in _DESCRIPTIONS):
        return
    stack: list[tuple[Node, list[str | int], bool]] = [(root, [], False)]
    found = []
    while stack:
        node, path, under_key = stack.pop()
        value = node.value
        if isinstance(value, dict):
            if under_key or ("artifact_id" in value and has_tuple_shape(_fields(value))):
                found.append((path, node))  # (a JSON Schema's "properties": {"artifact_id": {...}} is not one)
                continue
            for key, (_, child) in value.items():
                if key in tuple_keys:
                    if isinstance(child.value, list):
                        for number, item in enumerate(child.value):
                            stack.append((item, [*path, key, number], True))
                    else:
                        stack.append((child, [*path, key], True))
                else:
                    stack.append((child, [*path, key], False))
        elif isinstance(value, list):
            for number, item in enumerate(value):
                stack.append((item, [*path, number], under_key))
        elif under_key:
            found.append((path, node))
    found.sort(key=lambda item: item[1].start)
    for path, node in found:
        yield _json_path(path), node
