"""YAML front matter, read safely and with positions.

The YAML is read as a stream of parser events and built into :class:`Node` values here, so that
nothing is ever constructed from a tag, and every value keeps its line, column and character span.
Anchors and aliases, tags outside YAML's core schema and duplicate keys are not resolved: each is
reported as a :class:`Problem` at its position and the value is left out.
"""

from __future__ import annotations

import datetime
import functools
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pytest_citations.core.jsonlines import nesting_depth

# ruamel.yaml is imported by _import_ruamel() when the first YAML text is read, not with this
# module: every kind's module imports this one at start-up, and a run that reads no YAML must not
# pay for ruamel.yaml (tests/frontends/test_lazy_imports.py). Until then these names are None.
YAML: Any = None
MarkedYAMLError: Any = None
ReaderError: Any = None
ScalarNode: Any = None
CParser: Any = None  # ruamel.yaml.clib's parser; stays None where it is not installed


def _import_ruamel() -> None:
    global YAML, MarkedYAMLError, ReaderError, ScalarNode, CParser
    if YAML is None:
        from ruamel.yaml import YAML
        from ruamel.yaml.error import MarkedYAMLError
        from ruamel.yaml.nodes import ScalarNode
        from ruamel.yaml.reader import ReaderError

        try:
            from _ruamel_yaml import CParser
        except ImportError:
            CParser = None

DELIMITER = "---"
_CORE_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp")}
_TIMESTAMP = re.compile(
    r"^(\d{4})-(\d\d?)-(\d\d?)(?:[Tt ]+(\d\d?):(\d\d):(\d\d)(?:\.(\d+))?[ \t]*(Z|[+-]\d\d?(?::?\d\d)?)?)?$"
)


@dataclass(frozen=True)
class Problem:
    """A front-matter problem: ``kind`` is one of syntax, alias, tag, duplicate-key."""

    kind: str
    message: str
    line: int
    col: int


@dataclass
class Node:
    """A YAML value with its place in the file: 1-based line and column, character span."""

    value: Any  # dict[str, Node] for mappings, list[Node] for sequences, a Python scalar otherwise
    line: int
    col: int
    start: int
    end: int
    key_nodes: dict[str, Node] = field(default_factory=dict)  # for mappings: where each key is

    def plain(self) -> Any:
        if isinstance(self.value, dict):
            return {key: node.plain() for key, node in self.value.items()}
        if isinstance(self.value, list):
            return [node.plain() for node in self.value]
        return self.value


@dataclass(frozen=True)
class Timestamp:
    """A YAML timestamp, kept as written."""

    text: str


@dataclass
class FrontMatter:
    root: Node | None  # None when the YAML is empty or unreadable
    problems: list[Problem]
    start: int  # character offset of the YAML text in the file
    end: int  # character offset just past the YAML text
    first_line: int  # file line of the first YAML line


# A line (split on "\n" alone) that is "---" or "..." and then whitespace only (str.isspace's,
# which is what \s matches in a str pattern): the line that closes the front matter.
_CLOSING_LINE = re.compile(r"^(?:---|\.\.\.)\s*$", re.M)


def split(text: str) -> tuple[int, int, int] | None:
    """(start, end, first line) of the YAML between ``---`` lines, or None if there is none.

    Returns (start, -1, 2) when the front matter is opened but never closed.
    """
    first_end = text.find("\n")
    first = text if first_end == -1 else text[:first_end]
    if first.rstrip("\r").rstrip() != DELIMITER:
        return None
    start = len(text) if first_end == -1 else first_end + 1
    closing = _CLOSING_LINE.search(text, start)
    return (start, closing.start(), 2) if closing else (start, -1, 2)


MAX_DEPTH = 100
_FLOW_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\']|\'\')*\'|[\[{\]}]')


def flow_depth(text: str) -> int:
    """The deepest nesting of flow collections (``[`` and ``{`` outside quotes)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return 0
    return nesting_depth(text, _FLOW_TOKEN)


def parse(text: str, keep: frozenset[str] | None = None) -> FrontMatter | None:
    """The front matter of a Markdown text (BOM already removed), or None when it has none.

    With ``keep``, only those top-level keys get their values built (the rest are parsed, so a
    syntax error is still one, and skipped): for indexes that need two fields of every file.
    """
    bounds = split(text)
    if bounds is None:
        return None
    start, end, first_line = bounds
    if end == -1:
        problem = Problem("syntax", "front matter opened with '---' is never closed", 1, 1)
        return FrontMatter(None, [problem], start, len(text), first_line)
    root, problems = parse_yaml(text[start:end], first_line, keep)
    return FrontMatter(root, problems, start, end, first_line)


def parse_yaml(text: str, first_line: int = 1, keep: frozenset[str] | None = None) -> tuple[Node | None, list[Problem]]:
    """Any YAML text, read the same safe way; ``first_line`` is the file line of its first line.

    The root is None when the text cannot be read; a syntax problem is then the last problem.
    """
    if flow_depth(text) > MAX_DEPTH:  # the parser slows sharply with depth: do not feed it
        return None, [Problem("syntax", f"YAML nested deeper than {MAX_DEPTH} levels", first_line, 1)]
    _import_ruamel()
    try:
        # The C parser (ruamel.yaml.clib) gives the same events as the pure-Python one, many times
        # faster; its error messages differ, so a text it refuses is read again by the pure one.
        builder = _Builder(first_line, pure=False, keep=keep)
        return builder.build(text), builder.problems
    except Exception:  # any refusal is explained by the pure parser below
        pass
    builder = _Builder(first_line, pure=True, keep=keep)
    try:
        return builder.build(text), builder.problems
    except RecursionError:
        problem = Problem("syntax", "YAML nested too deeply", first_line, 1)
    except ReaderError as error:  # a character YAML does not allow, such as a control character
        before = text[: error.position]
        line, col = first_line + before.count("\n"), error.position - (before.rfind("\n") + 1) + 1
        problem = Problem("syntax", f"YAML does not allow the character U+{error.character:04X} ({error.reason})", line, col)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = first_line + (mark.line if mark else 0)
        col = (mark.column + 1) if mark else 1
        message = "; ".join(str(part) for part in (error.context, error.problem) if part)
        problem = Problem("syntax", f"YAML syntax error: {message}", line, col)
    return None, [*builder.problems, problem]


class _Builder:
    """Builds :class:`Node` values from parser events.

    Events are told apart by their class names, not with ``isinstance``: the C parser makes them
    from the ``ruamel.yaml.events`` module it saw when it was loaded, and a C extension is never
    loaded twice, while that Python module may have been (a test framework restoring
    ``sys.modules``)."""

    def __init__(self, first_line: int, pure: bool, keep: frozenset[str] | None = None) -> None:
        self.first_line = first_line
        self.problems: list[Problem] = []
        self.yaml = _yaml(pure)
        self.keep = keep  # top-level keys whose values are built; None: all
        self.version = None
        self.pure = pure
        self.text = ""  # the YAML being built

    def _events(self, text: str) -> Iterator[Any]:
        """The parser events of ``text``. The C parser is driven directly: ``YAML.parse`` would
        build a loader class, a constructor and a resolver for every text, which costs more than
        parsing a small front matter; the events are the C parser's either way."""
        if self.pure or CParser is None:
            return iter(self.yaml.parse(text))
        return iter(CParser(text).get_event, None)

    def _position(self, event) -> tuple[int, int, int]:
        mark = event.start_mark
        return self.first_line + mark.line, mark.column + 1, mark.index

    def build(self, text: str) -> Node | None:
        self.text = text
        events = self._events(text)
        root = None
        documents = 0
        for event in events:
            name = type(event).__name__
            if name == "DocumentStartEvent":
                self.version = getattr(event, "version", None)  # a %YAML directive changes resolution
                documents += 1
                if documents > 1:
                    line, col, _ = self._position(event)
                    self.problems.append(Problem("syntax", "front matter holds more than one YAML document", line, col))
                    return root
            elif name in ("StreamStartEvent", "DocumentEndEvent", "StreamEndEvent"):
                continue
            else:
                root = self._node(event, events, self.keep)
        return root

    def _flag(self, event, line: int, col: int) -> bool:
        """Report an anchor or a tag outside the core schema; True when the value must be dropped."""
        anchor = event.anchor
        if anchor:
            self.problems.append(Problem("alias", f"YAML anchor &{anchor} is not allowed in front matter", line, col))
        tag = event.tag
        if tag and tag not in _CORE_TAGS and tag != "!":
            shown = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag
            self.problems.append(Problem("tag", f"YAML tag {shown} is not allowed in front matter", line, col))
            return True
        return False

    def _node(self, event, events, keep: frozenset[str] | None = None) -> Node | None:
        mark = event.start_mark
        line, col, start = self.first_line + mark.line, mark.column + 1, mark.index
        kind = type(event).__name__
        if kind == "AliasEvent":
            self.problems.append(Problem("alias", f"YAML alias *{event.anchor} is not allowed in front matter", line, col))
            return None
        # most values have neither an anchor nor a tag: _flag is called for those that do
        drop = (event.anchor is not None or event.tag is not None) and self._flag(event, line, col)
        if kind == "ScalarEvent":
            return None if drop else Node(self._scalar(event, line, col), line, col, start, event.end_mark.index)
        if kind == "SequenceStartEvent":
            items: list[Node | None] = []
            for item in events:
                if type(item).__name__ == "SequenceEndEvent":
                    return None if drop else Node([n for n in items if n is not None], line, col, start, item.end_mark.index)
                items.append(self._node(item, events))
        if kind == "MappingStartEvent":
            values: dict[str, Node] = {}
            keys: dict[str, Node] = {}
            for key_event in events:
                if type(key_event).__name__ == "MappingEndEvent":
                    return None if drop else Node(values, line, col, start, key_event.end_mark.index, keys)
                key = self._node(key_event, events)
                if keep is not None and (key is None or key.value not in keep):
                    _skip(next(events), events)
                    continue
                value = self._node(next(events), events)
                if key is None:
                    continue
                name = key.value if isinstance(key.value, str) else self._key_name(key)
                if name in keys:
                    self.problems.append(
                        Problem("duplicate-key", f"duplicate key {name!r} (first on line {keys[name].line})", key.line, key.col)
                    )
                    continue
                keys[name] = key
                if value is not None:
                    values[name] = value
        raise AssertionError(f"unexpected YAML event {event!r}")

    def _key_name(self, key: Node) -> str:
        """The name of a key that is no string, for duplicate checks and messages: a scalar's
        value, a mapping's or sequence's own text (the text of its value would hold the names of
        its keys, each escaped once more per level of nesting: exponential in the depth)."""
        if isinstance(key.value, (dict, list)):
            return self.text[key.start : key.end]
        return str(key.value)

    def _scalar(self, event, line: int, col: int) -> Any:
        text, tag = event.value, event.tag
        if tag is None and (event.style or not event.implicit[0]):
            return text  # quoted: a string
        if tag:
            return self._constructed(str(tag), text, line, col)
        return self._plain(text, tuple(event.implicit), line, col)

    def _plain(self, text: str, implicit: tuple, line: int, col: int) -> Any:
        """The value of a plain scalar (int, bool, null...), remembered per text: front matter
        repeats the same plain values (every key is one), and resolving one walks the resolver's
        table. The values are immutable; one that fails to construct is never remembered."""
        key = (self.version, text, implicit)
        value = _PLAIN_VALUES.get(key, _UNSEEN)
        if value is _UNSEEN:
            problems = len(self.problems)
            value = self._constructed(str(self.yaml.resolver.resolve(ScalarNode, text, implicit)), text, line, col)
            if len(self.problems) == problems:
                if len(_PLAIN_VALUES) > _PLAIN_VALUES_KEPT:
                    _PLAIN_VALUES.clear()
                _PLAIN_VALUES[key] = value
        return value

    def _constructed(self, tag: str, text: str, line: int, col: int) -> Any:
        """The value of a scalar with its tag; the text itself, and a problem, if the tag refuses it."""
        try:
            return _construct(tag, text)
        except ValueError:
            shown = "!!" + tag.rsplit(":", 1)[-1]
            self.problems.append(Problem("syntax", f"{text!r} is not a valid {shown}", line, col))
            return text


_PLAIN_VALUES: dict[tuple, Any] = {}
# enough for the distinct plain scalars of 10k memories (keys, ids, cited paths, line numbers),
# so that the common ones are not forgotten and resolved again
_PLAIN_VALUES_KEPT = 16384
_UNSEEN = object()
_YAML: dict[bool, Any] = {}


def _yaml(pure: bool):
    """One safe YAML reader per parser (C or pure), reused: building one, with its resolver
    table, costs more than reading a small front matter."""
    if pure not in _YAML:
        _YAML[pure] = YAML(typ="safe", pure=pure)
    return _YAML[pure]


_OPENS = frozenset({"SequenceStartEvent", "MappingStartEvent"})
_CLOSES = frozenset({"SequenceEndEvent", "MappingEndEvent"})


def _skip(event, events) -> None:
    """Consume the events of one value without building it."""
    if type(event).__name__ not in _OPENS:
        return
    depth = 1
    for following in events:
        name = type(following).__name__
        if name in _OPENS:
            depth += 1
        elif name in _CLOSES:
            depth -= 1
            if not depth:
                return


def _construct(tag: str, text: str) -> Any:
    name = tag.rsplit(":", 1)[-1]
    if name == "null":
        return None
    if name == "bool":
        return text.lower() == "true"
    if name == "int":
        digits = text.replace("_", "")
        sign = -1 if digits.startswith("-") else 1
        digits = digits.lstrip("+-")
        for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
            if digits.lower().startswith(prefix):
                value = int(digits[2:], base)
                # refused as int() refuses a decimal text of as many digits: every integer front
                # matter yields can be printed (a message quoting it cannot fail)
                if value.bit_length() * math.log10(2) >= (sys.get_int_max_str_digits() or math.inf):
                    raise ValueError(f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits")
                return sign * value
        return sign * int(digits, 10)
    if name == "float":
        lowered = text.lower().replace("_", "")
        if lowered in (".nan",):
            return math.nan
        if lowered.lstrip("+-") == ".inf":
            return -math.inf if lowered.startswith("-") else math.inf
        return float(lowered)
    if name == "timestamp":
        return Timestamp(text)
    return text


def is_datetime(value: Any) -> bool:
    """A YAML timestamp or an ISO 8601 string with real calendar values."""
    text = value.text if isinstance(value, Timestamp) else value
    if not isinstance(text, str):
        return False
    match = _TIMESTAMP.match(text.strip())
    if not match:
        return False
    year, month, day, hour, minute, second = (int(part or 0) for part in match.groups()[:6])
    try:
        datetime.datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    return True



# -- a strict plain subset of YAML, read without a parser ------------------------------------------
#
# An index that needs two fields of every front matter should not pay for a YAML parse when the
# text is in a subset whose YAML meaning is certain: top-level ``key: value`` lines at column 0,
# each value inline or a block below an empty one (a sequence of scalars or of one-line mappings,
# or a flat mapping), with comments and blank lines anywhere. An inline value is a one-line plain
# scalar of a conservative grammar, a quoted scalar with JSON's escapes (no surrogate), or a flow
# sequence of plain words. Anything else (tabs, CR, control characters, anchors, tags, multi-line scalars, odd
# indents...) is outside the subset, and the caller parses the YAML. No text of the subset is a
# YAML error. Every line has one reading, so the loops are possessive: a text outside the subset
# is refused in linear time.

_KEY = r"[A-Za-z_][A-Za-z0-9_-]{0,63}"  # short: YAML limits a simple key to 1024 characters
# No indicator first; no flow indicator, ': ', ':' last, ' #' (a comment), or space last.
_PLAIN = r"""[^\s\-?:,\[\]{}#&*!|>'"%@`](?:[^\s,\[\]{}:]++|:(?=\S)| +(?=[^\s#]))*+"""
_QUOTED = r"""(?:"(?:[^"\\\n]++|\\(?:[\\"/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4}))*+"|'(?:[^'\n]++|'')*+')"""
_WORD = r"[A-Za-z0-9_][A-Za-z0-9_.-]*+"
_FLOW = rf"\[ *(?:{_WORD}(?: *, *{_WORD})*+)? *\]"
_SCALAR = rf"(?:{_PLAIN}|{_QUOTED}|{_FLOW})"
_LINE_END = r" *(?:(?<= )#.*)?\n"  # trailing spaces, a comment after a space
_IGNORED = r" *(?:#.*)?\n"  # a blank or comment line
_VALUE = rf"(?: +{_SCALAR})?+{_LINE_END}"
_SEQUENCE_ITEM = rf"(?:{_KEY}:{_VALUE}(?:{_IGNORED}|(?P=dash)  {_KEY}:{_VALUE})*+|{_SCALAR}{_LINE_END})"
_SEQUENCE = rf"(?P<dash> *)- {_SEQUENCE_ITEM}(?:{_IGNORED}|(?P=dash)- {_SEQUENCE_ITEM})*+"
_MAPPING = rf"(?P<indent> +){_KEY}:{_VALUE}(?:{_IGNORED}|(?P=indent){_KEY}:{_VALUE})*+"
_ENTRY = rf"{_KEY}:(?: +{_SCALAR}{_LINE_END}|{_LINE_END}(?:{_IGNORED})*+(?:{_SEQUENCE}|{_MAPPING})?+)"
_PLAIN_DOCUMENT = re.compile(rf"(?:{_IGNORED}|{_ENTRY})*+")
# Inside a document of the subset: a kept value, its inline part and its block lines.
_KEPT_INLINE = re.compile(rf"(?: +(?P<plain>{_PLAIN}))? *(?:(?<= )#.*)?")
_KEPT_ITEM = re.compile(rf" *- (?P<key>{_KEY}):(?: +(?P<plain>{_PLAIN}))? *(?:(?<= )#.*)?")
_BLOCK_LINES = r"(?:(?:[ #-].*)?\n)*+"
# First characters of the plain scalars YAML 1.1 or 1.2 may resolve to a number, a timestamp, a
# null, a merge or a value; and the words they resolve to a boolean or a null (in any case).
_NOT_STRING_FIRST = frozenset("-+0123456789.<~=")
_NOT_STRING_WORDS = frozenset({"y", "yes", "n", "no", "true", "false", "on", "off", "null"})
_OUTSIDE = object()


def read_plain(text: str, keep: frozenset[str]) -> dict[str, Any] | None:
    """The ``keep`` fields of a YAML text in the plain subset above, or None when it is outside.

    A kept value is a string (a plain scalar YAML resolves to a string), None (empty), or a list of
    (key, value) pairs (a block sequence of one-key mappings with such values); a kept key twice or
    any other kept value is outside the subset."""
    if text and not text.endswith("\n"):
        text += "\n"
    if not text.replace("\n", " ").isprintable() or _PLAIN_DOCUMENT.fullmatch(text) is None:
        return None  # isprintable: within YAML's printable characters, and no tab, BOM or U+2028
    fields: dict[str, Any] = {}
    for entry in _kept_entries(keep).finditer(text):
        value = _kept_value(entry["inline"], entry["block"])
        if value is _OUTSIDE or entry["key"] in fields:
            return None
        fields[entry["key"]] = value
    return fields


@functools.lru_cache(maxsize=8)
def _kept_entries(keep: frozenset[str]) -> re.Pattern[str]:
    """Top-level entries of the kept keys: in the subset, a line at column 0 that starts with a
    key is one, and its block is the lines after it that start with a space or '-' (or are comments)."""
    keys = "|".join(re.escape(key) for key in sorted(keep))
    return re.compile(rf"^(?P<key>{keys}):(?P<inline>.*)\n(?P<block>{_BLOCK_LINES})", re.M)


def _kept_value(inline: str, block: str) -> Any:
    """A kept value from its inline text (after the colon) and its block lines."""
    match = _KEPT_INLINE.fullmatch(inline)
    if match is None:  # quoted or a flow sequence
        return _OUTSIDE
    plain = match["plain"]
    if plain is not None:  # the subset has no block after an inline value
        return plain if _resolves_to_string(plain) else _OUTSIDE
    items = [line for line in block.split("\n") if line.strip(" ") and not line.lstrip(" ").startswith("#")]
    if not items:
        return None
    pairs = []
    for line in items:
        item = _KEPT_ITEM.fullmatch(line)
        if item is None or not _resolves_to_string(item["key"]):
            return _OUTSIDE
        value = item["plain"]
        if value is not None and not _resolves_to_string(value):
            return _OUTSIDE
        pairs.append((item["key"], value))
    return pairs


def _resolves_to_string(plain: str) -> bool:
    return plain[0] not in _NOT_STRING_FIRST and plain.lower() not in _NOT_STRING_WORDS
