"""JSON and JSON Lines, read the way a CI gate must, for every kind that reads them.

Duplicate keys, ``NaN``/``Infinity`` and nesting deeper than :data:`MAX_DEPTH` are refused (the
``json`` module's own depth limit moved between Python versions; ours does not). A JSON Lines file
is streamed, whatever its size: each line that is not one JSON object is reported under the kind's
own code, and each line over ``max-file-size`` under C003, and the other lines are still read; a
file that is one pretty-printed document is a single C004.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

from pytest_citations.core.sources import Line, LongLine, SourceError
from pytest_citations.rules import Finding, Reported, Rule
from pytest_citations.rules.core import file_too_large, parse_error

MAX_DEPTH = 500
_JSON_WHITESPACE = " \t\n\r"  # what json.loads skips around a value (not str.isspace's wider set)
_NESTING_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{\]}]')
_CONTEXT = 500  # characters of a broken line kept to show it


class DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return result


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


MAX_DIGITS = 4300  # Python's own default int limit, made the same on every version


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number with {len(text.lstrip('-'))} digits is longer than {MAX_DIGITS}")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_DIGITS:
        raise ValueError(f"a number with {len(text)} characters is longer than {MAX_DIGITS}")
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text[:40]} is out of range for a JSON number")
    return value


_DECODER = json.JSONDecoder(
    object_pairs_hook=_object_without_duplicates,
    parse_constant=_reject_constant,
    parse_int=_parse_int,
    parse_float=_parse_float,
)
_SHORT_DECODER = json.JSONDecoder(
    object_pairs_hook=_object_without_duplicates,
    parse_constant=_reject_constant,
    parse_float=_parse_float,
)
"""For a text of at most MAX_DIGITS characters, which can hold no longer number: integers are
then read by the scanner itself, without a Python call each. Also for a longer text while Python
refuses integers of more digits itself (:func:`_ints_bounded`); a text it refuses is then read
again by the full decoder, whose error is the one reported."""


def _ints_bounded() -> bool:
    """Whether ``int()`` refuses a decimal of more than MAX_DIGITS digits by itself (Python 3.11+,
    unless its limit was raised or lifted): then every integer the scanner reads, _parse_int reads
    the same, and every one it refuses, _parse_int refuses too."""
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    return 0 < limit <= MAX_DIGITS
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) in ``value`` holding a lone UTF-16 surrogate, if any."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def nesting_depth(text: str, tokens: re.Pattern[str] = _NESTING_TOKEN) -> int:
    """The deepest nesting of ``[`` and ``{`` in ``text``; ``tokens`` matches the quoted strings to
    skip (JSON's by default) and the brackets themselves."""
    depth = deepest = 0
    for token in tokens.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(depth - 1, 0)
    return deepest


def _decode(decoder: json.JSONDecoder, text: str) -> Any:
    """``decoder.decode(text)``, calling its scanner directly when the text is one JSON value with
    no whitespace before it and at most JSON whitespace after it (a JSON Lines line, or a document
    ending with a newline, as producers write them); any other text, and every error, goes through
    ``decode`` itself, so its errors are json's own."""
    try:
        # (scan_once is set by JSONDecoder.__init__; the type stubs do not declare it)
        value, end = decoder.scan_once(text, 0)  # type: ignore[attr-defined]
    except (StopIteration, ValueError, RecursionError):
        return decoder.decode(text)
    return value if end == len(text) or not text[end:].strip(_JSON_WHITESPACE) else decoder.decode(text)


def _too_deep(text: str) -> bool:
    return text.count("[") + text.count("{") > MAX_DEPTH and nesting_depth(text) > MAX_DEPTH


def loads(text: str) -> Any:
    """``json.loads`` that refuses duplicate keys, NaN/Infinity (written or by overflow, ``1e400``),
    numbers longer than MAX_DIGITS, lone surrogate escapes (``"\\ud800"``, which no UTF-8 file can
    hold) and nesting deeper than MAX_DEPTH."""
    # Valid JSON of at most 2 * MAX_DEPTH characters cannot nest deeper (each level opens and
    # closes a bracket): such a text is only measured when it fails to decode.
    if len(text) > 2 * MAX_DEPTH and _too_deep(text):
        raise RecursionError("nested too deeply")
    decoder = _SHORT_DECODER if len(text) <= MAX_DIGITS or _ints_bounded() else _DECODER
    try:
        value = _decode(decoder, text)
    except (ValueError, RecursionError):
        if _too_deep(text):
            raise RecursionError("nested too deeply") from None
        if decoder is not _SHORT_DECODER or len(text) <= MAX_DIGITS:
            raise
        value = _decode(_DECODER, text)  # raises what the full decoder raises
    if "\\" in text and _SURROGATE_ESCAPE.search(text):  # a one-character test is much the cheaper
        bad = _lone_surrogate(value)
        if bad is not None:
            raise ValueError(f"a lone UTF-16 surrogate escape in {bad.encode('utf-8', 'backslashreplace').decode()[:60]!r}")
    return value


def type_name(value: Any) -> str:
    """What a decoded JSON value is, for messages: ``null``, ``a number``, ``an array``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def describe(value: Any) -> str:
    """Like :func:`type_name`, naming JSON containers and strings as such (``a JSON array``)."""
    name = type_name(value)
    return {"an array": "a JSON array", "an object": "a JSON object", "a string": "a JSON string"}.get(name, name)


def error_message(exc: Exception, document: bool = False, text: str | None = None) -> tuple[str, int, int]:
    """(message, line, column) for a text :func:`loads` refused; line and column are 1-based
    within that text (so always line 1 for one JSON Lines line). A duplicate key is placed at its
    second occurrence when the ``text`` is given."""
    if isinstance(exc, RecursionError):
        return "invalid JSON: nested too deeply", 1, 1
    if isinstance(exc, DuplicateKeyError) and text is not None:
        offset = duplicate_key_offset(text, exc.key)
        if offset is not None:
            line_start = text.rfind("\n", 0, offset) + 1
            return f"invalid JSON: {exc}", text.count("\n", 0, offset) + 1, offset - line_start + 1
    if isinstance(exc, json.JSONDecodeError):
        message = exc.msg[0].lower() + exc.msg[1:]
        if message.endswith(" at"):
            message += f" line {exc.lineno} column {exc.colno}" if document else f" column {exc.colno}"
        return f"invalid JSON: {message}", exc.lineno, exc.colno
    return f"invalid JSON: {exc}", 1, 1


def duplicate_key_offset(text: str, key: str) -> int | None:
    """Where ``key`` first repeats within one object (its opening quote) in a text that is JSON
    but for that; None when it does not."""
    objects: list[set[str] | None] = []  # per open bracket: the keys seen in an object, None in an array
    key_next = False
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        if char == '"':
            # (json.decoder.scanstring exists; the type stubs do not declare it)
            value, end = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
            if key_next:
                keys = cast("set[str]", objects[-1])  # a key is read only inside an object
                if value == key and value in keys:
                    return index
                keys.add(value)
                key_next = False
            index = end
            continue
        if char == "{":
            objects.append(set())
            key_next = True
        elif char == "[":
            objects.append(None)
        elif char in "]}":
            objects.pop()
        elif char == ",":
            key_next = objects[-1] is not None
        index += 1
    return None


def document(ctx, invalid: Rule) -> Any:
    """A whole-file JSON document's data, or a :class:`Reported` finding of the rule ``invalid``
    that says, at its line and column, why it is not one."""
    text = ctx.full_text()
    try:
        return loads(text)
    except (ValueError, RecursionError) as exc:
        message, line, col = error_message(exc, document=True, text=text)
        return invalid.report(Finding(message, line, col, context=ctx.source.line_text(line)[:_CONTEXT]))


@dataclass(frozen=True)
class JsonLine:
    """One JSON Lines line that holds an object."""

    line: Line
    data: dict[str, Any]


def records(ctx, invalid: Rule, unit: Callable[[Line, dict[str, Any]], Any] = JsonLine) -> Iterator[Any]:
    """``unit(line, data)`` (a :class:`JsonLine` unless a kind builds its own) for each object of a
    JSON Lines file, and a :class:`Reported` finding of the rule ``invalid`` for each bad line.

    The file is streamed with ``max-file-size`` capping each line, not the file: a line over it is
    reported under C003 at that line, unread, and the other lines are still read."""
    first = True
    # A first line that only opens an object or an array, in a file too large to read whole: the
    # next line decides whether the file is one document (it is no record either) or JSON Lines
    # whose first line is bad (a record follows). (its line, text, and its finding as a bad line)
    opened: tuple[Line, str, Reported] | None = None
    for line in ctx.stream():
        if line.__class__ is LongLine:
            if opened is not None:
                yield opened[2]
                opened = None
            yield file_too_large.report(Finding(_too_long(line, ctx.max_file_size), line.number, 1))
            first = False
            continue
        text = line.text
        if not text.strip():
            continue
        try:
            data = loads(text)
        except (ValueError, RecursionError) as exc:
            one_document = _one_document(ctx, text) if first else False
            if one_document or opened is not None:
                at, first_text = (line, text) if opened is None else opened[:2]
                yield parse_error.report(Finding(_ONE_DOCUMENT, at.number, 1, context=first_text[:_CONTEXT]))
                return
            message, _, col = error_message(exc, text=text)
            bad = invalid.report(Finding(message, line.number, col, context=text[:_CONTEXT]))
            if one_document is None:
                opened = (line, text, bad)
            else:
                yield bad
            continue
        finally:
            first = False
        if opened is not None:
            yield opened[2]
            opened = None
        if not isinstance(data, dict):
            finding = Finding(f"line holds {describe(data)}, not a JSON object", line.number, 1, context=text[:_CONTEXT])
            yield invalid.report(finding)
            continue
        yield unit(line, data)
    if opened is not None:
        yield opened[2]


_ONE_DOCUMENT = "the file is one JSON document spread over several lines, not JSON Lines: write one record per line"


def _too_long(line: LongLine, cap: int) -> str:
    return (f"line is {line.size} bytes, over the {cap}-byte limit on one record (max-file-size): it is skipped; "
            "the other lines are checked")


def _one_document(ctx, first_line: str) -> bool | None:
    """Whether the whole file, over more than one line, is one JSON document. A file over
    ``max-file-size`` is not read whole to tell: when its first line only opens an object or an
    array, as a pretty-printed document's does, the next line tells (None), else it is not one."""
    try:
        text = ctx.full_text()
    except SourceError as error:
        if error.code != "C003":
            raise
        return None if first_line.strip() in ("{", "[") else False
    if sum(1 for line in text.splitlines() if line.strip()) < 2:
        return False
    try:
        loads(text)
    except (ValueError, RecursionError):
        return False
    return True
