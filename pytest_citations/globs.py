"""Repo-relative path globs: ``*`` and ``?`` stay within a folder, ``**`` spans folders."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable


@functools.lru_cache(maxsize=1024)
def _glob_regex(pattern: str) -> str:
    """The regex of a glob; a pattern without ``/`` matches a name in any folder, as in .gitignore."""
    if "/" not in pattern.rstrip("/"):
        pattern = "**/" + pattern
    pattern = pattern.lstrip("/")
    parts: list[str] = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            parts.append(".*")
            index += 2
        elif pattern[index] == "*":
            parts.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            parts.append("[^/]")
            index += 1
        else:
            parts.append(re.escape(pattern[index]))
            index += 1
    # A pattern that names a folder also matches everything below it.
    return "".join(parts) + "(?:/.*)?\\Z"


_IN_ANY_FOLDER = "(?:.*/)?"  # how the regex of a glob that may start in any folder begins


@functools.lru_cache(maxsize=1024)
def _compile_any(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex for a list of globs (every file of a walk is matched against each list).

    The globs that may start in any folder (``**/`` first, or no ``/`` at all, as the default
    excludes ``.git`` or ``node_modules``) share one leading ``(?:.*/)?``: the regex engine then
    tries the path's folders once for all of them, where an alternative of its own for each glob
    would try them once per glob."""
    return re.compile(_any_of(patterns), re.S) if patterns else None


def _any_of(patterns) -> str:
    """The regex of "one of ``patterns``", those that may start in any folder sharing one
    leading ``(?:.*/)?`` (see :func:`_compile_any`)."""
    regexes = [_glob_regex(p) for p in patterns]
    anywhere = [r[len(_IN_ANY_FOLDER):] for r in regexes if r.startswith(_IN_ANY_FOLDER)]
    alternatives = [f"(?:{r})" for r in regexes if not r.startswith(_IN_ANY_FOLDER)]
    if anywhere:
        alternatives.append(_IN_ANY_FOLDER + "(?:" + "|".join(f"(?:{r})" for r in anywhere) + ")")
    return "|".join(alternatives)


def matches(path: str, patterns) -> bool:
    return matcher(tuple(patterns))(path)


def matcher(patterns) -> Callable[[str], bool]:
    """A test of whether a path matches any of ``patterns``, for testing many paths."""
    combined = _compile_any(tuple(patterns))
    if combined is None:
        return lambda path: False
    match = combined.match
    return lambda path: match(path) is not None


def first_match(lists) -> Callable[[str], int | None]:
    """A test of which of several lists of globs a path matches first: the index of the first
    list with a match, or None. One regex match per path, where a :func:`matcher` per list would
    take one per list (a kind's include and sniff globs, tried on every file of a walk)."""
    alternatives = [f"(?P<g{index}>{_any_of(patterns)})" for index, patterns in enumerate(lists) if patterns]
    if not alternatives:
        return lambda path: None
    match = re.compile("|".join(alternatives), re.S).match

    def first(path: str) -> int | None:
        found = match(path)
        return None if found is None else int(found.lastgroup[1:])

    return first


def literal_prefix(pattern: str) -> str:
    """The folders a pattern names before its first wildcard (``.serena/memories/`` for
    ``.serena/memories/**/*.md``); empty when it can match anywhere."""
    folders = pattern.lstrip("/").split("/")[:-1]
    literal = []
    for folder in folders:
        if any(char in folder for char in "*?["):
            break
        literal.append(folder)
    return "/".join(literal) + "/" if literal else ""
