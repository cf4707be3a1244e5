"""Repo-relative path globs: ``*`` and ``?`` stay within a folder, ``**`` spans folders.

Globs come from the settings, which a checkout may write, and a walk matches every file against
them, so matching is both fast and bounded: in time O(path length x glob length) for any glob.
Most globs (``**/*.md``, ``.git``, ``docs/**``, ``legacy/**/citations.jsonl``, ``*.min.*``)
become one regular expression built so that the regex engine never tries two ways of matching
the same characters (:func:`_linear_regex`); any other (``**/a/**/b``, ``**.md``, ``a**b``) is
matched by an :class:`_Automaton`, which follows every way of matching at once."""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from typing import cast

# The pieces of a glob: a literal character, ``?``, ``*``, ``**`` and ``**/``.
_LITERAL, _ONE, _STAR, _ANY, _ANY_FOLDERS = "literal", "?", "*", "**", "**/"


@functools.lru_cache(maxsize=1024)
def _tokens(pattern: str) -> tuple[tuple[str, str], ...]:
    """The pieces of a glob, as (what, literal character); a pattern without ``/`` matches a name
    in any folder, as in .gitignore, so it starts with ``**/``."""
    if "/" not in pattern.rstrip("/"):
        pattern = "**/" + pattern
    pattern = pattern.lstrip("/")
    tokens: list[tuple[str, str]] = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            tokens.append((_ANY_FOLDERS, ""))
            index += 3
        elif pattern.startswith("**", index):
            tokens.append((_ANY, ""))
            index += 2
        elif pattern[index] in "*?":
            tokens.append((_STAR if pattern[index] == "*" else _ONE, ""))
            index += 1
        else:
            tokens.append((_LITERAL, pattern[index]))
            index += 1
    return tuple(tokens)


_REGEX = {_ANY_FOLDERS: "(?:.*/)?", _ANY: ".*", _STAR: "[^/]*", _ONE: "[^/]"}


@functools.lru_cache(maxsize=1024)
def _glob_regex(pattern: str) -> str:
    """The regex of a glob, word for word; a pattern that names a folder also matches everything
    below it. It states what a glob means; :func:`_linear_regex` is how it is matched."""
    return "".join(_piece_regex(what, char) for what, char in _tokens(pattern)) + "(?:/.*)?\\Z"


# Python 3.11 has atomic groups: a folder name with several ``*`` then takes one regex.
_ATOMIC_GROUPS = sys.version_info >= (3, 11)


@functools.lru_cache(maxsize=1024)
def _linear_regex(pattern: str) -> str | None:
    """The regex of a glob that a regex engine matches in time O(path x glob), or None when the
    glob has no such regex here (an :class:`_Automaton` matches it).

    A ``*``, a ``**`` and a ``**/`` each match in many ways, and a regex engine tries the ways of
    one in turn for each way of the one before: its time is a power of the path's length when
    two of them can match the same characters. So the glob has at most one ``**/``, starting a
    folder name; no other ``**`` but at its end (where it takes whatever is left at once); and in
    a folder name with several ``*``, each part between two ``*`` is matched at its first place
    in an atomic group (the classic wildcard match: a later place leaves no more to match), which
    needs Python 3.11; before it, a folder name has at most one ``*``."""
    tokens = _tokens(pattern)
    folders = [index for index, (what, _) in enumerate(tokens) if what == _ANY_FOLDERS]
    if len(folders) > 1 or (folders and folders[0] > 0 and tokens[folders[0] - 1] != (_LITERAL, "/")):
        return None
    if any(what == _ANY for what, _ in tokens[:-1]):
        return None
    parts: list[str] = []
    index = 0
    while index < len(tokens):
        what, char = tokens[index]
        following = _next_star(tokens, index) if what == _STAR else None
        if following is None:
            parts.append(_piece_regex(what, char))
            index += 1
        elif not _ATOMIC_GROUPS:
            return None
        else:  # the part up to the next "*", at its first place in the name
            parts.append("(?>[^/]*?" + "".join(_piece_regex(*token) for token in tokens[index + 1 : following]) + ")")
            index = following
    return "".join(parts) + "(?:/.*)?\\Z"


def _piece_regex(what: str, char: str) -> str:
    return re.escape(char) if what == _LITERAL else _REGEX[what]


def _next_star(tokens: tuple[tuple[str, str], ...], index: int) -> int | None:
    """Where the next ``*`` after the one at ``index`` is in the same folder name, if any."""
    for following in range(index + 1, len(tokens)):
        what, char = tokens[following]
        if what == _STAR:
            return following
        if what != _ONE and (what != _LITERAL or char == "/"):
            return None
    return None


class _Automaton:
    """A glob matched one character at a time, following every way of matching it at once.

    Bit ``i`` of the state says "the first ``i`` pieces of the glob match what has been read";
    each character moves every bit at once (a few operations on Python integers), so a path is
    matched in time O(path x glob / 64) whatever the glob, and the moves once worked out are
    remembered, so that most characters cost one lookup. ``**/`` is three positions: its
    start, which reads nothing and leads to the next two or past them, any characters, and ``/``."""

    def __init__(self, pattern: str) -> None:
        positions: list[tuple[str, str]] = []  # what each position reads
        entries = 0  # where a ``**/`` starts: it reads nothing; the glob goes on at its ``**``, or after its ``/``
        for what, char in _tokens(pattern):
            if what == _ANY_FOLDERS:
                entries |= 1 << len(positions)
                positions += [(_ANY_FOLDERS, ""), (_ANY, ""), (_LITERAL, "/")]
            else:
                positions.append((what, char))
        by_char: dict[str, int] = {}  # character -> the literal positions it moves on from
        one = star = any_char = 0
        for position, (what, char) in enumerate(positions):
            bit = 1 << position
            if what == _LITERAL:
                by_char[char] = by_char.get(char, 0) | bit
            elif what == _ONE:
                one |= bit
            elif what == _STAR:
                star |= bit
            elif what == _ANY:
                any_char |= bit
        self.final = 1 << len(positions)
        self.skip, self.skip_three = star | any_char | entries, entries  # ``*`` and ``**`` may match nothing
        # character -> (positions it moves on from, positions it stays on)
        self.moves = {char: (bits | (one if char != "/" else 0), any_char | (star if char != "/" else 0))
                      for char, bits in by_char.items()}
        self.moves.setdefault("/", (0, any_char))
        self.other = (one, any_char | star)
        self.start = self._closure(1)
        # state -> {character: next state}, worked out as paths need them: a walk matches
        # thousands of paths that share their characters and states
        self.table: dict[int, dict[str, int]] = {}

    def _closure(self, state: int) -> int:
        """``state`` with every position reachable without reading a character."""
        while True:
            more = state | ((state & self.skip) << 1) | ((state & self.skip_three) << 3)
            if more == state:
                return state
            state = more

    def __call__(self, path: str) -> bool:
        state, table = self.start, self.table
        for char in path:
            row = table.get(state)
            if row is None:
                if len(table) > _MAX_STATES:
                    table.clear()
                row = table[state] = {}
            following = row.get(char)
            if following is None:
                following = row[char] = self._step(state, char)
            if following <= 0:
                return following == _FOLDER_ABOVE
            state = following
        return bool(state & self.final)

    def _step(self, state: int, char: str) -> int:
        """The state after reading ``char``: 0 when nothing can match any more, and
        :data:`_FOLDER_ABOVE` when the glob has matched a folder above the path."""
        if char == "/" and state & self.final:
            return _FOLDER_ABOVE
        move, stay = self.moves.get(char, self.other)
        return self._closure(((state & move) << 1) | (state & stay))


_FOLDER_ABOVE = -1  # an automaton's state once the glob has matched a folder the path is below
_MAX_STATES = 4096  # states whose moves an automaton remembers (each path adds at most its length)


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
    regexes = [cast(str, _linear_regex(p)) for p in patterns]  # the callers pass only such globs
    anywhere = [r[len(_IN_ANY_FOLDER):] for r in regexes if r.startswith(_IN_ANY_FOLDER)]
    alternatives = [f"(?:{r})" for r in regexes if not r.startswith(_IN_ANY_FOLDER)]
    if anywhere:
        alternatives.append(_IN_ANY_FOLDER + "(?:" + "|".join(f"(?:{r})" for r in anywhere) + ")")
    return "|".join(alternatives)


def matches(path: str, patterns) -> bool:
    return matcher(tuple(patterns))(path)


def matcher(patterns) -> Callable[[str], bool]:
    """A test of whether a path matches any of ``patterns``, for testing many paths: one regex
    for those it matches in linear time, an automaton for each other one."""
    return _matcher(tuple(patterns))


@functools.lru_cache(maxsize=256)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    combined = _compile_any(tuple(p for p in patterns if _linear_regex(p) is not None))
    automata = [_Automaton(p) for p in patterns if _linear_regex(p) is None]
    if not automata:
        if combined is None:
            return lambda path: False
        match: Callable[[str], re.Match[str] | None] = combined.match
        return lambda path: match(path) is not None
    match = combined.match if combined is not None else lambda path: None
    return lambda path: match(path) is not None or any(automaton(path) for automaton in automata)


def first_match(lists) -> Callable[[str], int | None]:
    """A test of which of several lists of globs a path matches first: the index of the first
    list with a match, or None. One regex match per path, where a :func:`matcher` per list would
    take one per list (a kind's include and sniff globs, tried on every file of a walk)."""
    lists = [tuple(patterns) for patterns in lists]
    if any(_linear_regex(p) is None for patterns in lists for p in patterns):
        tests = [(index, matcher(patterns)) for index, patterns in enumerate(lists) if patterns]
        return lambda path: next((index for index, test in tests if test(path)), None)
    alternatives = [f"(?P<g{index}>{_any_of(patterns)})" for index, patterns in enumerate(lists) if patterns]
    if not alternatives:
        return lambda path: None
    match = re.compile("|".join(alternatives), re.S).match

    def first(path: str) -> int | None:
        found = match(path)
        # a match of the alternation of named groups has matched one of them
        return None if found is None else int(cast(str, found.lastgroup)[1:])

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
