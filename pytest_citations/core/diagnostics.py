"""The one value every check produces: a diagnostic at a file position.

A diagnostic is bounded whatever the file it comes from: it keeps a window of its source line
around its column, never the whole line, and its message at most :data:`MESSAGE_LIMIT`
characters; a rule that quotes a value from the file quotes it with :func:`quoted`.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import reprlib
from dataclasses import dataclass, field

CONTEXT_REACH = 200  # characters of the source line a diagnostic keeps on each side of its column
QUOTE_LIMIT = 200  # characters of a value from a file that a message quotes
MESSAGE_LIMIT = 2000  # characters of a message (and of a fix's description)
ELLIPSIS = "\u2026"


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Edit:
    """Replace ``source[start:end]`` (character offsets into the decoded text) with ``text``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Fix:
    """What ``--fix`` would do: a description and non-overlapping edits in one file."""

    description: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True, order=False)
class Diagnostic:
    code: str
    name: str
    severity: Severity
    message: str
    path: str
    line: int = 1
    col: int = 1
    fix: Fix | None = field(default=None, compare=False)
    # a window of the offending source line around ``col`` (see context_window), and how many
    # characters of the line come before it
    context: str | None = field(default=None, compare=False)
    context_start: int = field(default=0, compare=False)
    # What a baseline and a SARIF fingerprint know the diagnostic by, when its message also says
    # what may differ between two runs that find the same thing (the web's answer of the moment: a
    # timeout, then a 503); None: the message (see :attr:`known_as`).
    identity: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        """Bound what the maker gave (a rule, a plugin, the cache): the message, its identity and
        the fix's description cut to MESSAGE_LIMIT characters, the context to its window."""
        if len(self.message) > MESSAGE_LIMIT:
            object.__setattr__(self, "message", clipped(self.message, MESSAGE_LIMIT))
        if self.identity is not None and len(self.identity) > MESSAGE_LIMIT:
            object.__setattr__(self, "identity", clipped(self.identity, MESSAGE_LIMIT))
        if self.fix is not None and len(self.fix.description) > MESSAGE_LIMIT:
            object.__setattr__(self, "fix", dataclasses.replace(self.fix, description=clipped(self.fix.description, MESSAGE_LIMIT)))
        if self.context is not None and len(self.context) > 2 * CONTEXT_REACH + 1:
            window, start = context_window(self.context, self.col - self.context_start)
            object.__setattr__(self, "context", window)
            object.__setattr__(self, "context_start", self.context_start + start)

    @property
    def known_as(self) -> str:
        """The message as a baseline and a SARIF fingerprint match it: its identity, else itself."""
        return self.message if self.identity is None else self.identity

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.line, self.col, self.code, self.message)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"


def sorted_diagnostics(diagnostics) -> list[Diagnostic]:
    """Deterministic order: path, line, column, code, then message; exact repeats dropped."""
    unique = {(d.sort_key, d.severity, d.name): d for d in diagnostics}
    return sorted(unique.values(), key=lambda d: d.sort_key)


def window_bounds(col: int, length: int) -> tuple[int, int]:
    """(start, end) of the window of a line of ``length`` characters kept for a diagnostic at
    ``col`` (1-based): up to :data:`CONTEXT_REACH` characters on each side of the column."""
    index = max(col - 1, 0)
    return max(0, min(index, length) - CONTEXT_REACH), min(length, index + CONTEXT_REACH + 1)


def context_window(line: str, col: int) -> tuple[str, int]:
    """The window of ``line`` a diagnostic at ``col`` keeps, and where it starts in the line."""
    start, end = window_bounds(col, len(line))
    return line[start:end], start


def clipped(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` when it has at most ``limit`` characters; else its head and tail around ``…``,
    followed by the length of the whole: ``abc…xyz (5001 characters)``."""
    if len(text) <= limit:
        return text
    length = f" ({len(text)} characters)"
    return _ends(text, limit - len(length)) + length


def _ends(text: str, limit: int) -> str:
    """``limit`` characters: the first two thirds and the last third of what ``text`` can show
    in ``limit - 1`` characters, around ``…``."""
    head = (limit - 1) * 2 // 3
    return text[:head] + ELLIPSIS + text[len(text) - (limit - 1 - head) :]


class _ShortRepr(reprlib.Repr):
    """``repr`` of the first items of a container, each cut short, and of any integer."""

    def repr_int(self, value: int, level: int) -> str:
        return _integer(value)


_REPR = _ShortRepr()
_REPR.maxstring, _REPR.maxother = 40, QUOTE_LIMIT
_REPR.maxlevel, _REPR.maxdict, _REPR.maxlist, _REPR.maxtuple = 3, 8, 8, 8


def quoted(value: object, *, plain: bool = False) -> str:
    """A value from a checked file as a message quotes it: a string in quotes (its ``repr``), or
    as it is with ``plain``; any other value by its ``repr``. A value longer than
    :data:`QUOTE_LIMIT` characters is cut to its ends (``'abc…xyz' (5001 characters)``), so a
    message stays short whatever the file holds, and an integer too long to print is named by its
    number of digits. Every rule that quotes content from a file goes through here."""
    if isinstance(value, str):
        if len(value) <= QUOTE_LIMIT:
            return value if plain else repr(value)
        shown = _ends(value, QUOTE_LIMIT)
        return f"{shown if plain else repr(shown)} ({len(value)} characters)"
    if isinstance(value, int) and not isinstance(value, bool):
        return _integer(value)
    try:
        return clipped(repr(value))
    except ValueError:  # an integer inside it is too long to print
        return clipped(_REPR.repr(value))


def _integer(value: int) -> str:
    """An integer as a message shows it: by its number of digits when it has too many to print."""
    if value.bit_length() > _INT_BITS:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    return repr(value)


_INT_BITS = int(QUOTE_LIMIT * math.log2(10))  # an integer of more bits has more than QUOTE_LIMIT digits
