"""The code tuples of a JSON document (:func:`find_json_tuples`): objects of a tuple's shape
(:func:`has_tuple_shape`) and every element under a tuple key, at any depth, each named by its
JSON path."""

from __future__ import annotations

from collections.abc import Iterator

from pytest_citations.core.json_positions import Node
from pytest_citations.kinds.code_tuples.inline import looks_like_path


def _json_path(parts: list[str | int]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(document)"


_TUPLE_FIELDS = frozenset({"artifact_id", "content_hash", "lines"})
# Top-level keys of documents that describe data rather than hold it: a JSON Schema, an OpenAPI or
# Swagger description (whose examples may be tuples).
_DESCRIPTIONS = ("$schema", "openapi", "swagger")


def has_tuple_shape(members: dict[str, tuple[int, Node]]) -> bool:
    """Whether a JSON object outside a tuple key is a code tuple: a string ``artifact_id`` with a
    ``content_hash`` or ``lines`` beside it, or alone with a path-like id. Other tools use the key
    ``artifact_id`` for their own records (model registries, SBOMs, package metadata:
    ``{"name": "resnet", "artifact_id": "model-v3"}``), which are not citations."""
    artifact_id = members.get("artifact_id")
    if artifact_id is None or not isinstance(artifact_id[1].value, str):
        return False
    if "content_hash" in members or "lines" in members:
        return True
    return members.keys() <= _TUPLE_FIELDS and looks_like_path(artifact_id[1].value)


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
            if under_key or has_tuple_shape(value):
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
