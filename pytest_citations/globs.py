"""Repo-relative path globs: ``*`` and ``?`` stay within a folder, ``**`` spans folders."""

from __future__ import annotations

import functools
import re


@functools.lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """Compile a glob; a pattern without ``/`` matches a name in any folder, as in .gitignore."""
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
    return re.compile("".join(parts) + "(?:/.*)?\\Z", re.S)


def matches(path: str, patterns) -> bool:
    return any(compile_glob(pattern).match(path) for pattern in patterns)


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
