"""The JSON Lines files of the ear-ids kind: dataset records (eval items, RAG outputs) and
retrieval corpus records, each with the ids of its governed fields (:class:`IdRef`), and how such
an id stands (:func:`verdict`, which the rules on ids share)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pytest_citations.core import jsonlines, sources
from pytest_citations.kinds import Reported
from pytest_citations.kinds.ear_ids.ids import (
    is_anchored_id,
    is_section_id,
    normalize_ear_doc_id,
    normalize_ear_section_id,
)
from pytest_citations.kinds.ear_ids.json_text import (
    INVALID_JSON,
    Where,
    _skip_space,
    find_paths,
    member_spans,
    parse_path,
)
from pytest_citations.kinds.ear_ids.regulation import OTHER, citation_regulation
from pytest_citations.rules import Finding

CORPUS_SCHEMA = "retrieval-corpus.v1"
RAG_PATH = "citations[].section_id"
SECTION_PATHS = ("ear_sections[]", "expected.citations[]", RAG_PATH)
CORPUS_FIELDS = {"doc_id": "doc", "section_id": "section", "parent_id": "doc"}


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


def verdict(ref: IdRef) -> tuple[str, str | None]:
    """How a governed id stands: ``ok``, ``fix`` (normalizable), ``anchor`` (a paragraph anchor
    where a section is required), ``invalid``, ``type`` or ``not-array``; and its canonical form."""
    value = ref.value
    if ref.not_array:
        return "not-array", None
    if not isinstance(value, str):
        return "type", None
    if ref.expect == "section":
        if is_section_id(value):
            return "ok", value
        doc = normalize_ear_doc_id(value)
        if doc is not None and "#" in doc:
            return "anchor", doc.split("#", 1)[0]
        normalized = normalize_ear_section_id(value)
        return ("fix", normalized) if normalized else ("invalid", None)
    if is_section_id(value) or is_anchored_id(value):
        return "ok", value
    normalized = normalize_ear_doc_id(value)
    return ("fix", normalized) if normalized else ("invalid", None)


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


def read_records(ctx) -> Iterator[Any]:
    """The units of a JSON Lines file: a :class:`CorpusRecord` for each ``retrieval-corpus.v1``
    record, a :class:`DatasetRecord` for each other JSON object."""
    paths = [(path, parse_path(path)) for path in (*SECTION_PATHS, *ctx.kind_options["extra-paths"])]
    for item in jsonlines.records(ctx, INVALID_JSON):
        if isinstance(item, Reported):
            yield item
            continue
        line, text, data = item.line, item.line.text, item.data
        if data.get("schema_version") == CORPUS_SCHEMA:
            spans = member_spans(text, _skip_space(text, 0))
            refs = [
                _ref(line, key, data[key], expect, *spans[key])
                for key, expect in CORPUS_FIELDS.items()
                if key in data and key in spans
            ]
            yield CorpusRecord(line.number, line.offset, text, data, refs)
            continue
        refs = []
        other_regulations = _citations_of_other_regulations(data)
        for path, steps in paths:
            for found in find_paths(text, 0, steps):
                if path == RAG_PATH and _index_of_citation(found.where) in other_regulations:
                    continue
                ref = _ref(line, found.where or "", found.value, "section", found.start, found.end)
                refs.append(IdRef(**{**ref.__dict__, "not_array": found.not_array}))
        yield DatasetRecord(line.number, line.offset, text, data, refs)


def _citations_of_other_regulations(data: dict[str, Any]) -> set[int]:
    """The indexes of a record's ``citations`` that say they cite another regulation than the EAR
    (``"title": "12 CFR 741.3 Criteria"``): their ``section_id`` is that regulation's, not judged
    as an EAR id (:mod:`.regulation`). A record's other citations are judged: its file is claimed,
    which is evidence enough that they are the EAR's."""
    citations = data.get("citations")
    if not isinstance(citations, list):
        return set()
    return {
        index for index, citation in enumerate(citations)
        if isinstance(citation, dict) and citation_regulation(citation) == OTHER
    }


def _index_of_citation(where: Where | None) -> int | None:
    """The index in ``citations`` of the citation whose ``section_id`` is at ``where``."""
    step = where.parent.step if where is not None and where.parent is not None else None
    return step if isinstance(step, int) else None


def _ref(line: sources.Line, where: str | Where, value: Any, expect: str, start: int, end: int) -> IdRef:
    return IdRef(where, value, expect, line.number, start + 1, line.offset + start, line.offset + end)
