"""The KG files of the ear-ids kind (Turtle, N-Triples, JSON-LD): every IRI under the section base,
found by scanning the text, not by parsing it (see :func:`scan_turtle`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from pytest_citations.core.patterns import AlwaysMatches


@dataclass(frozen=True)
class KgIri:
    """An IRI under the section base in a KG file. ``start``/``end`` span the text to replace
    with the expected IRI (``form`` says how to write it: ``iri``, ``local`` or ``json``);
    ``prefix`` is what a prefixed name's namespace supplies of the IRI."""

    iri: str
    line: int
    col: int
    start: int
    end: int
    form: str
    prefix: str = ""


# The lexical grammar used to find IRIs in Turtle and N-Triples (a subset of the W3C Turtle
# grammar, enough to never mistake string or comment text for an IRI):
#   IRIREF   '<' ([^#x00-#x20<>"{}|^`\] | UCHAR)* '>'
#   PNAME    PN_PREFIX? ':' PN_LOCAL     (PN_LOCAL with %HH and \-escapes; a final '.' ends the statement)
#   PREFIX   '@prefix' or 'PREFIX', PN_PREFIX? ':', IRIREF   (declarations; later ones win)
#   STRING   the four quoted forms, with \-escapes;  COMMENT  '#' to the end of the line
# Scanning takes time linear in the text and no memory beyond its tokens. Each token is found with
# runs of one character class, escapes stepped over one by one (a regex that repeats a group keeps a
# record of each repetition: a 300 KB name took 100 MB); a string left open is one token up to where
# it stops (the end of its line, or of the text for a long string); a word that is no prefixed name
# is one token; so no position is scanned twice (an open quote before each of many escaped quotes,
# or a long word with no colon, took time quadratic in its length).
_TOKEN_START = re.compile(r"""["'<#@_:A-Za-z]""")
_DECLARATION = re.compile(r"(?:@prefix|PREFIX)\s+(?P<declared>[A-Za-z][\w.-]*)?:\s*<(?P<namespace>[^<>\s]*)>")
_PREFIX = re.compile(r"(?:[A-Za-z][\w.-]*)?:")
_WORD = re.compile(r"[A-Za-z][\w.-]*")
_BLANK = re.compile(r"_:[\w.-]*")
_IRI_RUN = cast("AlwaysMatches", re.compile(r"""[^<>"{}|^`\\\x00-\x20]*"""))
_IRI_ESCAPE = re.compile(r"\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}")
_LOCAL_RUN = cast("AlwaysMatches", re.compile(r"[\w\-:.%]*"))
_LOCAL_ESCAPED = frozenset("_~.-!$&'()*+,;=/?#@%")  # what a backslash may escape in a local name
_STRING_RUN = cast("dict[str, AlwaysMatches]", {'"': re.compile(r'[^"\\\n]*'), "'": re.compile(r"[^'\\\n]*")})
_LONG_STRING_RUN = cast("dict[str, AlwaysMatches]", {'"': re.compile(r'[^"\\]*'), "'": re.compile(r"[^'\\]*")})
_JSON_STRING_RUN = cast("AlwaysMatches", re.compile(r'[^"\\\x00-\x1f]*'))
_UCHAR = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_LOCAL_ESCAPE = re.compile(r"\\(.)")


def _uchar(match: re.Match) -> str:
    try:
        return chr(int(match.group(1) or match.group(2), 16))
    except (ValueError, OverflowError):
        return match.group(0)


def _escaped(text: str, position: int, allowed: frozenset[str] | None = None) -> bool:
    """Whether a backslash at ``position`` escapes the character after it (any but a line end, or
    one of ``allowed``)."""
    if not text.startswith("\\", position) or position + 1 >= len(text):
        return False
    following = text[position + 1]
    return following in allowed if allowed is not None else following != "\n"


def _string_end(text: str, start: int) -> int:
    """Where the Turtle string at ``start`` ends: past its closing quote, or where it stops when it
    is left open (its line's end; a long string's is the text's)."""
    quote = text[start]
    if text.startswith(quote * 3, start):
        return _long_string_end(text, start + 3, quote)
    run, position = _STRING_RUN[quote], start + 1
    while True:
        position = run.match(text, position).end()
        if _escaped(text, position):
            position += 2
        else:
            return position + 1 if text.startswith(quote, position) else position


def _long_string_end(text: str, position: int, quote: str) -> int:
    """Where the long string whose text starts at ``position`` ends (see :func:`_string_end`)."""
    run = _LONG_STRING_RUN[quote]
    while True:
        position = run.match(text, position).end()
        if _escaped(text, position):
            position += 2
        elif text.startswith(quote * 3, position):
            return position + 3
        elif text.startswith(quote, position):  # one or two quotes inside the string
            position += 1
        else:
            return position


def _iri_end(text: str, start: int) -> int | None:
    """Where the IRI ``<...>`` at ``start`` ends (past its ``>``), or None when there is none."""
    position = start + 1
    while True:
        position = _IRI_RUN.match(text, position).end()
        escape = _IRI_ESCAPE.match(text, position)
        if escape is None:
            return position + 1 if text.startswith(">", position) else None
        position = escape.end()


def _local_end(text: str, position: int) -> int:
    """Where the local part of a prefixed name that starts at ``position`` ends."""
    while True:
        position = _LOCAL_RUN.match(text, position).end()
        if not _escaped(text, position, _LOCAL_ESCAPED):
            return position
        position += 2


def _without_final_periods(local: str, end: int) -> tuple[str, int]:
    """A prefixed name's local part without the periods that end its statement (a period after a
    backslash is part of the name), and where it now ends; in one pass, however many periods."""
    kept = local.rstrip(".")
    dropped = len(local) - len(kept)
    if dropped and kept.endswith("\\"):
        dropped -= 1
    return local[: len(local) - dropped], end - dropped


def scan_turtle(text: str, base: str) -> Iterator[tuple[str, int, int, str, str]]:
    """(iri, start, end, form, prefix) for each IRI under ``base`` in Turtle or N-Triples text."""
    namespaces: dict[str, str] = {}
    position = 0
    while (token := _TOKEN_START.search(text, position)) is not None:
        start = token.start()
        char = text[start]
        if char in "\"'":
            position = _string_end(text, start)
        elif char == "#":
            end = text.find("\n", start)
            position = len(text) if end < 0 else end
        elif char == "<":
            closing = _iri_end(text, start)
            if closing is None:
                position = start + 1
            else:
                position = closing
                iri = _UCHAR.sub(_uchar, text[start + 1 : closing - 1])
                if iri.startswith(base):
                    yield iri, start + 1, closing - 1, "iri", ""
        elif (declaration := _DECLARATION.match(text, start)) is not None:
            namespaces[declaration.group("declared") or ""] = _UCHAR.sub(_uchar, declaration.group("namespace"))
            position = declaration.end()
        elif text.startswith("_:", start):
            position = cast("re.Match[str]", _BLANK.match(text, start)).end()  # (the text has "_:" there)
        elif (prefix := _PREFIX.match(text, start)) is not None:
            position = _local_end(text, prefix.end())
            found = _prefixed_iri(text, start, prefix.end(), position, namespaces, base)
            if found is not None:
                yield found
        else:  # a word that names nothing, or a character that starts no token
            word = _WORD.match(text, start)
            position = start + 1 if word is None else word.end()


def _prefixed_iri(text: str, start: int, local_start: int, end: int, namespaces: dict[str, str], base: str):
    """(iri, start, end, "local", namespace) of the prefixed name ``text[start:end]`` whose local
    part starts at ``local_start``, when its prefix is declared and it names an IRI under ``base``."""
    namespace = namespaces.get(text[start : local_start - 1])
    local, local_end = _without_final_periods(text[local_start:end], end)
    if namespace is None or not local:
        return None
    iri = namespace + _LOCAL_ESCAPE.sub(r"\1", local)
    return (iri, local_start, local_end, "local", namespace) if iri.startswith(base) else None


def _json_string_end(text: str, start: int) -> int:
    """Where the JSON string at ``start`` ends: past its closing quote, or where it stops when it
    is left open (a control character, or the end of the text)."""
    position = start + 1
    while True:
        position = _JSON_STRING_RUN.match(text, position).end()
        if _escaped(text, position):
            position += 2
        else:
            return position + 1 if text.startswith('"', position) else position


def scan_jsonld(text: str, base: str) -> Iterator[tuple[str, int, int, str, str]]:
    """(iri, start, end, "json", "") for each JSON string whose value is an IRI under ``base``.

    Full IRIs only: compact IRIs that a ``@context`` would expand are not resolved.
    """
    position = 0
    while (start := text.find('"', position)) >= 0:
        position = _json_string_end(text, start)
        token = text[start:position]
        if base[:8] not in token and "\\" not in token:
            continue
        try:
            value = json.loads(token)
        except ValueError:
            continue
        if isinstance(value, str) and value.startswith(base):
            yield value, start, position, "json", ""


def read_kg(ctx, shape: str) -> Iterator[KgIri]:
    """A :class:`KgIri` for each IRI under the section base in a KG file of ``shape`` (``turtle``
    or ``jsonld``)."""
    text = ctx.full_text()
    base = ctx.kind_options["iri-base"]
    scan = scan_jsonld if shape == "jsonld" else scan_turtle
    for iri, start, end, form, prefix in scan(text, base):
        line, col = ctx.source.line_col(start)
        yield KgIri(iri, line, col, start, end, form, prefix)
