"""Repo-relative globs."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cpu_bounds import assert_cpu_under
from pytest_citations.core.globs import _compile_any, _glob_regex, literal_prefix, matches


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


# -- bounded time, whatever the settings say (docs/security.md: settings are the checkout's) --------

from pytest_citations.builtins import builtin_kinds  # noqa: E402
from pytest_citations.core import globs  # noqa: E402
from pytest_citations.core.config import DEFAULT_EXCLUDE  # noqa: E402

HOSTILE = [
    "*a*a*a*a*a*a*a*a*a*a*a*a*b",  # was: minutes on a 40-character name (each "*" tries every split)
    "**/a/**/a/**/a/**/a/**/b",
    "**a**a**a**a**b",
    "a*a*a*a*a*a*a*a*b/**",
    "**/*a*a*a*a*a*a*a*b*",
    "x/**/*a/*a/*a/*a*a*b",
]
# short ones first: a backtracking matcher takes seconds on them already, and ages on the others
LONG_PATHS = ["a" * 30, "a" * 200, "a/" * 100, "a" * 4000, "a/" * 2000, ("a" * 254 + "/") * 15, ("aa/" * 1300) + "c",
              "x/" + "a" * 3998]


def _slowest(match, path: str) -> float:
    import timeit

    return min(timeit.repeat(lambda: match(path), number=1, repeat=3))


@pytest.mark.parametrize("pattern", HOSTILE)
def test_a_glob_is_matched_in_time_linear_in_the_path_and_the_glob(pattern):
    match = globs.matcher((pattern,))
    for path in LONG_PATHS:
        assert _slowest(match, path) < 0.1, (pattern, path[:40], len(path))


_PIECES = st.sampled_from(["a", "b", "*", "?", "**", "*a", "a*", "a?", "*a*", "a*b*", "*?*", "**.md", "a**", "x.md", ""])


@settings(max_examples=600, deadline=None)
@given(
    pattern=st.tuples(st.sampled_from(["", "/"]), st.lists(_PIECES, min_size=1, max_size=4).map("/".join),
                      st.sampled_from(["", "/"])).map("".join),
    paths=st.lists(st.lists(st.sampled_from(["a", "b", "ab", "ba", "aab", "x.md", "a.md", "", "a\nb"]),
                            min_size=1, max_size=5).map("/".join), min_size=1, max_size=8),
)
def test_every_glob_matches_as_its_regex_says(pattern, paths):
    """Whichever way a glob is matched (one regex built not to backtrack, or the automaton), a
    path matches it exactly when the glob's regex, written word for word, matches the path."""
    for path in paths:
        expected = re.match(_glob_regex(pattern), path, re.S) is not None
        assert matches(path, [pattern]) is expected, (pattern, path)
        assert globs._Automaton((pattern,))(path) is expected, (pattern, path)


def test_a_list_mixing_both_ways_matches_as_each_glob_does():
    patterns = ("**/a/**/b", "*.md", "docs/**")
    for path, expected in [("x/a/y/b", True), ("x/a.md", True), ("docs/z", True), ("x/a/y", False), ("a/b/c.txt", True), ("a/b.txt", False)]:
        assert matches(path, patterns) is expected, path
    first = globs.first_match([("*.md",), ("**/a/**/b",)])
    assert (first("q/a/b"), first("q/r.md"), first("q/r.txt")) == (1, 0, None)


def test_ordinary_globs_are_one_regex():
    """The globs every walk matches (the default excludes, the kinds' globs, the documented
    examples) take the regex, the fast way."""
    import sys

    ordinary = [*DEFAULT_EXCLUDE, "archive/**", "legacy/**/citations.jsonl", "**/node_modules/**", "docs/*.md", "/build"]
    for kind in builtin_kinds():
        ordinary += [*kind.include, *kind.sniff_include, *getattr(kind, "by_content_only", ())]
    if sys.version_info >= (3, 11):
        ordinary += ["*.min.*", "*test*"]  # several "*" in a name need atomic groups (Python 3.11)
    assert [p for p in ordinary if globs._linear_regex(p) is None] == []


# -- a list of globs, matched together -------------------------------------------------------------

_RAW = st.text(alphabet="*/a?b", max_size=10)
_PATHS = st.lists(st.text(alphabet="ab/", max_size=10), min_size=1, max_size=8)


@settings(max_examples=600, deadline=None)
@given(patterns=st.lists(_RAW, min_size=1, max_size=5), paths=_PATHS)
def test_one_automaton_for_a_list_matches_as_each_glob_does(patterns, paths):
    """One automaton for several globs (runs of ``*``, ``**`` and ``**/`` in any order, written in
    their shortest form) says which globs a path matches, as each glob's own regex does."""
    automaton = globs._Automaton(tuple(patterns))
    for path in paths:
        expected = tuple(i for i, pattern in enumerate(patterns) if re.match(_glob_regex(pattern), path, re.S))
        assert automaton.matching(path) == expected, (patterns, path)
        assert automaton(path) is bool(expected), (patterns, path)
        assert matches(path, patterns) is bool(expected), (patterns, path)
        assert globs.matching(patterns)(path) == expected, (patterns, path)


def test_an_automaton_that_forgets_its_states_still_matches_as_the_globs_do():
    """When it has remembered as many states as it may, it starts afresh in the middle of a path."""
    import random

    rng = random.Random(1)
    for _ in range(50):
        patterns = tuple("".join(rng.choice("*/a?b") for _ in range(rng.randint(0, 10))) for _ in range(4))
        automaton = globs._Automaton(patterns)
        automaton.capacity = 3
        for _ in range(100):
            path = "".join(rng.choice("ab/") for _ in range(rng.randint(0, 14)))
            expected = tuple(i for i, pattern in enumerate(patterns) if re.match(_glob_regex(pattern), path, re.S))
            assert automaton.matching(path) == expected and automaton(path) is bool(expected), (patterns, path)


@pytest.mark.parametrize(("run", "shortest"), [
    ("a/**/**/b", ["**/"]), ("a/**/**/**/*.md", ["**/", "*"]), ("a/***/b", ["**"]), ("a/**/***b", ["**"]),
    ("a/**/*b", ["**/", "*"]), ("a/****b", ["**"]), ("a/**/**b", ["**"]),
])
def test_a_run_of_stars_takes_its_shortest_form(run, shortest):
    kinds = [what for what, _ in globs._tokens(run) if what != "literal"]
    assert kinds == shortest


def test_the_globs_of_a_list_cost_one_pass_over_a_path_whatever_their_number():
    """Was: one automaton per glob, each reading the whole path (the audit's 3000 globs
    ``**/q<i>/**/z``: 33 s for a walk of 3000 files)."""
    import time

    paths = [f"dir{i % 50}/sub{i % 7}/file_number_{i}.md" for i in range(3000)]
    many = globs.matcher(tuple(f"**/q{i}/**/z" for i in range(256)))
    start = time.process_time()
    assert not any(many(path) for path in paths)
    assert_cpu_under(time.process_time() - start, 0.5)


def test_an_automaton_remembers_a_bounded_number_of_states(tmp_path):
    """However many paths it reads, an automaton of the most globs the settings may hold keeps at
    most about a megabyte of states."""
    import random
    import tracemalloc

    rng = random.Random(2)
    patterns = tuple("**" + "".join(rng.choice(["a", "b", "?", "*", "**", "/"]) for _ in range(20)) + "z" for _ in range(256))
    paths = ["/".join("".join(rng.choice("ab") for _ in range(30)) for _ in range(3)) for _ in range(3000)]
    tracemalloc.start()
    automaton = globs._Automaton(patterns)
    assert not any(automaton(path) for path in paths)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(automaton.states) <= automaton.capacity < 4096
    assert peak < 8 * 2**20, peak
