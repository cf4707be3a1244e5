"""Repo-relative globs."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_citations.globs import _compile_any, _glob_regex, literal_prefix, matches


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


_SEGMENTS = st.sampled_from(["a", "b", ".git", "node_modules", "x.md", "y.jsonl", "*", "?", "**", "*.md", "a?", ".serena"])


@settings(max_examples=400, deadline=None)
@given(
    patterns=st.lists(st.lists(_SEGMENTS, min_size=1, max_size=4).map("/".join), min_size=1, max_size=6),
    paths=st.lists(st.lists(st.sampled_from(["a", "b", ".git", "node_modules", "x.md", "y.jsonl", "ab", ".serena"]),
                            min_size=1, max_size=5).map("/".join), min_size=1, max_size=10),
)
def test_one_regex_for_a_list_matches_as_each_glob_does(patterns, paths):
    """The globs that may start in any folder share one leading part in the list's regex; a path
    matches it exactly when it matches one of the globs alone."""
    for path in paths:
        alone = any(re.match(_glob_regex(pattern), path, re.S) for pattern in patterns)
        assert matches(path, patterns) is alone, (path, patterns)


def test_the_globs_of_any_folder_share_one_leading_part():
    regex = _compile_any((".git", "node_modules", "docs/*.md", "**/*.jsonl")).pattern
    assert regex.count("(?:.*/)?") == 1
