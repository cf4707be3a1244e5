"""Repo-relative path globs: ``*`` and ``?`` stay within a folder, ``**`` spans folders.

Globs come from the settings, which a checkout may write, and a walk matches every file against
them, so matching is both fast and bounded: in time O(path length x glob length) for any glob, and
a list of globs in one pass over the path for all of them. Most globs (``**/*.md``, ``.git``,
``docs/**``, ``legacy/**/citations.jsonl``, ``*.min.*``) become one regular expression built so
that the regex engine never tries two ways of matching the same characters (:func:`_linear_regex`),
and a list's such globs share one regex; the others of a list (``**/a/**/b``, ``**.md``, ``a**b``)
are matched together by one :class:`_Automaton`, which follows every way of matching each of them
at once. How many globs the settings may hold, and how long, is capped where the settings are read
(``config.MAX_GLOBS``, ``config.MAX_GLOB_CHARACTERS``): that bounds the work of each character."""

from __future__ import annotations

import functools
import operator
import re
import sys
from collections.abc import Callable
from typing import cast

# The pieces of a glob: a literal character, ``?``, ``*``, ``**`` and ``**/``.
_LITERAL, _ONE, _STAR, _ANY, _ANY_FOLDERS = "literal", "?", "*", "**", "**/"


@functools.lru_cache(maxsize=1024)
def _raw_tokens(pattern: str) -> tuple[tuple[str, str], ...]:
    """The pieces of a glob, as (what, literal character), word for word; a pattern without ``/``
    matches a name in any folder, as in .gitignore, so it starts with ``**/``."""
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


_MAY_MATCH_NOTHING = (_STAR, _ANY, _ANY_FOLDERS)


@functools.lru_cache(maxsize=1024)
def _tokens(pattern: str) -> tuple[tuple[str, str], ...]:
    """The pieces of a glob, each run of ``*``, ``**`` and ``**/`` written in its shortest form
    (:func:`_shortest_run`): the same paths match, and a run holds at most one ``**/``."""
    tokens: list[tuple[str, str]] = []
    run: list[str] = []
    for what, char in _raw_tokens(pattern):
        if what in _MAY_MATCH_NOTHING:
            run.append(what)
            continue
        tokens += [(kind, "") for kind in _shortest_run(run)]
        run = []
        tokens.append((what, char))
    tokens += [(kind, "") for kind in _shortest_run(run)]
    return tuple(tokens)


def _shortest_run(run: list[str]) -> list[str]:
    """A run of ``*``, ``**`` and ``**/`` in its shortest form. ``**`` with anything matches
    anything, as ``**``; so does ``**/`` with a ``*`` on each side or a ``*`` between two ``**/``
    (the ``*`` takes the name after the last ``/``, or before the first); a repeated piece matches
    what it matches once. What is left is ``*``, ``**/``, or ``**/`` with one ``*`` before or
    after it."""
    if not run:
        return []
    if _ANY in run:
        return [_ANY]
    kinds = [kind for index, kind in enumerate(run) if index == 0 or run[index - 1] != kind]
    if _ANY_FOLDERS not in kinds:
        return [_STAR]
    first, last = kinds.index(_ANY_FOLDERS), len(kinds) - 1 - kinds[::-1].index(_ANY_FOLDERS)
    if _STAR in kinds[first:last] or (first > 0 and last < len(kinds) - 1):
        return [_ANY]
    return kinds


_REGEX = {_ANY_FOLDERS: "(?:.*/)?", _ANY: ".*", _STAR: "[^/]*", _ONE: "[^/]"}


@functools.lru_cache(maxsize=1024)
def _glob_regex(pattern: str) -> str:
    """The regex of a glob, word for word; a pattern that names a folder also matches everything
    below it. It states what a glob means; :func:`_linear_regex` is how it is matched."""
    return "".join(_piece_regex(what, char) for what, char in _raw_tokens(pattern)) + "(?:/.*)?\\Z"


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
    """Globs matched one character at a time, following every way of matching each at once.

    The pieces of every glob are positions in one row, each glob's followed by two of its own: the
    glob has matched (F), and the glob has matched a folder above the path (T, once a ``/``
    follows F), after which whatever follows matches too (the ``(?:/.*)?`` of :func:`_glob_regex`).
    Bit ``i`` of the state says "the pieces before position ``i`` of its glob match what has been
    read"; each character moves every bit at once, in a few operations on Python integers, so a
    path is matched in time O(path x positions / 64), whatever and however many the globs. The
    states once reached are numbered and their moves remembered, so that most characters cost a
    lookup. ``**/`` is three positions: its start, which reads nothing and leads to the next two or
    past them, any characters, and ``/``."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.patterns = patterns
        literals: dict[str, int] = {}  # character -> the positions that read it
        one = star = any_char = skip = entries = starts = 0
        self.ends: list[int] = []  # each glob's F and T bits
        tails = position = 0
        for pattern in patterns:
            starts |= 1 << position
            for what, char in _tokens(pattern):
                bit = 1 << position
                if what == _ANY_FOLDERS:  # start, any characters, "/"
                    entries |= bit
                    skip |= bit | bit << 1
                    any_char |= bit << 1
                    literals["/"] = literals.get("/", 0) | bit << 2
                    position += 3
                    continue
                if what == _LITERAL:
                    literals[char] = literals.get(char, 0) | bit
                elif what == _ONE:
                    one |= bit
                else:  # "*" and "**" may match nothing
                    skip |= bit
                    star |= bit if what == _STAR else 0
                    any_char |= bit if what == _ANY else 0
                position += 1
            final, tail = 1 << position, 1 << (position + 1)
            literals["/"] = literals.get("/", 0) | final  # F moves on to T on "/"
            self.ends.append(final | tail)
            tails |= tail
            position += 2
        self.size, self.tails = position, tails
        self.accepting = functools.reduce(operator.or_, self.ends, 0)
        self.skip, self.entries = skip, entries
        stay, stay_on_slash = any_char | star | tails, any_char | tails
        # character -> (positions it moves on from, positions it stays on)
        self.moves = {char: (bits | (one if char != "/" else 0), stay if char != "/" else stay_on_slash)
                      for char, bits in literals.items()}
        self.other = (one, stay)
        self.start = self._closure(starts)
        self.capacity = max(64, min(_MAX_STATES, _MEMO_BYTES // (self.size // 8 + _STATE_OVERHEAD)))
        self.answers: dict[str, bool] = {}  # path -> whether it matches, for the last paths asked
        self.answered = 0  # the characters of those paths
        self._forget()

    def _forget(self) -> None:
        """Start remembering states afresh (the start is state 0)."""
        self.numbers: dict[int, int] = {self.start: 0}
        self.states: list[int] = [self.start]
        self.rows: list[dict[str, int]] = [{}]  # state number -> {character: next state number}
        self.verdicts: list[bool | None] = [self._verdict(self.start)]

    def _closure(self, state: int) -> int:
        """``state`` with every position reachable without reading a character. Adding the
        positions that may match nothing to those of them in the state carries each such bit up
        through the run of them it is in, and one past it: every position of the run above it, and
        the next; a ``**/`` start leads past its ``/`` as well, and a run holds at most one
        (:func:`_shortest_run`), so two rounds reach all."""
        skip = self.skip
        state |= ((state & skip) + skip) ^ skip
        jumps = state & self.entries
        if jumps:
            state |= jumps << 3
            state |= ((state & skip) + skip) ^ skip
        return state

    def _verdict(self, state: int) -> bool | None:
        """What every path with this state after its start says: False when no glob can match any
        more, True when one matched a folder above it; None while undecided."""
        if not state:
            return False
        return True if state & self.tails else None

    def _number(self, state: int) -> int:
        """The number of ``state``, numbered now if it is new; the states remembered are
        forgotten first when there are :attr:`capacity` of them (each is ``size`` bits)."""
        number = self.numbers.setdefault(state, len(self.states))
        if number == len(self.states):  # a new state
            if number >= self.capacity:
                self._forget()
                return self._number(state)
            self.states.append(state)
            self.rows.append({})
            self.verdicts.append(self._verdict(state))
        return number

    def _next(self, number: int, char: str) -> int:
        """The number of the state after reading ``char`` in state ``number``."""
        row = self.rows[number]
        following = row.get(char)
        if following is None:
            state = self.states[number]
            move, stay = self.moves.get(char, self.other)
            following = row[char] = self._number(self._closure(((state & move) << 1) | (state & stay)))
        return following

    def _run(self, path: str, stop_early: bool) -> int:
        """The number of the state after ``path``, or after the first character that decides
        when ``stop_early``."""
        number = 0
        for char in path:
            number = self._next(number, char)
            if stop_early and self.verdicts[number] is not None:
                break
        return number

    def __call__(self, path: str) -> bool:
        """Whether ``path`` matches one of the globs; the answers for the last paths asked are
        remembered (a front end may ask of one path several times: pytest does)."""
        found = self.answers.get(path)
        if found is None:
            number = self._run(path, stop_early=True)
            verdict = self.verdicts[number]
            found = bool(self.states[number] & self.accepting) if verdict is None else verdict
            self.answered += len(path)
            if self.answered > _MAX_ANSWERED:
                self.answers.clear()
                self.answered = len(path)
            self.answers[path] = found
        return found

    def matching(self, path: str) -> tuple[int, ...]:
        """The indices of the globs ``path`` matches."""
        number = self._run(path, stop_early=False)  # (before the list of states: it may start afresh)
        state = self.states[number]
        if not state & self.accepting:
            return ()
        return tuple(index for index, ends in enumerate(self.ends) if state & ends)


_MAX_STATES = 4096  # states whose moves an automaton remembers (each path adds at most its length)
_MEMO_BYTES = 1 << 20  # and the room they may take, about: fewer states of a larger automaton
_STATE_OVERHEAD = 200  # bytes of a remembered state beyond its bits: its number, its row of moves
_MAX_ANSWERED = 1 << 18  # characters of the paths whose answers an automaton remembers


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
    others = tuple(p for p in patterns if _linear_regex(p) is None)
    if not others:
        if combined is None:
            return lambda path: False
        match: Callable[[str], re.Match[str] | None] = combined.match
        return lambda path: match(path) is not None
    automaton = _Automaton(others)
    match = combined.match if combined is not None else lambda path: None
    return lambda path: match(path) is not None or automaton(path)


def matching(patterns) -> Callable[[str], tuple[int, ...]]:
    """A test of which of ``patterns`` a path matches (their indices, in order), for testing many
    paths: one automaton for them all (``per-file-ignores``, whose globs each turn off codes)."""
    return _matching(tuple(patterns))


@functools.lru_cache(maxsize=64)
def _matching(patterns: tuple[str, ...]) -> Callable[[str], tuple[int, ...]]:
    return _Automaton(patterns).matching if patterns else lambda path: ()


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
