"""EAR ids: eval datasets, dataset manifests, retrieval corpus and KG IRIs (ear-identifier-policy.md).

One kind, ``ear-ids``, reads four shapes of file and yields one unit type for each:

- JSON Lines: each line that holds a JSON object is a :class:`CorpusRecord` when its
  ``schema_version`` is ``retrieval-corpus.v1`` and a :class:`DatasetRecord` otherwise (an eval
  item, or a RAG output). A JSON Lines file is claimed by content when its first 64 KiB hold a
  corpus record, an ``ear_sections`` key, or a RAG output whose ``citations[].section_id`` is
  written as an EAR section id.
- ``manifest.json``: a dataset manifest, one :class:`Manifest` unit, claimed when its datasets
  list an entry with ``id``, ``file`` and ``num_items``.
- ``*.ttl``, ``*.nt`` (Turtle, N-Triples) and ``*.jsonld`` (JSON-LD): every IRI under the section
  base becomes a :class:`KgIri` unit. KG files are scanned, not parsed (see :func:`scan_turtle`).

Only the fields the spec names are read as section ids: ``ear_sections[]``,
``expected.citations[]`` and RAG outputs' ``citations[].section_id`` (plus the ``extra-paths``
option), and in corpus records ``doc_id``, ``section_id`` and ``parent_id``. Everything else
(``evidence.doc_spans[].doc_id`` holds part-level ids such as ``EAR-736``) is left alone.

Resolution (a cited id names exactly one corpus record) and the anchor sequences (a container's
paragraphs may span corpus shards) need every corpus record of the repository: :func:`corpus_index`
and :func:`anchor_index` read them once per run (run-wide indexes, see `dependencies`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, cast

from pytest_citations.core import jsonlines, sources
from pytest_citations.kinds import Reported
from pytest_citations.kinds.ear_ids.ids import DEFAULT_IRI_BASE, looks_like_ear_id, normalize_ear_doc_id
from pytest_citations.rules import Finding, Option
from pytest_citations.run import dependencies

if TYPE_CHECKING:
    from pytest_citations.core.patterns import AlwaysMatches

CORPUS_SCHEMA = "retrieval-corpus.v1"
SECTION_PATHS = ("ear_sections[]", "expected.citations[]", "citations[].section_id")
CORPUS_FIELDS = {"doc_id": "doc", "section_id": "section", "parent_id": "doc"}
KG_SUFFIXES = {".ttl": "turtle", ".nt": "turtle", ".jsonld": "jsonld"}
# What the head of each of the kind's files holds (the kind claims a file by its content only):
# a corpus record's schema, a dataset record's ear_sections, a RAG output's citations of EAR
# sections, a manifest's list of datasets in our shape, a KG section IRI's path.
_CORPUS_MARK = re.compile(r'"schema_version"\s*:\s*"retrieval-corpus\.v1"')
_DATASET_MARK = re.compile(r'"ear_sections"\s*:')
_RAG_KEYS = ('"citations"', '"section_id"')
_MANIFEST_START = re.compile(r"\A\ufeff?\s*\{")
_DATASETS_ARRAY = re.compile(r'"datasets"\s*:\s*\[')
MANIFEST_ENTRY_FIELDS = ("id", "file", "num_items")
_KG_MARK = re.compile(r"/resource/ear/section/")
_SCANNER = json.JSONDecoder()
INVALID_JSON = "E501"


# -- where values sit in JSON text ----------------------------------------------------------------


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _members(text: str, start: int) -> Iterator[tuple[str, int, int]]:
    """(key, value start, value end) of the JSON object starting at ``start``."""
    position = start + 1
    while True:
        position = _skip_space(text, position)
        if position >= len(text) or text[position] == "}":
            return
        key, position = _SCANNER.raw_decode(text, position)
        position = _skip_space(text, position) + 1  # the colon
        value_start = _skip_space(text, position)
        _, value_end = _SCANNER.raw_decode(text, value_start)
        yield key, value_start, value_end
        position = _skip_space(text, value_end)
        if position < len(text) and text[position] == ",":
            position += 1


def _elements(text: str, start: int) -> Iterator[tuple[int, int, int]]:
    """(index, start, end) of each element of the JSON array starting at ``start``."""
    position = start + 1
    index = 0
    while True:
        position = _skip_space(text, position)
        if position >= len(text) or text[position] == "]":
            return
        _, end = _SCANNER.raw_decode(text, position)
        yield index, position, end
        index += 1
        position = _skip_space(text, end)
        if position < len(text) and text[position] == ",":
            position += 1


def member_spans(text: str, start: int) -> dict[str, tuple[int, int]]:
    return {key: (value_start, value_end) for key, value_start, value_end in _members(text, start)}


def element_spans(text: str, start: int) -> list[tuple[int, int]]:
    return [(value_start, value_end) for _, value_start, value_end in _elements(text, start)]


def parse_path(path: str) -> tuple[str, ...]:
    """``expected.citations[]`` -> ``("expected", "citations", "[]")``."""
    steps: list[str] = []
    for part in path.split("."):
        name = part
        arrays = 0
        while name.endswith("[]"):
            name = name[:-2]
            arrays += 1
        if name:
            steps.append(name)
        steps.extend(["[]"] * arrays)
    return tuple(steps)


@dataclass(frozen=True)
class Where:
    """Where a value sits in a record (``ear_sections[0]``): the last step of the path there (a key,
    or an index) and where that step starts. A step costs the same however deep the path, and the
    path is spelled out only when a message shows it (spelled out for each of many values of a deep
    path, as it once was, it took memory growing with their number times the depth)."""

    parent: Where | None
    step: str | int

    def __str__(self) -> str:
        steps: list[str | int] = []
        node: Where | None = self
        while node is not None:
            steps.append(node.step)
            node = node.parent
        parts = [f"[{step}]" if isinstance(step, int) else f".{step}" for step in reversed(steps)]
        return "".join(parts).removeprefix(".")


@dataclass(frozen=True)
class Found:
    """A value at a governed path: where (``ear_sections[0]``), the value, and its span."""

    where: Where | None
    value: Any
    start: int
    end: int
    not_array: bool = False  # the path wanted an array here and found this value instead


def find_paths(text: str, start: int, steps: tuple[str, ...]) -> list[Found]:
    """Every value the path ``steps`` reaches in the JSON value at ``start`` (absent parts skipped)."""
    found: list[Found] = []
    _walk(text, start, steps, None, found)
    return found


def _walk(text: str, start: int, steps: tuple[str, ...], where: Where | None, found: list[Found]) -> int:
    """Add to ``found`` what :func:`find_paths` finds in the value at ``start``, and return where the
    value ends. Each part of the text is read once, however deep the path: an object or array on the
    path is walked member by member, the others are skipped by decoding them."""
    start = _skip_space(text, start)
    char = text[start] if start < len(text) else ""
    if steps and steps[0] == "[]" and char == "[":
        return _walk_elements(text, start, steps[1:], where, found)
    if steps and steps[0] != "[]" and char == "{":
        return _walk_members(text, start, steps, where, found)
    value, end = _SCANNER.raw_decode(text, start)
    if not steps:
        found.append(Found(where, value, start, end))
    elif steps[0] == "[]" and value is not None:
        found.append(Found(where, value, start, end, not_array=True))
    return end


def _walk_elements(text: str, start: int, rest: tuple[str, ...], where: Where | None, found: list[Found]) -> int:
    """:func:`_walk` of each element of the array at ``start``; where the array ends."""
    position, index = start + 1, 0
    while True:
        position = _skip_space(text, position)
        if position >= len(text) or text[position] == "]":
            return position + 1
        end = _walk(text, position, rest, Where(where, index), found)
        index += 1
        position = _skip_space(text, end)
        if position < len(text) and text[position] == ",":
            position += 1


def _walk_members(text: str, start: int, steps: tuple[str, ...], where: Where | None, found: list[Found]) -> int:
    """:func:`_walk` of the member named ``steps[0]`` of the object at ``start`` (the others are
    skipped); where the object ends."""
    head, rest = steps[0], steps[1:]
    position = start + 1
    while True:
        position = _skip_space(text, position)
        if position >= len(text) or text[position] == "}":
            return position + 1
        key, position = _SCANNER.raw_decode(text, position)
        value_start = _skip_space(text, _skip_space(text, position) + 1)  # past the colon
        if key == head:
            end = _walk(text, value_start, rest, Where(where, key), found)
        else:
            _, end = _SCANNER.raw_decode(text, value_start)
        position = _skip_space(text, end)
        if position < len(text) and text[position] == ",":
            position += 1


# -- units ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IdRef:
    """An id in a governed field: ``expect`` is ``section`` or ``doc`` (a section id, or one with
    an anchor); ``start``/``end`` are character offsets of its JSON value in the file's text;
    ``where`` names the field (a corpus record's key, or a dataset record's :class:`Where`)."""

    where: str | Where
    value: Any
    expect: str
    line: int
    col: int
    start: int
    end: int
    not_array: bool = False


@dataclass
class JsonRecord:
    line: int
    offset: int
    text: str
    data: dict[str, Any]
    refs: list[IdRef]

    def finding(self, message: str, ref: IdRef | None = None, fix=None) -> Finding:
        return Finding(message, self.line, ref.col if ref else 1, fix=fix, context=self.text)


@dataclass
class DatasetRecord(JsonRecord):
    """An eval item or RAG output; ``refs`` are its ids in the governed section fields."""


@dataclass
class CorpusRecord(JsonRecord):
    """A ``retrieval-corpus.v1`` record; ``refs`` are its ``doc_id``, ``section_id``, ``parent_id``."""

    def ref(self, key: str) -> IdRef | None:
        return next((ref for ref in self.refs if ref.where == key), None)


@dataclass
class ManifestEntry:
    index: int
    data: Any
    line: int
    col: int
    positions: dict[str, tuple[int, int]]  # key -> (line, col) of its value

    def position(self, key: str) -> tuple[int, int]:
        return self.positions.get(key, (self.line, self.col))


@dataclass
class Manifest:
    """A dataset manifest (``eval/manifest.json``): ``{"datasets": [{id, file, num_items}, ...]}``."""

    rel: str
    data: Any
    entries: list[ManifestEntry] | None  # None when ``datasets`` is missing or not an array
    datasets_position: tuple[int, int]
    line: int = 1


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


# -- KG scanning ------------------------------------------------------------------------------------

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


# -- claiming by content ----------------------------------------------------------------------------


def cites_ear_sections(head: str) -> bool:
    """Whether a record of the head (one JSON Lines line) is a RAG output whose ``citations[]``
    hold a ``section_id`` written as an EAR section id (see :func:`looks_like_ear_id`). Only that
    field, as the spec names it: other tools have ``section_id``s of their own (``sec-3``), and
    eCFR snapshots a top-level one (``§ 736.2``) that is an input of the corpus build, not a
    citation. A line is decoded only when it holds both keys, so the head is read once."""
    for line in head.removeprefix("\ufeff").split("\n"):
        if not all(key in line for key in _RAG_KEYS):
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # a line the head cuts off, or one nested too deep
            continue
        citations = record.get("citations") if isinstance(record, dict) else None
        if isinstance(citations, list) and any(
            isinstance(citation, dict) and looks_like_ear_id(citation.get("section_id")) for citation in citations
        ):
            return True
    return False


def is_dataset_manifest(head: str) -> bool:
    """Whether the head is a dataset manifest in our shape: a JSON object whose ``datasets`` array
    holds an entry with ``id``, ``file`` and ``num_items``, among the entries the head holds whole.
    Other tools' manifests list datasets by ``name`` and ``path`` (with a ``num_items`` too)."""
    if _MANIFEST_START.match(head) is None or (found := _DATASETS_ARRAY.search(head)) is None:
        return False
    return any(
        isinstance(entry, dict) and all(key in entry for key in MANIFEST_ENTRY_FIELDS)
        for entry in _whole_elements(head, found.end() - 1)
    )


def _whole_elements(text: str, start: int) -> Iterator[Any]:
    """The values of the JSON array starting at ``start``, up to the first that cannot be read
    whole (cut off by the end of ``text``, malformed, or nested too deep). Each is read once."""
    position = start + 1
    while True:
        position = _skip_space(text, position)
        if position >= len(text) or text[position] == "]":
            return
        try:
            value, position = _SCANNER.raw_decode(text, position)
        except (ValueError, RecursionError):
            return
        yield value
        position = _skip_space(text, position)
        if position < len(text) and text[position] == ",":
            position += 1


# -- the run-wide corpus index ----------------------------------------------------------------------


@dataclass
class CorpusIndex:
    by_doc_id: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # doc_id -> (rel, line)
    records: set[tuple[str, int]] = field(default_factory=set, repr=False)  # every (rel, line) above

    @property
    def empty(self) -> bool:
        return not self.by_doc_id


def file_format(rel: str) -> str:
    suffix = PurePosixPath(rel).suffix.lower()
    if suffix == ".json":
        return "manifest"
    return KG_SUFFIXES.get(suffix, "jsonl")


def corpus_files(engine) -> list[str]:
    """Every JSONL file of this kind under the repository root (those that may hold corpus records)."""
    return [
        rel for rel, kinds in engine.discover([engine.config.root])
        if any(getattr(kind, "name", None) == KIND.name for kind in kinds) and file_format(rel) == "jsonl"
    ]


@dependencies.run_index("ear-ids.corpus", kind="ear-ids", sources=corpus_files)
def corpus_index(engine) -> CorpusIndex:
    """Every ``retrieval-corpus.v1`` record's ``doc_id`` in the repository."""
    index = CorpusIndex()
    for rel in corpus_files(engine):
        for doc_id, line in engine.file_memo("ear-ids.corpus", rel, lambda rel=rel: _corpus_doc_ids(engine, rel)):
            index.by_doc_id.setdefault(doc_id, []).append((rel, line))
            index.records.add((rel, line))
    return index


class AnchorSequence:
    """The paragraph anchors of each container seen so far, in corpus order (spec §3): within a
    container, ``#p0001``, ``#p0002``, ... with no gap, no repeat and no step back. Memory grows
    with the anchors seen, one entry each."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[int, tuple[str, int]]] = {}  # base id -> anchor number -> where first
        self.highest: dict[str, int] = {}  # base id -> the largest anchor number seen

    def add(self, base: str, number: int, where: tuple[str, int]) -> tuple[str, Any] | None:
        """Note the anchor ``#p<number>`` of ``base`` at ``where`` (file, line); what it breaks:
        ``("repeat", where it first appeared)``, ``("gap", the anchor before it)`` or None."""
        seen = self.seen.setdefault(base, {})
        last = self.highest.get(base, 0)
        problem = ("repeat", seen[number]) if number in seen else (("gap", last) if number != last + 1 else None)
        seen.setdefault(number, where)
        self.highest[base] = max(last, number)
        return problem


@dataclass
class AnchorIndex:
    """Where the corpus's paragraph anchors break their container's sequence: (file, line) ->
    what :meth:`AnchorSequence.add` said there; and the corpus files it was built from, in order."""

    problems: dict[tuple[str, int], tuple[str, Any]]
    files: tuple[str, ...]
    _members: frozenset[str] = field(init=False, repr=False, compare=False)  # (a value's digest is of its repr)

    def __post_init__(self) -> None:
        self._members = frozenset(self.files)

    def covers(self, rel: str) -> bool:
        """Whether the file ``rel`` is one of the corpus files the index was built from."""
        return rel in self._members


def anchored(doc_id: Any) -> tuple[str, int] | None:
    """(base id, anchor number) of an anchored corpus ``doc_id`` in any spelling, else None."""
    normalized = normalize_ear_doc_id(doc_id)
    if normalized is None or "#" not in normalized:
        return None
    base, anchor = normalized.split("#", 1)
    return base, int(anchor[1:])


@dependencies.run_index("ear-ids.anchors", kind="ear-ids", sources=corpus_files)
def anchor_index(engine) -> AnchorIndex:
    """The anchor sequences of every corpus record in the repository, as one corpus: a container's
    paragraphs may continue from one shard to the next (``corpus-00000-of-00002.jsonl``, then
    ``corpus-00001-of-00002.jsonl``), so the files are taken in the order of their paths, each in
    line order. One pass over the records (read with :func:`corpus_index`'s shares)."""
    sequence = AnchorSequence()
    problems: dict[tuple[str, int], tuple[str, Any]] = {}
    files = sorted(corpus_files(engine))
    for rel in files:
        for doc_id, line in engine.file_memo("ear-ids.corpus", rel, lambda rel=rel: _corpus_doc_ids(engine, rel)):
            found = anchored(doc_id)
            if found is not None and (problem := sequence.add(*found, (rel, line))) is not None:
                problems[(rel, line)] = problem
    return AnchorIndex(problems, tuple(files))


def _corpus_doc_ids(engine, rel: str) -> list[list]:
    """[doc_id, line] of every corpus record in one file (none when it cannot be read: the file
    reports its own diagnostic)."""
    found = []
    try:
        for line in sources.iter_lines(engine.config.root, rel, engine.config.max_file_size):
            if CORPUS_SCHEMA not in line.text:
                continue
            try:
                data = jsonlines.loads(line.text)
            except (ValueError, RecursionError):
                continue
            if isinstance(data, dict) and data.get("schema_version") == CORPUS_SCHEMA and isinstance(data.get("doc_id"), str):
                found.append([data["doc_id"], line.number])
    except sources.SourceError:
        return []
    return found


# -- the kind ---------------------------------------------------------------------------------------


class EarIds:
    name = "ear-ids"
    description = "EAR section ids in eval datasets, manifests, retrieval corpus records and KG IRIs"
    include = ()
    sniff_include = ("**/*.jsonl", "**/manifest.json", "**/*.ttl", "**/*.nt", "**/*.jsonld")
    options = {
        "extra-paths": Option(
            list, [], "more JSON paths in dataset records that hold section ids (e.g. rag.citations[].section_id)",
            items=str,
        ),
        "iri-base": Option(str, DEFAULT_IRI_BASE, "the namespace of KG section IRIs"),
        "manifest-paths": Option(
            str, "root", "what a manifest's dataset paths are relative to", choices=("root", "manifest")
        ),
    }

    def sniff(self, head: str) -> bool:
        return (any(mark.search(head) for mark in (_CORPUS_MARK, _DATASET_MARK, _KG_MARK))
                or cites_ear_sections(head) or is_dataset_manifest(head))

    def units(self, ctx) -> Iterator[Any]:
        shape = file_format(ctx.rel)
        if shape == "manifest":
            yield from self._manifest(ctx)
        elif shape == "jsonl":
            yield from self._records(ctx)
        else:
            yield from self._kg(ctx, shape)

    # JSON Lines: dataset records and corpus records

    def _records(self, ctx) -> Iterator[Any]:
        paths = [(path, parse_path(path)) for path in (*SECTION_PATHS, *ctx.kind_options["extra-paths"])]
        for item in jsonlines.records(ctx, INVALID_JSON):
            if isinstance(item, Reported):
                yield item
                continue
            line, text, data = item.line, item.line.text, item.data
            if data.get("schema_version") == CORPUS_SCHEMA:
                spans = member_spans(text, _skip_space(text, 0))
                refs = [
                    self._ref(line, key, data[key], expect, *spans[key])
                    for key, expect in CORPUS_FIELDS.items()
                    if key in data and key in spans
                ]
                yield CorpusRecord(line.number, line.offset, text, data, refs)
                continue
            refs = []
            for _, steps in paths:
                for found in find_paths(text, 0, steps):
                    ref = self._ref(line, found.where or "", found.value, "section", found.start, found.end)
                    refs.append(IdRef(**{**ref.__dict__, "not_array": found.not_array}))
            yield DatasetRecord(line.number, line.offset, text, data, refs)

    @staticmethod
    def _ref(line: sources.Line, where: str | Where, value: Any, expect: str, start: int, end: int) -> IdRef:
        return IdRef(where, value, expect, line.number, start + 1, line.offset + start, line.offset + end)

    # the dataset manifest

    def _manifest(self, ctx) -> Iterator[Any]:
        data = jsonlines.document(ctx, INVALID_JSON)
        if isinstance(data, Reported):
            yield data
            return
        source: sources.Source = ctx.source  # (read whole by jsonlines.document)
        text = source.text
        start = _skip_space(text, 0)
        entries = None
        datasets_position = (1, 1)
        if isinstance(data, dict) and isinstance(data.get("datasets"), list):
            datasets_start = member_spans(text, start)["datasets"][0]
            datasets_position = source.line_col(datasets_start)
            entries = []
            for index, (entry_start, _) in enumerate(element_spans(text, datasets_start)):
                positions = {}
                if text[entry_start] == "{":
                    positions = {key: source.line_col(span[0]) for key, span in member_spans(text, entry_start).items()}
                entries.append(ManifestEntry(index, data["datasets"][index], *source.line_col(entry_start), positions))
        elif isinstance(data, dict) and "datasets" in data:
            datasets_position = source.line_col(member_spans(text, start)["datasets"][0])
        yield Manifest(ctx.rel, data, entries, datasets_position)

    # KG files

    def _kg(self, ctx, shape: str) -> Iterator[KgIri]:
        text = ctx.full_text()
        base = ctx.kind_options["iri-base"]
        scan = scan_jsonld if shape == "jsonld" else scan_turtle
        for iri, start, end, form, prefix in scan(text, base):
            line, col = ctx.source.line_col(start)
            yield KgIri(iri, line, col, start, end, form, prefix)


KIND = EarIds()
