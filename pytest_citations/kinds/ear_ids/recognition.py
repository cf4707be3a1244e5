"""How the ear-ids kind recognises its files: the shape of a file by its suffix, and what the head
of a file holds when the kind claims it (it claims a file by its content only)."""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from pytest_citations.kinds.ear_ids.ids import looks_like_ear_id
from pytest_citations.kinds.ear_ids.json_text import _whole_elements
from pytest_citations.kinds.ear_ids.regulation import EAR, NAMES_THE_EAR, citation_regulation, names_the_ear

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
# A dataset named for the EAR: its id or its file's name starts with ear_ or ear- (ear_compliance.v1,
# eval/ear-qa.jsonl).
_EAR_DATASET_NAME = re.compile(r"ear[_-]", re.IGNORECASE)
_KG_MARK = re.compile(r"/resource/ear/section/")


def file_format(rel: str) -> str:
    suffix = PurePosixPath(rel).suffix.lower()
    if suffix == ".json":
        return "manifest"
    return KG_SUFFIXES.get(suffix, "jsonl")


def cites_ear_sections(head: str) -> bool:
    """Whether a record of the head (one JSON Lines line) is a RAG output whose ``citations[]``
    hold an EAR section's ``section_id``: one that says it is the EAR's (``EAR-736.2``,
    ``15 CFR 736.2``, or a section number whose citation names the EAR), or a section number of
    one of the EAR's parts (see :func:`looks_like_ear_id`) in a record that names the EAR, whose
    citation names no other regulation (:mod:`.regulation`). Only that field, as the spec names
    it: other tools have ``section_id``s of their own (``sec-3``), and eCFR snapshots a top-level
    one (``§ 736.2``) that is an input of the corpus build, not a citation. A line is decoded only
    when it holds both keys, so the head is read once."""
    for line in head.removeprefix("\ufeff").split("\n"):
        if not all(key in line for key in _RAG_KEYS):
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # a line the head cuts off, or one nested too deep
            continue
        citations = record.get("citations") if isinstance(record, dict) else None
        if isinstance(citations, list) and _cites_an_ear_section(citations, line):
            return True
    return False


def _cites_an_ear_section(citations: list, record_text: str) -> bool:
    """Whether one of a record's ``citations`` is of an EAR section (see :func:`cites_ear_sections`);
    ``record_text`` (the record's line) is read once, and only for a section number that does not
    say."""
    unsaid = False  # a section number of the EAR's parts whose citation does not say whose it is
    for citation in citations:
        if not isinstance(citation, dict):
            continue
        regulation = citation_regulation(citation)
        if regulation == EAR:
            return True
        unsaid = unsaid or (regulation is None and looks_like_ear_id(citation.get("section_id")))
    return unsaid and names_the_ear(record_text)


def is_dataset_manifest(head: str) -> bool:
    """Whether the head is a dataset manifest in our shape: a JSON object whose ``datasets`` array
    holds an entry with ``id``, ``file`` and ``num_items``, among the entries the head holds whole,
    and that names the EAR (:data:`NAMES_THE_EAR`, or a dataset named for it). Other tools'
    manifests list datasets by ``name`` and ``path`` (with a ``num_items`` too), or in our shape
    for a benchmark that has nothing to do with the EAR (an "ear training" task, an "ear-net"
    model)."""
    if _MANIFEST_START.match(head) is None or (found := _DATASETS_ARRAY.search(head)) is None:
        return False
    entries = [entry for entry in _whole_elements(head, found.end() - 1) if isinstance(entry, dict)]
    if not any(all(key in entry for key in MANIFEST_ENTRY_FIELDS) for entry in entries):
        return False
    return NAMES_THE_EAR.search(head) is not None or any(map(_named_for_the_ear, entries))


def _named_for_the_ear(entry: dict) -> bool:
    """Whether a manifest entry's ``id``, or the name of its ``file``, starts with ear_ or ear-."""
    file = entry.get("file")
    names = (entry.get("id"), PurePosixPath(file).name if isinstance(file, str) else None)
    return any(isinstance(name, str) and _EAR_DATASET_NAME.match(name) is not None for name in names)
