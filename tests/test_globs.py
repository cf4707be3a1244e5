"""Repo-relative globs."""

import pytest

from pytest_citations.globs import literal_prefix, matches


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        ("citations/citations.jsonl", ["**/citations/citations.jsonl"], True),
        ("a/b/citations/citations.jsonl", ["**/citations/citations.jsonl"], True),
        ("a/citations.jsonl", ["**/citations/citations.jsonl"], False),
        ("x/y.jsonl", ["*.jsonl"], True),  # no "/": any folder
        ("vendor/x/y.jsonl", ["vendor"], True),  # a folder covers what is below it
        ("vendors/x", ["vendor"], False),
        (".serena/memories/a/b.md", [".serena/memories/**/*.md"], True),
        (".serena/memories/b.md", [".serena/memories/**/*.md"], True),
        (".serena/b.md", [".serena/memories/**/*.md"], False),
        ("a/b.md", ["a/?.md"], True),
        ("a/bc.md", ["a/?.md"], False),
    ],
)
def test_matches(path, patterns, expected):
    assert matches(path, patterns) is expected


@pytest.mark.parametrize(
    ("pattern", "prefix"),
    [(".serena/memories/**/*.md", ".serena/memories/"), ("**/citations/citations.jsonl", ""), ("*.md", ""), ("eval/*.jsonl", "eval/")],
)
def test_literal_prefix(pattern, prefix):
    assert literal_prefix(pattern) == prefix
